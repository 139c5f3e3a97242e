// What the verdict is computed from, in one place: a finished run (runResults.ts) and a run read
// back from its directory (rejudge.ts) build the fidelity checks' input the same way, so a record
// judged again gives the verdict the run gave when nothing in the checks changed.
import type { PktTimingWindow, Plan, Spec } from '@lfnlab/emulator';
import type { SamplerCounters } from './demux.js';
import type { FidelityInput } from './fidelity.js';
import type { Snapshot } from './labSetup.js';
import type { PingSummary } from './probes.js';
import type { CpuSample, QueueSample, Sample, TcpFlowSample } from './samples.js';
import { plannedEndS } from './schedule.js';
import { type DirectionTiming, timingStats } from './timingChecks.js';

export interface VerdictFacts {
  spec: Spec;
  plan: Plan;
  samples: readonly Sample[];
  /** The lab's CLOCK_REALTIME at traffic start, ms; null when traffic never started. */
  t0RealMs: number | null;
  before: Snapshot;
  after: Snapshot;
  idleRtt: Record<string, PingSummary | null>;
  counters: SamplerCounters[];
  dataStarts: ReadonlyMap<string, number>;
  /** Each cross-traffic source's generator output (null: none); absent for records that lack it. */
  crossReports?: Record<string, string | null>;
}

/** The packet-timing capture's window length, s, as the plan asked for it. */
export function timingWindowS(plan: Plan): number | null {
  const sampler = plan.samplers.find((s) => s.kind === 'timing');
  if (!sampler) return null;
  return Number(sampler.argv[sampler.argv.indexOf('--window-ms') + 1] ?? 1000) / 1000;
}

/** The packet timing per path and direction over the traffic phase (empty before traffic started). */
export function runTiming(
  spec: Spec,
  plan: Plan,
  windows: readonly PktTimingWindow[],
  t0RealMs: number | null,
): DirectionTiming[] {
  return t0RealMs === null
    ? []
    : timingStats(spec, [...windows], t0RealMs, plannedEndS(plan), timingWindowS(plan) ?? 1);
}

export function verdictInput(f: VerdictFacts, timing: DirectionTiming[]): FidelityInput {
  const of = <K extends Sample['kind']>(kind: K) =>
    f.samples.filter((s): s is Extract<Sample, { kind: K }> => s.kind === kind);
  return {
    spec: f.spec,
    paths: f.plan.topology.paths,
    idleRtt: f.idleRtt,
    qdiscBefore: f.before.qdiscs,
    qdiscAfter: f.after.qdiscs,
    linksBefore: f.before.links,
    linksAfter: f.after.links,
    queue: of('queue') as QueueSample[],
    cpu: of('cpu') as CpuSample[],
    samplers: f.counters,
    trafficS: [0, plannedEndS(f.plan)],
    flows: f.plan.topology.flows,
    tcp: of('tcp') as TcpFlowSample[],
    timing,
    dataStarts: f.dataStarts,
    stackParamsInForce: [f.before.stackParams, f.after.stackParams],
    ...(f.before.routes ? { routes: f.before.routes } : {}),
    tcpCounters: [f.before.tcpCounters, f.after.tcpCounters],
    ...(f.crossReports ? { crossReports: f.crossReports } : {}),
  };
}
