// Summary statistics for Compare's Flent-style charts: quantiles for box plots, an empirical CDF,
// and a relative difference against a baseline run.

/** The q-quantile (0..1) of sorted values, by linear interpolation (NumPy's default). */
export function quantile(sorted: readonly number[], q: number): number {
  if (!sorted.length) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  return a + ((sorted[hi] as number) - a) * (pos - lo);
}

export interface BoxStats {
  min: number;
  q1: number;
  median: number;
  q3: number;
  max: number;
  mean: number;
  n: number;
}

export function boxStats(values: readonly number[]): BoxStats | null {
  const s = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return null;
  return {
    min: s[0] as number,
    q1: quantile(s, 0.25),
    median: quantile(s, 0.5),
    q3: quantile(s, 0.75),
    max: s[s.length - 1] as number,
    mean: s.reduce((a, b) => a + b, 0) / s.length,
    n: s.length,
  };
}

/** Points of the empirical CDF, thinned to at most `maxPoints` (value, fraction ≤ value). */
export function cdf(values: readonly number[], maxPoints = 200): { v: number; p: number }[] {
  const s = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return [];
  const step = Math.max(1, Math.ceil(s.length / maxPoints));
  const out: { v: number; p: number }[] = [];
  for (let i = 0; i < s.length; i += step) out.push({ v: s[i] as number, p: (i + 1) / s.length });
  const last = s.length - 1;
  if ((out[out.length - 1]?.p ?? 0) < 1) out.push({ v: s[last] as number, p: 1 });
  return out;
}

/** (value − baseline) / baseline, or null when there is no baseline to divide by. */
export function relativeDelta(
  value: number | null | undefined,
  baseline: number | null | undefined,
): number | null {
  if (
    value == null ||
    baseline == null ||
    !Number.isFinite(value) ||
    !Number.isFinite(baseline) ||
    baseline === 0
  )
    return null;
  return (value - baseline) / Math.abs(baseline);
}
