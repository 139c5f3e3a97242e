// Percentile bootstrap confidence intervals with a seeded generator: the same samples, statistic
// and seed always give the same interval, so a published verdict can be recomputed exactly.
//
// Samples come in groups (strata), e.g. the runs of each cell a finding compares. A replicate
// resamples every group on its own, with replacement and at its own size, and evaluates the
// statistic on the resampled groups; groups never mix, so a difference of two cells keeps one
// cell's runs apart from the other's.
//
// When every group holds one sample per block (the runs of one repetition share its seed: the same
// cross traffic, the same bit errors, for every cell), a replicate draws blocks instead and takes
// each group's sample of every drawn block. Whatever the seed does to all cells alike then moves
// them together, and a difference or an order of cells is not blurred by it.

import { fail, requireInRange, requireNonEmpty } from './guard.js';
import { quantileSorted } from './stats.js';

/**
 * mulberry32: a small 32-bit generator, uniform on [0, 1). Not for cryptography; chosen because it
 * is fast, seedable and gives the same sequence on every JavaScript engine.
 */
export function seededUniform(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit seed from a text (a finding's id), so each finding has a stable seed of its own. */
export function seedFromText(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

export interface BootstrapOptions {
  /** Replicates to draw; 10 000 keeps the 2.5 % and 97.5 % quantiles stable to about ±1 %. */
  resamples?: number;
  /** Confidence level in (0, 1). */
  level?: number;
  seed?: number;
  /**
   * Per group, the block of each sample (parallel to the group). Used when every group holds each
   * of the same blocks exactly once; otherwise the groups are resampled on their own.
   */
  blocks?: readonly (readonly (number | string)[])[];
}

export interface BootstrapInterval {
  /** The statistic on the samples as given. */
  estimate: number;
  low: number;
  high: number;
  level: number;
  resamples: number;
  seed: number;
  /** Replicates where the statistic existed (not NaN); the interval is read from these. */
  valid: number;
  /** Whether replicates drew whole blocks (more than one group, aligned by block). */
  paired: boolean;
}

/**
 * For each group, the index of each block's sample, in one block order shared by every group;
 * null unless every group holds the same blocks once each.
 */
export function alignedBlocks(
  groups: readonly (readonly unknown[])[],
  blocks: readonly (readonly (number | string)[])[] | undefined,
): number[][] | null {
  if (!blocks || blocks.length !== groups.length || groups.length < 2) return null;
  const order = [...new Set(blocks[0] ?? [])].sort();
  const out: number[][] = [];
  for (const [i, b] of blocks.entries()) {
    if (b.length !== groups[i]?.length || b.length !== order.length) return null;
    const at = new Map(b.map((k, j) => [k, j]));
    if (at.size !== b.length) return null;
    const row: number[] = [];
    for (const k of order) {
      const j = at.get(k);
      if (j === undefined) return null;
      row.push(j);
    }
    out.push(row);
  }
  return out;
}

export const BOOTSTRAP_DEFAULTS = { resamples: 10_000, level: 0.95, seed: 1 } as const;

/**
 * The percentile interval of `statistic` over stratified bootstrap replicates of `groups`.
 * The statistic returns NaN where it does not exist (a ratio over zero); such replicates are
 * dropped. Returns null when the statistic does not exist on the samples themselves, or in fewer
 * than half the replicates (the interval would describe a different quantity). Values may be ±∞
 * ("never happened" counted as infinitely late), not NaN.
 */
export function bootstrapCi<T>(
  groups: readonly (readonly T[])[],
  statistic: (groups: readonly (readonly T[])[]) => number,
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  const { resamples, level, seed } = { ...BOOTSTRAP_DEFAULTS, ...options };
  requireNonEmpty(groups, 'groups');
  groups.forEach((g, i) => {
    requireNonEmpty(g, `groups[${i}]`);
  });
  requireInRange(level, 'level', 0, 1, { lowOpen: true, highOpen: true });
  if (!Number.isInteger(resamples) || resamples < 1)
    fail(`resamples must be a whole number ≥ 1 (got ${resamples})`);
  const estimate = statistic(groups);
  if (Number.isNaN(estimate)) return null;
  const random = seededUniform(seed);
  const drawn: T[][] = groups.map((g) => new Array<T>(g.length));
  const aligned = alignedBlocks(groups, options.blocks);
  const picks = new Array<number>(aligned?.[0]?.length ?? 0);
  const values: number[] = [];
  for (let r = 0; r < resamples; r++) {
    if (aligned) {
      for (let k = 0; k < picks.length; k++) picks[k] = Math.floor(random() * picks.length);
      groups.forEach((g, i) => {
        const out = drawn[i] as T[];
        const at = aligned[i] as number[];
        for (let k = 0; k < picks.length; k++) out[k] = g[at[picks[k] as number] as number] as T;
      });
    } else
      groups.forEach((g, i) => {
        const out = drawn[i] as T[];
        for (let k = 0; k < g.length; k++) out[k] = g[Math.floor(random() * g.length)] as T;
      });
    const v = statistic(drawn);
    if (!Number.isNaN(v)) values.push(v);
  }
  if (values.length < resamples / 2) return null;
  values.sort((a, b) => a - b);
  const tail = (1 - level) / 2;
  return {
    estimate,
    low: quantileSorted(values, tail),
    high: quantileSorted(values, 1 - tail),
    level,
    resamples,
    seed,
    valid: values.length,
    paired: aligned !== null,
  };
}

/** Mean of a sample without input checks, for statistics evaluated thousands of times. */
export function fastMean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}
