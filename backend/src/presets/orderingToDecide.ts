// How many repetitions an inconclusive ordering would likely need. Two tests decide an ordering
// (orderings.ts): Kendall's τ-b over the runs and the share of pairs in the paper's order. Were τ-b
// and the runs' spread to stay as measured, S grows with the runs per item r as r² when the runs
// are pooled (its null standard deviation as r^1.5) and as r when each repetition is a stratum (its
// null standard deviation as √r): either way S's z grows as √r. The share's undecided pairs project
// with repetitionsToDecide (decidedShare.ts).

import { normalUpperQuantile } from '@lfnlab/metrics';
import type { ShareRange } from './decidedShare.js';
import { MAX_REPETITIONS } from './judge.js';
import { ALPHA } from './verdict.js';

/**
 * The fewest repetitions at which a one-sided p-value `p`, measured at `r0` repetitions, would fall
 * below ALPHA with its z growing as √r: r0 itself when it already has; null when τ points the other
 * way (p ≥ 0.5) or it would take more than MAX_REPETITIONS.
 */
export function tauRepetitions(p: number, r0: number): number | null {
  if (!(r0 >= 1) || !(p < 0.5)) return null;
  if (p < ALPHA) return r0;
  const ratio = normalUpperQuantile(ALPHA) / normalUpperQuantile(p);
  const r = Math.max(r0 + 1, Math.floor(r0 * ratio * ratio) + 1);
  return r <= MAX_REPETITIONS ? r : null;
}

export interface OrderingState {
  /** τ-b over the runs (null when undefined), with its one-sided p-values. */
  tau: number | null;
  pGreater: number;
  pLess: number;
  /** Whether τ-b's points grow with the repetitions (runs), or are the items themselves. */
  byRun: boolean;
  /** Repetitions measured per item. */
  repetitions: number;
  /** The share of pairs in the paper's order, as judged. */
  share: ShareRange;
  /** Whether the share of our means' pairs reaches the claim: where it heads once its pairs are decided. */
  shareReaches: boolean;
}

/**
 * The repetitions at which the ordering would likely be decided, either way, at these means and
 * spreads: holding needs τ-b significant and the share decided at or above the claim; failing needs
 * τ-b significantly reversed or the share decided below it, whichever comes first. null when no
 * number up to MAX_REPETITIONS would; undefined when a pair's projection cannot say.
 */
export function orderingToDecide(s: OrderingState): number | null | undefined {
  const r0 = s.repetitions;
  const shareAt = s.share.undecided === 0 ? r0 : s.share.toDecide;
  const grows = s.byRun && s.tau !== null;
  const up = grows && (s.tau as number) > 0 ? tauRepetitions(s.pGreater, r0) : null;
  const down = grows && (s.tau as number) < 0 ? tauRepetitions(s.pLess, r0) : null;
  const ways: (number | null | undefined)[] = [down];
  if (!s.shareReaches) ways.push(shareAt);
  else
    ways.push(
      shareAt === undefined ? undefined : shareAt === null || up === null ? null : Math.max(shareAt, up),
    );
  const known = ways.filter((w): w is number => typeof w === 'number');
  if (known.length) return Math.min(...known);
  return ways.includes(undefined) ? undefined : null;
}
