// Shared by every claim kind: turning an interval and the claim's acceptance region into a verdict,
// the test record that goes with it, and the wording of "too few runs".

import { type BootstrapInterval, type SmallSampleInterval, studentTQuantile } from '@lfnlab/metrics';
import type { Estimate } from './estimate.js';
import { fmt, pct } from './fmt.js';
import { ciMethodText, MIN_RUNS, nText, type Verdict, type VerdictTest } from './verdict.js';

/** What a claim kind hands back; compare.ts adds the claim's id, kind, text and reference. */
export interface Judged {
  verdict: Verdict;
  /** For readers of older comparison.json: true holds, false fails, null inconclusive. */
  holds: boolean | null;
  sentence: string;
  test: VerdictTest;
  /** Share of the paper's pairs (or cells, or signs) our means agree with. */
  agreement?: number;
  /** Kendall's τ-b (orderings). */
  tau?: number | null;
}

/** Values a claim accepts: an interval, each end open or closed (±∞ for one-sided bounds). */
export interface Region {
  lo: number;
  hi: number;
  loOpen?: boolean;
  hiOpen?: boolean;
}

export const inside = (v: number, r: Region) =>
  (r.loOpen ? v > r.lo : v >= r.lo) && (r.hiOpen ? v < r.hi : v <= r.hi);

/** holds: the whole interval is accepted; fails: none of it is; inconclusive: it straddles an edge. */
export function decide(ci: Pick<BootstrapInterval, 'low' | 'high'>, r: Region): Verdict {
  if (inside(ci.low, r) && inside(ci.high, r)) return 'holds';
  const below = r.loOpen ? ci.high <= r.lo : ci.high < r.lo;
  const above = r.hiOpen ? ci.low >= r.hi : ci.low > r.hi;
  return below || above ? 'fails' : 'inconclusive';
}

export const opText = { '>': 'above', '>=': 'at least', '<': 'below', '<=': 'at most' } as const;
export type Op = keyof typeof opText;

export function opRegion(op: Op, bound: number): Region {
  const inf = Number.POSITIVE_INFINITY;
  if (op === '>') return { lo: bound, hi: inf, loOpen: true };
  if (op === '>=') return { lo: bound, hi: inf };
  if (op === '<') return { lo: -inf, hi: bound, hiOpen: true };
  return { lo: -inf, hi: bound };
}

export const passes = (v: number, op: Op, bound: number) => inside(v, opRegion(op, bound));

/** The test record: which test, and n over the items that were measured. */
export function testOf(
  name: string,
  items: readonly Estimate[],
  extra: Partial<VerdictTest> = {},
): VerdictTest {
  const measured = items.filter((e) => e.value !== null);
  const ns = measured.map((e) => e.n);
  const deterministic = measured.length > 0 && measured.every((e) => e.deterministic);
  // Items can share a variant (two flows of one run): each counts once.
  const variants = new Map(measured.flatMap((e) => e.variants.map((v) => [v.key, v.runs] as const)));
  return {
    name,
    n: ns.length ? Math.min(...ns) : 0,
    nMax: ns.length ? Math.max(...ns) : 0,
    items: items.length,
    measured: measured.length,
    ...(variants.size
      ? { variants: variants.size, runs: [...variants.values()].reduce((a, b) => a + b, 0) }
      : {}),
    ...(deterministic ? { deterministic } : {}),
    ...extra,
  };
}

export function judged(
  verdict: Verdict,
  sentence: string,
  test: VerdictTest,
  extra: Pick<Judged, 'agreement' | 'tau'> = {},
): Judged {
  return {
    verdict,
    holds: verdict === 'holds' ? true : verdict === 'fails' ? false : null,
    sentence,
    test: withRunsToDecide(test),
    ...extra,
  };
}

/**
 * A projection in repetitions priced in runs: every variant behind the finding brought up to that
 * many (an estimate where variants already differ in repetitions, as `reproduce.more` makes them).
 */
function withRunsToDecide(test: VerdictTest): VerdictTest {
  const n = test.repetitionsToDecide;
  if (typeof n !== 'number' || !test.variants || test.runs === undefined) return test;
  return { ...test, runsToDecide: Math.max(0, test.variants * n - test.runs) };
}

export const ciRecord = (ci: SmallSampleInterval): NonNullable<VerdictTest['ci']> => ({
  low: ci.low,
  high: ci.high,
  level: ci.level,
  resamples: ci.resamples,
  seed: ci.seed,
  ...(ci.paired ? { paired: true } : {}),
  bootstrap: ci.bootstrap,
  t: ci.t,
});

/** "95 % CI 0.31 to 0.42, paired by seed, t on 2 df". */
export const ciText = (ci: SmallSampleInterval) =>
  `${pct(ci.level)} CI ${fmt(ci.low)} to ${fmt(ci.high)}${ci.paired ? ', paired by seed' : ''}${ciMethodText(ciRecord(ci))}`;

/** Repetitions past which `repetitionsToDecide` gives up: a lab would not run that many. */
export const MAX_REPETITIONS = 100;

/**
 * For an interval that straddles an edge: the fewest repetitions at which its t interval would clear
 * the nearest edge, were the mean (`point`) and the spread to stay as measured. The jackknife error
 * of a mean shrinks as 1/√n and the t quantile with its degrees of freedom; the bootstrap is left out
 * (at that n it is no wider than t). null when no number up to MAX_REPETITIONS would, or nothing says.
 */
export function repetitionsToDecide(ci: SmallSampleInterval, point: number, r: Region): number | null {
  const t = ci.t;
  if (!t || !(t.se > 0) || !Number.isFinite(point)) return null;
  const gap = Math.min(...[r.lo, r.hi].filter(Number.isFinite).map((edge) => Math.abs(point - edge)));
  if (!(gap > 0) || !Number.isFinite(gap)) return null;
  const n0 = t.df + 1;
  const q = 1 - (1 - ci.level) / 2;
  for (let n = n0 + 1; n <= MAX_REPETITIONS; n++)
    if (studentTQuantile(q, n - 1) * t.se * Math.sqrt(n0 / n) < gap) return n;
  return null;
}

/**
 * "about 4 repetitions would decide it at this mean and spread", for an inconclusive sentence; a
 * share speaks of its units' means and spreads (deciding every undecided unit decides the share).
 */
export function repetitionsText(n: number | null, units = false): string {
  const at = units ? 'these means and spreads' : 'this mean and spread';
  return n === null
    ? `at ${at} not even ${MAX_REPETITIONS} repetitions would decide it`
    : `about ${n} repetitions would decide it at ${at}`;
}

/** A value's interval (`smallSampleCi`: the bootstrap, widened to the t interval at small n). */
export const CI_NAME = '95 % CI (bootstrap ∪ jackknife t)';

/** "holds", "does not hold" or "inconclusive", with why when it is inconclusive. */
export function verdictText(v: Verdict, why = 'the interval straddles the bound'): string {
  return v === 'holds' ? 'holds' : v === 'fails' ? 'does not hold' : `inconclusive (${why})`;
}

/**
 * "2 of 6 cells have fewer than 3 runs (n = 1–2)", and why: runs not made yet (a test needs more),
 * or made and fidelity invalid (the lab could not carry them, so more of the same would not help).
 * `decides`: false where the sentence goes on to decide without those cells.
 */
export function underRunText(few: readonly Estimate[], of: number, what = 'cell', decides = true): string {
  const t = { n: Math.min(...few.map((e) => e.n)), nMax: Math.max(...few.map((e) => e.n)) };
  const which = of === 1 ? `this ${what} has` : `${few.length} of ${of} ${what}s have`;
  const notMade = few.some((e) => e.tried < MIN_RUNS);
  const why = notMade ? '' : ' though every repetition ran (the rest fidelity invalid)';
  const end = !decides
    ? ''
    : notMade
      ? `; a test needs ${MIN_RUNS} or more to decide`
      : '; the lab could not carry them, so a test cannot decide';
  return `${which} fewer than ${MIN_RUNS} runs (${nText(t)})${why}${end}`;
}
