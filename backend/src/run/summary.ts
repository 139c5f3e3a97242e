// summary.json: per flow mean and σ of goodput, retransmits, RTT; per path idle RTT and link
// utilisation; Jain's index between flows sharing a bottleneck direction.

import type { FlowTopology, PathTopology, Spec, Transport } from '@lfnlab/emulator';
import { bottleneckJain, type MetricValue, metricValue } from '@lfnlab/metrics';
import { findMetric } from '../report/format.js';
import type { FidelityReport } from './fidelity.js';
import type { IntervalSample, IperfJson } from './iperf.js';
import { linkProofOf, withLabLimits } from './labLimitCheck.js';
import { type FlowLimit, flowLimits } from './limitedBy.js';
import type { PingSummary } from './probes.js';
import type { ReuseRecord } from './reuse.js';
import { type FlowMetrics, type RunMetrics, runMetrics } from './runMetrics.js';
import type { RttSample, Sample } from './samples.js';
import type { RunClock } from './schedule.js';
import type { TransferResult } from './transportFlows.js';
import { type LabSideFlow, labSideOf } from './wireFlows.js';

export interface FlowResult {
  flow: FlowTopology;
  client: IperfJson | null;
  server: IperfJson | null;
  intervals: IntervalSample[];
  /** Stack names the kernel reported for this flow's data sockets (`ss -ti` probes and the tcp sampler). */
  observedStacks: string[];
  startedAtS: number | null;
  /** When its data began (s from traffic start), from the tcp sampler; null when not sampled. */
  dataStartS?: number | null;
  error: string | null;
  /** udt, rbudp, psockets: each side's raw output, as the schedule collected it. */
  transportOut?: { sender: string | null; receiver: string | null };
  /** udt, rbudp, psockets: the transfer as both sides reported it, integrity checked. */
  transfer?: TransferResult | null;
}

/** A flow's result before anything about it is known (or when it never started). */
export const emptyFlowResult = (flow: FlowTopology): FlowResult => ({
  flow,
  client: null,
  server: null,
  intervals: [],
  observedStacks: [],
  startedAtS: null,
  error: null,
});

export interface FlowSummary {
  name: string;
  /** tcp (iperf3) or a user-space transport (absent in summaries written before transports). */
  transport?: Transport;
  /** The TCP stack (tcp, psockets); for udt and rbudp, the transport's name. */
  stack: string;
  observedStacks: string[];
  path: string;
  direction: 'forward' | 'reverse';
  streams: number;
  startS: number;
  /** When its data actually began, s from traffic start (tcp sampler); null when not sampled. */
  dataStartS?: number | null;
  durationS: number;
  status: 'ok' | 'failed';
  error: string | null;
  /**
   * mean and sd: over the whole 5 s intervals between `omitS` and the flow's end (the run metrics
   * throughput.mean and throughput.sd, copied here); wholeRun: every byte.
   */
  goodputMbps: { mean: number | null; sd: number | null; wholeRun: number | null };
  /** σ/μ over the same intervals (the run metric stability.sigma_over_mu). */
  stability: number | null;
  /** The flow's first seconds left out of mean, sd and stability (spec `omit`; absent: none). */
  omitS?: number;
  retransmits: number | null;
  rttMs: { mean: number | null; min: number | null; max: number | null };
  maxCwndBytes: number | null;
  cpuPercent: { sender: number | null; receiver: number | null };
  /**
   * Metrics only this level can compute (sender CPU per Mbit/s, from iperf3). Every other metric id
   * lives in RunSummary.metrics (computed once, from the fine-grained samples).
   */
  metrics: MetricValue[];
  /**
   * udt, rbudp, psockets: `ok` when the receiver's SHA-256 equals the sender's and every byte
   * arrived, `mismatch` otherwise (the flow fails), null when a side never reported its digest.
   * null for tcp flows (iperf3 sends no verifiable data).
   */
  integrity?: 'ok' | 'mismatch' | null;
  /** udt, rbudp, psockets: bytes, digests, rounds and re-sends as both sides reported them. */
  transfer?: TransferResult | null;
  /** What held the flow back (tcp_info chrono counters with the bottleneck and the lab CPU). */
  limitedBy?: FlowLimit | null;
  /** A wire's flow as the lab saw it on its ports (wireFlows.ts); absent on a dumbbell. */
  labSide?: LabSideFlow | null;
}

export interface PathSummary {
  name: string;
  /** The RTT probe's view while flows ran (ms): how much queueing the stacks caused. */
  loadedRtt: { meanMs: number; maxMs: number; samples: number } | null;
  configured: {
    rttMs: number;
    rateMbps: number;
    reverseRateMbps: number;
    bufferPackets: { forward: number; reverse: number };
    ber: number;
  };
  idleRtt: PingSummary | null;
  utilisation: { forward: number | null; reverse: number | null };
  jain: { forward: number | null; reverse: number | null };
}

export interface RunSummary {
  name: string;
  status: 'completed' | 'failed' | 'aborted';
  error: string | null;
  seed: number;
  /** Whether the emulated link did what the spec said; null when the run did not get that far. */
  verdict: FidelityReport['verdict'] | null;
  fidelity: FidelityReport | null;
  flows: FlowSummary[];
  paths: PathSummary[];
  metrics: RunMetrics;
  /** The lab's clock during the run and its pace; null when the run did not reach traffic. */
  clock?: RunClock | null;
  /**
   * Present when a campaign ran this run on the dumbbell an earlier run built: where it came from
   * and which run's calibration it verified and used (its idle RTT is this run's own).
   */
  reuse?: ReuseRecord;
  /** Each time `lfnlab rejudge --write` judged the run again: when, the verdict it replaced, what changed. */
  rejudged?: RejudgeNote[];
}

export interface RejudgeNote {
  at: string;
  /** The lfnlab version that judged it again. */
  by: string;
  previousVerdict: FidelityReport['verdict'] | null;
  changed: { id: string; before: string | null; after: string | null }[];
  /** Run metric values that moved when computed again from the samples (rejudge.ts diffMetrics). */
  metricsChanged?: string[];
}

const mbps = (bps: number | null | undefined) => (bps === null || bps === undefined ? null : bps / 1e6);

/** A flow's interval statistics as its summary states them: its run metrics', in Mbit/s. */
function intervalStats(fm: FlowMetrics | undefined) {
  return {
    mean: mbps(findMetric(fm?.metrics, 'throughput.mean')),
    sd: mbps(findMetric(fm?.metrics, 'throughput.sd')),
    stability: findMetric(fm?.metrics, 'stability.sigma_over_mu'),
  };
}

/**
 * A summary with each flow's mean, σ and σ/μ taken from its run metrics. Summaries written before
 * the flow fields were copied from the metrics counted iperf3's closing report as an interval; the
 * metrics beside them never did, so reading an old summary through this shows the numbers a new
 * run states. A flow without metrics (a partial record) keeps what it has.
 */
export function withIntervalStatsFromMetrics<T extends Pick<RunSummary, 'flows' | 'metrics'>>(s: T): T {
  const byFlow = s.metrics?.flows;
  if (!Array.isArray(s.flows) || !Array.isArray(byFlow)) return s;
  return {
    ...s,
    flows: s.flows.map((f) => {
      const fm = byFlow.find((m) => m.flow === f.name);
      if (!fm) return f;
      const { mean, sd, stability } = intervalStats(fm);
      return { ...f, goodputMbps: { ...f.goodputMbps, mean, sd }, stability };
    }),
  };
}

/**
 * `cpuMHz`: the lab CPU's clock, for seed 000's MHz per Mbit/s. `fm`: the flow's run metrics, whose
 * interval statistics the summary repeats: computed once, over whole intervals inside the flow's
 * sending time (iperf3's receiver adds a last report of a fraction of a second after the sender
 * stops, which as one more interval alone gave steady flows a σ/μ of 0.15).
 */
export function summariseFlow(r: FlowResult, cpuMHz: number | null = null, fm?: FlowMetrics): FlowSummary {
  const { flow } = r;
  const sender = r.client?.end?.streams?.map((s) => s.sender).filter((s) => s !== undefined) ?? [];
  const rtts = sender.map((s) => s?.mean_rtt).filter((x): x is number => x !== undefined);
  const cwnds = r.intervals.map((s) => s.cwndBytes).filter((x): x is number => x !== null);
  const transfer = r.transfer ?? null;
  const wholeRun = transfer ? transfer.goodputBps : (r.client?.end?.sum_received?.bits_per_second ?? null);
  const retransmitted = r.client?.end?.sum_sent?.retransmits ?? null;
  const metrics: MetricValue[] = [];
  const stats = intervalStats(fm);
  const senderCpu = r.client?.end?.cpu_utilization_percent?.host_total;
  if (cpuMHz && senderCpu !== undefined && wholeRun && wholeRun > 0) {
    metrics.push(metricValue('cpu.mhz_per_mbps', ((senderCpu / 100) * cpuMHz) / (wholeRun / 1e6)));
  }
  return {
    name: flow.name,
    transport: flow.transport,
    stack: flow.stack,
    observedStacks: r.observedStacks,
    path: flow.path,
    direction: flow.direction,
    streams: flow.streams,
    startS: flow.startMs / 1000,
    dataStartS: r.dataStartS ?? null,
    durationS: flow.durationMs / 1000,
    // A transfer whose bytes are not provably the sender's fails, whatever the exit codes said.
    status:
      r.error || (transfer ? transfer.integrity !== 'ok' : !r.client || r.client.error) ? 'failed' : 'ok',
    error:
      r.error ??
      r.client?.error ??
      (transfer && transfer.integrity !== 'ok'
        ? transfer.integrity === 'mismatch'
          ? `integrity mismatch: receiver sha256 ${transfer.sha256.receiver} (${transfer.bytes.received} B), sender ${transfer.sha256.sender} (${transfer.bytes.sent} B)`
          : 'integrity unknown: a side reported no digest'
        : null),
    goodputMbps: { mean: stats.mean, sd: stats.sd, wholeRun: mbps(wholeRun) },
    stability: stats.stability,
    ...(flow.omitMs ? { omitS: flow.omitMs / 1000 } : {}),
    retransmits: retransmitted,
    rttMs: {
      mean: rtts.length ? rtts.reduce((a, b) => a + b, 0) / rtts.length / 1000 : null,
      min: sender.length
        ? Math.min(...sender.map((s) => s?.min_rtt ?? Number.POSITIVE_INFINITY)) / 1000
        : null,
      max: sender.length ? Math.max(...sender.map((s) => s?.max_rtt ?? 0)) / 1000 : null,
    },
    maxCwndBytes: cwnds.length ? Math.max(...cwnds) : null,
    cpuPercent: {
      sender: r.client?.end?.cpu_utilization_percent?.host_total ?? null,
      receiver: r.client?.end?.cpu_utilization_percent?.remote_total ?? null,
    },
    metrics,
    integrity: transfer?.integrity ?? null,
    transfer,
  };
}

/**
 * Utilisation of one bottleneck direction: bytes its flows delivered over the time any of them was
 * sending, against what the configured rate could carry in that time.
 */
export function utilisation(flows: FlowResult[], rateBps: number): number | null {
  // iperf3's receiver totals, or a transport receiver's bytes and time.
  const delivered = (f: FlowResult) =>
    f.transfer
      ? f.transfer.seconds !== null
        ? { bytes: f.transfer.bytes.received ?? 0, seconds: f.transfer.seconds }
        : null
      : (f.client?.end?.sum_received ?? null);
  const active = flows.flatMap((f) => {
    const d = delivered(f);
    return d ? [{ f, d }] : [];
  });
  if (active.length === 0) return null;
  const bytes = active.reduce((a, x) => a + x.d.bytes, 0);
  const began = (f: FlowResult) => f.dataStartS ?? f.flow.startMs / 1000;
  const start = Math.min(...active.map((x) => began(x.f)));
  const end = Math.max(...active.map((x) => began(x.f) + x.d.seconds));
  return end > start ? (bytes * 8) / (rateBps * (end - start)) : null;
}

export function summarise(args: {
  spec: Spec;
  paths: PathTopology[];
  results: FlowResult[];
  samples: Sample[];
  idleRtt: Record<string, PingSummary | null>;
  status: RunSummary['status'];
  error: string | null;
  fidelity: FidelityReport | null;
  cpuMHz?: number | null;
  clock?: RunClock | null;
}): RunSummary {
  const limits = flowLimits(
    args.spec,
    args.paths,
    args.results.map((r) => r.flow),
    args.samples,
    linkProofOf(args.fidelity),
  );
  const metrics = runMetrics(
    args.spec,
    args.paths,
    args.results.map((r) => r.flow),
    [...args.samples, ...args.results.flatMap((r) => r.intervals)],
  );
  const flows = args.results.map((r) => ({
    ...summariseFlow(
      r,
      args.cpuMHz ?? null,
      metrics.flows.find((f) => f.flow === r.flow.name),
    ),
    limitedBy: limits[r.flow.name] ?? null,
    ...(args.spec.wire
      ? { labSide: labSideOf({ name: r.flow.name, durationMs: r.flow.durationMs }, args.samples) }
      : {}),
  }));
  // A flow the lab held back makes the run suspect or invalid, whatever the link did.
  const fidelity = args.fidelity ? withLabLimits(args.fidelity, limits) : null;
  const paths = args.paths.map((p): PathSummary => {
    const path = args.spec.paths[p.name];
    if (!path) throw new Error(`path ${p.name} missing from the spec`);
    const group = (d: 'forward' | 'reverse') =>
      args.results.filter((r) => r.flow.path === p.name && r.flow.direction === d);
    const jain = (d: 'forward' | 'reverse') => {
      return bottleneckJain(
        flows.filter((f) => f.path === p.name && f.direction === d).map((f) => f.goodputMbps.wholeRun),
      );
    };
    const rtts = args.samples.filter(
      (x): x is RttSample => x.kind === 'rtt' && x.path === p.name && x.t >= 0,
    );
    return {
      name: p.name,
      loadedRtt: rtts.length
        ? {
            meanMs: rtts.reduce((a, x) => a + x.rttMs, 0) / rtts.length,
            maxMs: Math.max(...rtts.map((x) => x.rttMs)),
            samples: rtts.length,
          }
        : null,
      configured: {
        rttMs: path.rtt,
        rateMbps: path.rate / 1e6,
        reverseRateMbps: path.reverse.rate / 1e6,
        bufferPackets: p.bufferPackets,
        ber: path.ber,
      },
      idleRtt: args.idleRtt[p.name] ?? null,
      utilisation: {
        forward: utilisation(group('forward'), path.rate),
        reverse: utilisation(group('reverse'), path.reverse.rate),
      },
      jain: { forward: jain('forward'), reverse: jain('reverse') },
    };
  });
  return {
    name: args.spec.name,
    status: args.status,
    error: args.error,
    seed: args.spec.seed,
    verdict: fidelity?.verdict ?? null,
    fidelity,
    flows,
    paths,
    metrics,
    clock: args.clock ?? null,
  };
}
