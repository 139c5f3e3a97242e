// The jackknife standard error of a statistic over grouped samples, with the degrees of freedom a
// t interval on it should use. Groups and blocks mean what they mean to the bootstrap
// (bootstrap.ts): when every group holds the same blocks once each, whole blocks are left out
// (one repetition's runs in every cell together); otherwise each group's samples are left out one
// at a time and the groups' variances add.

import { alignedBlocks } from './bootstrap.js';
import { stdDev } from './stats.js';

export interface JackknifeError {
  /** The statistic on the samples as given. */
  estimate: number;
  se: number;
  /** Blocks − 1 when blocks were left out; else Welch–Satterthwaite over the groups. */
  df: number;
  paired: boolean;
}

/** (m − 1)/m · Σ (θᵢ − θ̄)² = (m − 1) · population variance: the jackknife variance of m leave-one-out values. */
const spread = (values: readonly number[]) => (values.length - 1) * stdDev(values) ** 2;

const without = <T>(g: readonly T[], i: number): T[] => g.filter((_, j) => j !== i);

/**
 * Null when the jackknife cannot say: a group with fewer than 2 samples (or fewer than 2 blocks),
 * or a statistic that is not finite on the samples or on any leave-one-out set (a ratio over zero,
 * "never happened" counted as infinitely late).
 */
export function jackknifeError<T>(
  groups: readonly (readonly T[])[],
  statistic: (groups: readonly (readonly T[])[]) => number,
  blocks?: readonly (readonly (number | string)[])[],
): JackknifeError | null {
  if (groups.length === 0) return null;
  const estimate = statistic(groups);
  if (!Number.isFinite(estimate)) return null;
  const aligned = alignedBlocks(groups, blocks);
  if (aligned) {
    const count = aligned[0]?.length ?? 0;
    if (count < 2) return null;
    const values: number[] = [];
    for (let b = 0; b < count; b++) {
      const v = statistic(groups.map((g, i) => without(g, (aligned[i] as number[])[b] as number)));
      if (!Number.isFinite(v)) return null;
      values.push(v);
    }
    return { estimate, se: Math.sqrt(spread(values)), df: count - 1, paired: true };
  }
  if (groups.some((g) => g.length < 2)) return null;
  const variances: number[] = [];
  for (const [h, g] of groups.entries()) {
    const values: number[] = [];
    for (let i = 0; i < g.length; i++) {
      const v = statistic(groups.map((other, k) => (k === h ? without(other, i) : other)));
      if (!Number.isFinite(v)) return null;
      values.push(v);
    }
    variances.push(spread(values));
  }
  const total = variances.reduce((s, v) => s + v, 0);
  const denominator = variances.reduce((s, v, h) => s + v ** 2 / ((groups[h]?.length ?? 2) - 1), 0);
  const fewest = Math.min(...groups.map((g) => g.length)) - 1;
  // With no spread anywhere df does not matter; say the fewest group's.
  const df = denominator > 0 ? total ** 2 / denominator : fewest;
  return { estimate, se: Math.sqrt(total), df, paired: false };
}
