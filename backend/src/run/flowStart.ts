// Did each TCP flow start when the spec said? iperf3 runs its whole duration from the moment its
// data connection is up, so a flow whose handshake lost a SYN (TCP waits 1 s, then 2, then 4
// before sending it again) runs seconds after the flows planned beside it, and may meet none of
// them. The tcp sampler dates each flow's first data stream (demux.ts); this judges the delay.
import type { FlowTopology } from '@lfnlab/emulator';
import type { Check } from './fidelity.js';

/** What a clean start may take: iperf3's control and data handshakes (4 RTT) and two sampler ticks. */
export function startAllowanceS(flow: Pick<FlowTopology, 'rttMs'>, sampleHz: number): number {
  return (4 * flow.rttMs) / 1000 + 2 / sampleHz;
}

/** A late start up to this share of the flow's duration passes; up to LATE_FAIL_SHARE it is suspect. */
export const LATE_WARN_SHARE = 0.05;
export const LATE_FAIL_SHARE = 0.25;

interface LateFlow {
  name: string;
  lateS: number;
  plannedS: number;
  startedS: number;
  durationS: number;
  share: number;
}

const fmt = (s: number) => `${s.toFixed(2)} s`;

/**
 * One check over all TCP flows the tcp sampler saw: the delay past the allowance, as a share of
 * each flow's duration. Flows it never saw carry no verdict here (the sampler check covers them).
 */
export function checkFlowStarts(
  flows: readonly FlowTopology[],
  dataStarts: ReadonlyMap<string, number>,
  sampleHz: number,
): Check {
  const id = 'flow-start';
  const expected = `data within 4 RTT + 2 sampler ticks of the planned start, ± ${LATE_WARN_SHARE * 100} % of the flow's duration`;
  const judged = flows.filter(
    (f) => f.transport !== 'udt' && f.transport !== 'rbudp' && dataStarts.has(f.name),
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
      lateS,
      plannedS,
      startedS,
      durationS: f.durationMs / 1000,
      share: lateS / (f.durationMs / 1000),
    };
  });
  const worst = late.reduce((a, b) => (b.share > a.share ? b : a));
  const over = late.filter((l) => l.share > LATE_WARN_SHARE).sort((a, b) => b.share - a.share);
  if (!over.length)
    return {
      id,
      status: 'pass',
      measured: Math.max(0, worst.lateS),
      expected,
      message: `${judged.length} flows began sending on time (the latest ${fmt(Math.max(0, worst.lateS))} past its handshake)`,
    };
  const listed = over
    .slice(0, 4)
    .map(
      (l) =>
        `${l.name} began ${fmt(l.startedS - l.plannedS)} after its planned ${fmt(l.plannedS)} (${(l.share * 100).toFixed(0)} % of its ${fmt(l.durationS)})`,
    )
    .join('; ');
  const more = over.length > 4 ? `; ${over.length - 4} more` : '';
  return {
    id,
    status: worst.share > LATE_FAIL_SHARE ? 'fail' : 'warn',
    measured: worst.lateS,
    expected,
    message: `${listed}${more}: a late flow shares less of its time with the flows planned beside it (a lost SYN waits 1 s, then 2, then 4)`,
  };
}
