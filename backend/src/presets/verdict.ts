// How a finding is decided, as comparison.json, the HTML report, the CLI and the web app carry it.
// Browser-safe (no imports): the web app reads these types from source.

/** holds / fails: the test decided; inconclusive: too few runs, or the test could not tell. */
export type Verdict = 'holds' | 'fails' | 'inconclusive';

/** The test behind a verdict, with what it found. */
export interface VerdictTest {
  /** e.g. "bootstrap 95 % CI of the mean" or "Kendall τ-b, one-sided". */
  name: string;
  /**
   * The interval of the judged statistic, when one was computed: the wider of the seeded
   * percentile bootstrap (`bootstrap`, its own ends) and a Student t interval on the jackknife
   * error (`t`, absent where the jackknife could not say); `paired` when both drew or left out
   * whole repetitions (every cell's run of the same seed together).
   */
  ci?: {
    low: number;
    high: number;
    level: number;
    resamples: number;
    seed: number;
    paired?: boolean;
    bootstrap?: { low: number; high: number };
    t?: { low: number; high: number; se: number; df: number } | null;
    /**
     * For a share judged unit by unit (`decidedShare.ts`): the units (pairs, signs, cells) and how
     * many of them their own interval left undecided; low and high are the share's range.
     */
    units?: number;
    undecided?: number;
  } | null;
  /** Kendall's τ-b and its one-sided p-value (towards the paper's order), for orderings. */
  tau?: number | null;
  p?: number | null;
  pMethod?: 'exact' | 'normal';
  /** What S's variance was multiplied by because values shared a run (absent: every value its own). */
  designEffect?: number;
  /**
   * An interval that straddled an edge: the repetitions at which it would likely clear it, were the
   * mean and spread to stay as measured (null: not within 100). Absent for decided findings.
   */
  repetitionsToDecide?: number | null;
  /** With a number in repetitionsToDecide: the runs that would add, every variant brought up to it. */
  runsToDecide?: number;
  /** Variants (campaign cells: part and parameters) behind the measured items, and their runs. */
  variants?: number;
  runs?: number;
  /** Significance level the p-value is held against. */
  alpha?: number;
  /** Runs behind each judged item: the fewest and the most (0 when nothing was measured). */
  n: number;
  nMax: number;
  /** Items (cells) the finding judges, and of those, how many had runs. */
  items: number;
  measured: number;
  /** The claim needs no repetitions (a closed-form value), so n = 1 decides it. */
  deterministic?: boolean;
  /**
   * Variants left out of the items that average over several (a path over every stack): each ran
   * all its repetitions, yet fewer than MIN_RUNS were usable (fidelity invalid), so the lab could
   * not carry it. `label`: part and parameters in words; `usable` of `tried` runs.
   */
  leftOut?: { label: string; usable: number; tried: number }[];
}

/**
 * ", t on 2 df" when the t interval set an end of the CI (small n), "" when the bootstrap's did.
 * JSON carries an unbounded end as null.
 */
export function ciMethodText(ci: Pick<NonNullable<VerdictTest['ci']>, 't' | 'bootstrap'>): string {
  const { t, bootstrap } = ci;
  if (!t || !bootstrap) return '';
  // Beyond rounding: a t interval of no width can differ from the bootstrap's in the last digit.
  // JSON carries an unbounded bootstrap end as null, which no t interval passes.
  const beyond = (a: number, b: number | null, side: 1 | -1) =>
    b !== null && side * (a - b) > 1e-9 * Math.max(1, Math.abs(b));
  if (!beyond(t.low, bootstrap.low, -1) && !beyond(t.high, bootstrap.high, 1)) return '';
  const df = Number.isInteger(t.df) ? String(t.df) : t.df.toFixed(1);
  return `, t on ${df} df`;
}

/** Runs per cell a bootstrap or rank test needs before it may decide (fewer: inconclusive). */
export const MIN_RUNS = 3;
/** One-sided significance level of the ordering test. */
export const ALPHA = 0.05;

/** "n = 5" or "n = 3–5 per cell". */
export function nText(t: Pick<VerdictTest, 'n' | 'nMax'>): string {
  return t.n === t.nMax ? `n = ${t.n}` : `n = ${t.n}–${t.nMax}`;
}

/** "12 variants, 36 runs": what a finding stands on; "" for records written before it was kept. */
export function basisText(t: Pick<VerdictTest, 'variants' | 'runs'>): string {
  if (!t.variants || t.runs === undefined) return '';
  return `${t.variants} variant${t.variants > 1 ? 's' : ''}, ${t.runs} run${t.runs === 1 ? '' : 's'}`;
}

/** "about 144 more runs would decide it", from the projection in repetitions; "" when there is none. */
export function runsToDecideText(t: Pick<VerdictTest, 'runsToDecide'>): string {
  const more = t.runsToDecide;
  return more ? `about ${more} more run${more > 1 ? 's' : ''} would decide it` : '';
}

/** A test's p-value as a phrase: "p = 0.023" (two significant digits), "p < 0.001" below that. */
export function pText(p: number): string {
  return p < 0.001 ? 'p < 0.001' : `p = ${Number(p.toPrecision(2))}`;
}

/** Old comparison.json files carry only `holds`: true, false or null (not measured). */
export function verdictOf(f: { verdict?: Verdict; holds?: boolean | null }): Verdict {
  if (f.verdict) return f.verdict;
  return f.holds === true ? 'holds' : f.holds === false ? 'fails' : 'inconclusive';
}
