// Plain descriptive statistics over a list of numbers (interval throughputs, RTT samples).

import { requireFinite, requireInRange, requireNonEmpty } from './guard.js';

export interface MeanSd {
  mean: number;
  /** Population standard deviation (divides by n), see stdDev. */
  sd: number;
  count: number;
}

export function mean(values: readonly number[]): number {
  requireNonEmpty(values, 'values');
  let sum = 0;
  values.forEach((v, i) => {
    sum += requireFinite(v, `values[${i}]`);
  });
  return sum / values.length;
}

/**
 * Population standard deviation (divide by n). The intervals of a run are the whole population we
 * describe, not a sample of a larger one; pass `{ sample: true }` for the n-1 form when comparing
 * with tools that use it. A single value has σ = 0 (population) or NaN (sample: undefined).
 */
export function stdDev(values: readonly number[], { sample = false } = {}): number {
  const m = mean(values);
  const n = values.length;
  if (sample && n < 2) return Number.NaN;
  let squares = 0;
  for (const v of values) squares += (v - m) ** 2;
  return Math.sqrt(squares / (sample ? n - 1 : n));
}

export function meanAndSd(values: readonly number[], options: { sample?: boolean } = {}): MeanSd {
  return { mean: mean(values), sd: stdDev(values, options), count: values.length };
}

/**
 * The q-quantile (0 ≤ q ≤ 1) of values already sorted ascending, interpolating linearly between
 * neighbours (the "type 7" rule of R and NumPy's default). ±∞ entries are allowed: a quantile that
 * falls on one is that infinity.
 */
export function quantileSorted(sorted: readonly number[], q: number): number {
  requireNonEmpty(sorted, 'sorted');
  requireInRange(q, 'q', 0, 1);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const a = sorted[lo] as number;
  const b = sorted[Math.ceil(pos)] as number;
  // Interpolating towards or between infinities would give NaN (∞ − ∞): the nearer end decides.
  if (a === b || !Number.isFinite(a) || !Number.isFinite(b)) return pos - lo < 0.5 ? a : b;
  return a + (b - a) * (pos - lo);
}
