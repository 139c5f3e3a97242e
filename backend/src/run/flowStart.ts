// Did each TCP flow start when the spec said? iperf3 runs its whole duration from the moment its
// data connection is up, so a flow whose handshake lost a SYN (TCP waits 1 s, then 2, then 4
// before sending it again) runs seconds after the flows planned beside it, and may meet none of
// them. The tcp sampler dates each flow by its last data stream to come up (demux.ts); this
// judges the delay.
// Control and SYN packets queue behind the data of flows already running, so in a full bottleneck
// (17 flows into one BDP in the lab) a flow's start can slip by seconds, or past its whole run.
import type { FlowTopology } from '@lfnlab/emulator';
import { DATA_STREAM_BYTES } from './demux.js';
import type { Check } from './fidelity.js';

/** What a clean start may take: iperf3's control and data handshakes (4 RTT) and two sampler ticks. */
export function startAllowanceS(flow: Pick<FlowTopology, 'rttMs'>, sampleHz: number): number {
  return (4 * flow.rttMs) / 1000 + 2 / sampleHz;
}

/**
 * The least time iperf3 takes to open a flow's parallel streams: one after another, a blocking
 * connect of a round trip each, and no data before the last is up. A SYN also queues behind the
 * flows already running: 48 streams at 1.2 s beside a flow that kept a 1 BDP buffer full took 104 s,
 * not 56.
 */
export function sequentialConnectS(
  flow: Pick<FlowTopology, 'rttMs' | 'streams' | 'transport' | 'connect'>,
): number {
  const serial = flow.transport === 'tcp' && flow.streams > 1 && flow.connect !== 'together';
  return serial ? ((flow.streams - 1) * flow.rttMs) / 1000 : 0;
}

/** A late start up to this share of the flow's duration passes; up to LATE_FAIL_SHARE it is suspect. */
export const LATE_WARN_SHARE = 0.05;
export const LATE_FAIL_SHARE = 0.25;

interface LateFlow {
  name: string;
  streams: number;
  connectS: number;
  lateS: number;
  plannedS: number;
  startedS: number;
  durationS: number;
  share: number;
}

const fmt = (s: number) => `${s.toFixed(2)} s`;

/**
 * Would this flow, had it started, have opened a data stream the sampler dates? A timed flow
 * sends for its whole duration; one whose window caps it under a stream's worth of bytes per
 * stream over its run, or a sized transfer (it may finish between two ticks), is not judged.
 */
function opensDataStream(f: FlowTopology): boolean {
  if (f.bytes !== null) return false;
  if (f.windowBytes === null) return true;
  // Linux keeps about half a socket buffer for the window: a margin of two.
  return (f.windowBytes * f.durationMs) / Math.max(1, f.rttMs) > 2 * DATA_STREAM_BYTES;
}

/**
 * One check over all TCP flows: the delay past the allowance, as a share of each flow's duration.
 * A timed flow with no data stream never began (its whole run lost) when the sampler dated another
 * flow of its namespace and kept sampling (`sampledUntilS`, its last TCP sample) past the point
 * where the flow would already be late by LATE_FAIL_SHARE: a run cut short says nothing of the
 * flows planned after it ended. Where the sampler dated none, the sampler check speaks instead.
 */
export function checkFlowStarts(
  flows: readonly FlowTopology[],
  dataStarts: ReadonlyMap<string, number>,
  sampleHz: number,
  sampledUntilS: number | null = null,
): Check {
  const id = 'flow-start';
  const expected = `data within 4 RTT + 2 sampler ticks of the planned start, ± ${LATE_WARN_SHARE * 100} % of the flow's duration`;
  const tcp = flows.filter((f) => f.transport !== 'udt' && f.transport !== 'rbudp');
  const judged = tcp.filter((f) => dataStarts.has(f.name));
  const sampledNs = new Set(judged.map((f) => f.clientNs));
  const failLateS = (f: FlowTopology) =>
    f.startMs / 1000 + startAllowanceS(f, sampleHz) + (LATE_FAIL_SHARE * f.durationMs) / 1000;
  const neverBegan = tcp.filter(
    (f) =>
      !dataStarts.has(f.name) &&
      sampledNs.has(f.clientNs) &&
      opensDataStream(f) &&
      sampledUntilS !== null &&
      sampledUntilS >= failLateS(f),
  );
  if (!judged.length)
    return {
      id,
      status: 'skip',
      measured: null,
      expected,
      message: 'no TCP flow was sampled; starts not judged',
    };
  const late: LateFlow[] = judged.map((f) => {
    const startedS = dataStarts.get(f.name) as number;
    const plannedS = f.startMs / 1000;
    const lateS = startedS - plannedS - startAllowanceS(f, sampleHz);
    return {
      name: f.name,
      streams: f.streams,
      connectS: sequentialConnectS(f),
      lateS,
      plannedS,
      startedS,
      durationS: f.durationMs / 1000,
      share: lateS / (f.durationMs / 1000),
    };
  });
  const worst = late.reduce((a, b) => (b.share > a.share ? b : a));
  const over = late.filter((l) => l.share > LATE_WARN_SHARE).sort((a, b) => b.share - a.share);
  if (!over.length && !neverBegan.length)
    return {
      id,
      status: 'pass',
      measured: Math.max(0, worst.lateS),
      expected,
      message: `${judged.length} flows began sending on time (the latest ${fmt(Math.max(0, worst.lateS))} past its handshake)`,
    };
  const missing = neverBegan.length
    ? [
        `${neverBegan.map((f) => f.name).join(', ')} began no data stream (${DATA_STREAM_BYTES / 1024} KiB acknowledged) in ${neverBegan.length > 1 ? 'their runs' : `its ${fmt((neverBegan[0]?.durationMs ?? 0) / 1000)}`}`,
      ]
    : [];
  const shown = Math.max(0, 4 - missing.length);
  const listed = [
    ...missing,
    ...over
      .slice(0, shown)
      .map(
        (l) =>
          `${l.name} began ${fmt(l.startedS - l.plannedS)} after its planned ${fmt(l.plannedS)} (${(l.share * 100).toFixed(0)} % of its ${fmt(l.durationS)}${
            l.connectS >= 1
              ? `; iperf3 opens its ${l.streams} streams one after another, a round trip or more each: at least ${fmt(l.connectS)} (\`connect: together\` starts them at once)`
              : ''
          })`,
      ),
  ].join('; ');
  const more = over.length > shown ? `; ${over.length - shown} more` : '';
  // A flow that never began lost its whole run: its lateness is its duration.
  const measured = Math.max(worst.lateS, ...neverBegan.map((f) => f.durationMs / 1000));
  return {
    id,
    status: neverBegan.length || worst.share > LATE_FAIL_SHARE ? 'fail' : 'warn',
    measured,
    expected,
    message: `${listed}${more}: a late flow shares less of its time with the flows planned beside it (a lost SYN waits 1 s, then 2, then 4)`,
  };
}
