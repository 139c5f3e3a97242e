// How a finding is decided, as comparison.json, the HTML report, the CLI and the web app carry it.
// Browser-safe (no imports): the web app reads these types from source.

/** holds / fails: the test decided; inconclusive: too few runs, or the test could not tell. */
export type Verdict = 'holds' | 'fails' | 'inconclusive';

/** The test behind a verdict, with what it found. */
export interface VerdictTest {
  /** e.g. "bootstrap 95 % CI of the mean" or "Kendall τ-b, one-sided". */
  name: string;
  /**
   * Percentile bootstrap interval of the judged statistic, when one was computed; `paired` when
   * its replicates drew whole repetitions (every cell's run of the same seed together).
   */
  ci?: { low: number; high: number; level: number; resamples: number; seed: number; paired?: boolean } | null;
  /** Kendall's τ-b and its one-sided p-value (towards the paper's order), for orderings. */
  tau?: number | null;
  p?: number | null;
  pMethod?: 'exact' | 'normal';
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
}

/** Runs per cell a bootstrap or rank test needs before it may decide (fewer: inconclusive). */
export const MIN_RUNS = 3;
/** One-sided significance level of the ordering test. */
export const ALPHA = 0.05;

/** "n = 5" or "n = 3–5 per cell". */
export function nText(t: Pick<VerdictTest, 'n' | 'nMax'>): string {
  return t.n === t.nMax ? `n = ${t.n}` : `n = ${t.n}–${t.nMax}`;
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
