// One finished run of a suite, read back as what judging needs: its status and fidelity verdict,
// and the value of every qualification metric for the flow under test. Every value comes from a
// function of @lfnlab/metrics (or the run's own metric pipeline, runMetrics); nothing is computed
// here but the plumbing from run files to those functions.
import { join } from 'node:path';
import { buildPlan, type FlowTopology, type Spec } from '@lfnlab/emulator';
import {
  goodputShare,
  MetricInputError,
  rttInflation,
  type Series,
  series,
  timeToLinkShare,
  windowRecoveries,
  windowReductionFactor,
} from '@lfnlab/metrics';
import { type EnvironmentFile, type RunSummaryFile, readJson, readRunSummary } from '../report/load.js';
import { readSamples } from '../run/readSamples.js';
import { goodputSeries, runMetrics } from '../run/runMetrics.js';
import { type RttSample, type Sample, tcpSamplesOf } from '../run/samples.js';
import type { QualifyMetric } from './metrics.js';

export interface RunMeasurement {
  /** The run directory's name (the campaign variant id). */
  id: string;
  condition: string;
  stack: string;
  repetition: number;
  status: 'completed' | 'failed' | 'aborted' | 'missing';
  verdict: 'valid' | 'suspect' | 'invalid' | null;
  /** Why the verdict (or the error of a run that did not complete). */
  reasons: string[];
  /** Lab seconds the run's traffic took (its spec's duration); 0 when it did not run. */
  seconds: number;
  /** Each metric's value; absent when the run could not give it. */
  metrics: Partial<Record<QualifyMetric, number>>;
}

const finite = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

/** A metric call whose input cannot be right for this run counts as "not measured". */
function attempt(f: () => number): number | undefined {
  try {
    const v = f();
    return Number.isFinite(v) ? v : undefined;
  } catch (err) {
    if (err instanceof MetricInputError) return undefined;
    throw err;
  }
}

/** Samples as a series: one value per instant (the last), in time order, at least two points. */
function stepSeries(points: { t: number; v: number }[]): Series | null {
  const byT = new Map<number, number>();
  for (const p of points) if (Number.isFinite(p.t) && Number.isFinite(p.v)) byT.set(p.t, p.v);
  const ts = [...byT.keys()].sort((a, b) => a - b);
  return ts.length >= 2
    ? series(
        ts,
        ts.map((t) => byT.get(t) as number),
      )
    : null;
}

/** The topology flow of the spec flow under test (its first instance when it repeats). */
export function subjectFlow(spec: Spec, flows: FlowTopology[], subjectIndex: number): FlowTopology | null {
  const name = spec.flows[subjectIndex]?.name;
  if (name === undefined) return null;
  return flows.find((f) => f.name === name) ?? flows.find((f) => f.name.startsWith(`${name}-`)) ?? null;
}

/** The qualification metrics of one run from its files (spec, summary, samples). */
export function measureMetrics(
  spec: Spec,
  summary: RunSummaryFile,
  samples: Sample[],
  subjectIndex: number,
): Partial<Record<QualifyMetric, number>> {
  const plan = buildPlan(spec);
  const flow = subjectFlow(spec, plan.topology.flows, subjectIndex);
  if (!flow) return {};
  const path = spec.paths[flow.path];
  const out: Partial<Record<QualifyMetric, number>> = {};
  const set = (m: QualifyMetric, v: number | undefined) => {
    if (v !== undefined) out[m] = v;
  };
  const capacity = flow.direction === 'forward' ? path?.rate : path?.reverse.rate;
  const fs = summary.flows.find((f) => f.name === flow.name);
  if (capacity && finite(fs?.goodputMbps.wholeRun)) {
    const wholeRun = fs.goodputMbps.wholeRun;
    set(
      'goodput_share',
      attempt(() => goodputShare(wholeRun * 1e6, capacity)),
    );
  }
  const ps = summary.paths.find((p) => p.name === flow.path);
  const jain = flow.direction === 'forward' ? ps?.jain.forward : ps?.jain.reverse;
  if (finite(jain)) out.jain = jain;
  const idle = ps?.idleRtt?.avgMs;
  const loaded = samples
    .filter((s): s is RttSample => s.kind === 'rtt' && s.path === flow.path && s.t >= 0)
    .map((s) => s.rttMs);
  if (finite(idle) && loaded.length)
    set(
      'rtt_inflation',
      attempt(() => rttInflation(loaded, idle)),
    );
  // Recovery time as the run's own pipeline defines it (median over losses after slow start).
  const fm = runMetrics(spec, plan.topology.paths, plan.topology.flows, samples).flows.find(
    (f) => f.flow === flow.name,
  );
  const recovery = fm?.metrics.find((m) => m.id === 'recovery.time')?.value;
  if (finite(recovery)) out.recovery_time = recovery;
  const cwnd = stepSeries(tcpSamplesOf(samples, flow.name).map((s) => ({ t: s.t, v: s.cwndPackets })));
  // The first reduction is slow start's exit, not a loss response.
  if (cwnd)
    set(
      'loss_response',
      attempt(() => windowReductionFactor(windowRecoveries(cwnd).slice(1))),
    );
  const goodput = goodputSeries(flow, samples);
  if (goodput && capacity)
    set(
      'time_to_90',
      attempt(() => timeToLinkShare(goodput, capacity, { startS: flow.startMs / 1000 })),
    );
  return out;
}

/** One run directory read back; a run that never wrote its summary is 'missing'. */
export function measureRun(
  dir: string,
  v: { id: string; condition: string; stack: string; repetition: number; subjectIndex: number },
): RunMeasurement {
  const base = { id: v.id, condition: v.condition, stack: v.stack, repetition: v.repetition };
  const summary = readRunSummary(dir);
  const spec = readJson<Spec>(join(dir, 'spec.json'));
  if (!summary)
    return {
      ...base,
      status: 'missing',
      verdict: null,
      reasons: ['the run has no summary (it did not run or was cut short)'],
      seconds: 0,
      metrics: {},
    };
  const reasons =
    summary.status !== 'completed' ? [summary.error ?? summary.status] : (summary.fidelity?.reasons ?? []);
  // A summary without its spec cannot be measured: the run's record is incomplete, so it is an error.
  if (!spec)
    return {
      ...base,
      status: 'failed',
      verdict: summary.verdict ?? null,
      reasons: ['spec.json is missing', ...reasons],
      seconds: 0,
      metrics: {},
    };
  return {
    ...base,
    status: summary.status,
    verdict: summary.verdict ?? null,
    reasons,
    seconds: spec.duration / 1000,
    metrics:
      summary.status === 'completed' ? measureMetrics(spec, summary, readSamples(dir), v.subjectIndex) : {},
  };
}

/** What the suite's JUnit properties say about where it ran: image id and kernel of the first run that says. */
export function labFacts(dirs: string[]): { imageId: string | null; kernel: string | null } {
  for (const d of dirs) {
    const env = readJson<EnvironmentFile & { agent?: { kernel?: string } }>(join(d, 'environment.json'));
    if (!env) continue;
    return {
      imageId: env.image?.id ?? env.lab?.imageId ?? null,
      // The running kernel as the lab's agent reported it (uname -r), else what the image says it holds.
      kernel: env.agent?.kernel ?? env.image?.kernel?.version ?? null,
    };
  }
  return { imageId: null, kernel: null };
}
