// Judging, apart from running: measured runs and bounds in, one verdict per condition × stack out.
// Pure functions. A cell passes only when every run is complete with a valid fidelity verdict, every
// bounded metric was measured in every run, and each metric's mean over the runs is within its
// bound. Anything the lab cannot vouch for is an error, never a pass.
import { fastMean, type MetricUnit, seedFromText, smallSampleCi } from '@lfnlab/metrics';
import type { RunMeasurement } from './measure.js';
import { formatRange, formatValue, metricTitle, metricUnit, type QualifyMetric } from './metrics.js';
import type { ResolvedBound } from './suite.js';

export interface MetricJudgement {
  metric: QualifyMetric;
  unit: string;
  min?: number;
  max?: number;
  /** Mean over the runs; null when a run lacked the metric. */
  mean: number | null;
  n: number;
  /** 95 % interval of the mean (`meanInterval`); null for n < 2. */
  ci: { low: number; high: number } | null;
  pass: boolean | null;
  message: string;
}

export type Outcome = 'pass' | 'failure' | 'error';

export interface CaseResult {
  condition: string;
  stack: string;
  outcome: Outcome;
  /** The failure's or error's message (one line per problem, joined by '; '); '' for a pass. */
  message: string;
  metrics: MetricJudgement[];
  runs: { id: string; status: string; verdict: string | null; reasons: string[] }[];
  /** Lab seconds of the cell's runs. */
  seconds: number;
}

const boundText = (b: ResolvedBound) =>
  [
    b.min !== undefined ? `min ${formatValue(b.metric, b.min)}` : null,
    b.max !== undefined ? `max ${formatValue(b.metric, b.max)}` : null,
  ]
    .filter(Boolean)
    .join(', ');

/** "goodput share 0.62 < min 0.80 (n=3, 95 % CI 0.58–0.66)". */
function describe(
  m: QualifyMetric,
  mean: number,
  n: number,
  ci: MetricJudgement['ci'],
  b: ResolvedBound,
): string {
  const name = metricTitle(m).toLowerCase();
  const stats = `n=${n}${ci ? `, 95 % CI ${formatRange(m, ci.low, ci.high)}` : ''}`;
  if (b.min !== undefined && mean < b.min)
    return `${name} ${formatValue(m, mean)} < min ${formatValue(m, b.min)} (${stats})`;
  if (b.max !== undefined && mean > b.max)
    return `${name} ${formatValue(m, mean)} > max ${formatValue(m, b.max)} (${stats})`;
  return `${name} ${formatValue(m, mean)} within ${boundText(b)} (${stats})`;
}

/**
 * The 95 % interval of a mean over runs (`smallSampleCi`: the percentile bootstrap, seeded from the
 * cell and metric, widened to the t interval where that is wider, as it is at a few runs).
 */
export function meanInterval(
  values: number[],
  seedText: string,
  unit?: MetricUnit,
): { low: number; high: number } | null {
  if (values.length < 2) return null;
  // Every unit but a ratio (an asymmetry may be negative) counts something that cannot be below 0.
  const bounds = unit && unit !== 'ratio' ? ([0, Number.POSITIVE_INFINITY] as const) : undefined;
  const ci = smallSampleCi([values], (g) => fastMean(g[0] as number[]), {
    seed: seedFromText(seedText),
    ...(bounds ? { bounds } : {}),
  });
  return ci ? { low: ci.low, high: ci.high } : null;
}

export function judgeCase(
  condition: string,
  stack: string,
  runs: readonly RunMeasurement[],
  bounds: readonly ResolvedBound[],
): CaseResult {
  const errors: string[] = [];
  const failures: string[] = [];
  if (runs.length === 0) errors.push('no runs');
  for (const r of runs) {
    if (r.status !== 'completed')
      errors.push(`run ${r.id} ${r.status}${r.reasons[0] ? `: ${r.reasons[0]}` : ''}`);
    else if (r.verdict !== 'valid')
      errors.push(
        `run ${r.id} verdict ${r.verdict ?? 'unknown'}${r.reasons.length ? `: ${r.reasons.join('; ')}` : ''}`,
      );
  }
  const usable = errors.length === 0;
  const metrics = bounds.map((b): MetricJudgement => {
    const values = runs.map((r) => r.metrics[b.metric]);
    const lacking = runs.filter((r) => r.metrics[b.metric] === undefined);
    const base = {
      metric: b.metric,
      unit: metricUnit(b.metric),
      ...(b.min === undefined ? {} : { min: b.min }),
      ...(b.max === undefined ? {} : { max: b.max }),
    };
    if (lacking.length || runs.length === 0) {
      const msg = `${metricTitle(b.metric).toLowerCase()} not measured in run${lacking.length === 1 ? '' : 's'} ${lacking.map((r) => r.id).join(', ')}`;
      if (usable) errors.push(msg);
      return { ...base, mean: null, n: runs.length - lacking.length, ci: null, pass: null, message: msg };
    }
    const xs = values as number[];
    const mean = fastMean(xs);
    const ci = meanInterval(xs, `${condition}/${stack}/${b.metric}`, metricUnit(b.metric));
    const pass = (b.min === undefined || mean >= b.min) && (b.max === undefined || mean <= b.max);
    const message = describe(b.metric, mean, xs.length, ci, b);
    // Values of runs the lab cannot vouch for are shown, never judged.
    if (!pass && usable) failures.push(message);
    return { ...base, mean, n: xs.length, ci, pass: usable ? pass : null, message };
  });
  const outcome: Outcome = errors.length ? 'error' : failures.length ? 'failure' : 'pass';
  return {
    condition,
    stack,
    outcome,
    // An error's message names what made it one first, then any bound the usable values missed.
    message: [...errors, ...failures].join('; '),
    metrics,
    runs: runs.map((r) => ({ id: r.id, status: r.status, verdict: r.verdict, reasons: r.reasons })),
    seconds: runs.reduce((a, r) => a + r.seconds, 0),
  };
}

export interface SuiteResult {
  suite: string;
  description?: string;
  /** fake or the lab's name. */
  lab: string;
  imageId: string | null;
  kernel: string | null;
  seed: number;
  repetitions: number;
  seconds: number | null;
  conditions: string[];
  stacks: string[];
  cases: CaseResult[];
  counts: { tests: number; passed: number; failures: number; errors: number };
}

/** Every condition × stack judged, in the suite's order. */
export function judgeSuite(o: {
  conditions: readonly string[];
  stacks: readonly string[];
  runs: readonly RunMeasurement[];
  bounds: (condition: string) => ResolvedBound[];
}): { cases: CaseResult[]; counts: SuiteResult['counts'] } {
  const cases = o.conditions.flatMap((c) =>
    o.stacks.map((s) =>
      judgeCase(
        c,
        s,
        o.runs.filter((r) => r.condition === c && r.stack === s),
        o.bounds(c),
      ),
    ),
  );
  const count = (x: Outcome) => cases.filter((k) => k.outcome === x).length;
  return {
    cases,
    counts: {
      tests: cases.length,
      passed: count('pass'),
      failures: count('failure'),
      errors: count('error'),
    },
  };
}

/** 0 when every case passed, 1 otherwise (the CLI's exit code). */
export const exitCodeOf = (counts: SuiteResult['counts']) => (counts.failures + counts.errors > 0 ? 1 : 0);
