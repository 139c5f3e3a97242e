// A share (of pairs in the paper's order, of matching signs, of cells past a bound) judged unit by
// unit: each pair's difference, or each cell's value, has its own 95 % interval (`jointCi`: the
// bootstrap, widened to the jackknife t interval at a few runs); a unit whose interval allows only
// one outcome is decided, and one whose interval allows several counts every way it could go. The
// share's range then runs from the least credit to the most.
//
// Why not a bootstrap of the share itself: it is a step function of the cell means, and with 3
// runs per cell a resample can only move a mean between the cell's smallest and largest run, so it
// rarely flips a close pair. The share's bootstrap interval then sits at its observed value, and a
// share that happens to fall just short of the claim fails: in seeded simulations (6 pairs, 3
// normal runs per cell, true share 5 of 6 against a needed 75 %) it failed in 4 % of trials at
// margins of 1 σ and 15 % at 0.5 σ. Counting each undecided unit both ways makes such a claim
// inconclusive instead.

import type { SmallSampleInterval } from '@lfnlab/metrics';
import { type Estimate, jointCi } from './estimate.js';
import { fmt } from './fmt.js';
import { CI_NAME, type Region, repetitionsText, repetitionsToDecide } from './judge.js';
import type { VerdictTest } from './verdict.js';

/** How a test name says each unit was decided: "…, each decided by the 95 % CI (…) of its value". */
export const EACH_UNIT = `each decided by the ${CI_NAME} of`;

/** A unit's possible credits (0 to 1) and the outcome observed. */
export interface UnitCredit {
  min: number;
  max: number;
  /** Whether the unit's interval drew or left out whole repetitions ("paired by seed"). */
  paired?: boolean;
  /** An undecided unit: the repetitions that would likely decide it (repetitionsToDecide). */
  toDecide?: number | null;
}

/**
 * −1, 0 or +1 outcomes an interval allows against a band [−tol, tol] around 0 (a tie tolerance or a
 * sign's deadband); the observed value's own outcome is always among them.
 */
export function outcomesOf(
  ci: { low: number; high: number } | null,
  observed: number,
  tol: number,
): Set<number> {
  const out = new Set<number>([Math.abs(observed) <= tol ? 0 : observed > 0 ? 1 : -1]);
  if (!ci) return new Set([-1, 0, 1]);
  if (ci.high > tol) out.add(1);
  if (ci.low <= tol && ci.high >= -tol) out.add(0);
  if (ci.low < -tol) out.add(-1);
  return out;
}

/**
 * The least and most credit over the outcomes an interval allows; for an undecided unit, with `at`
 * (its observed value and the edges between outcomes), how many repetitions would decide it.
 */
export function creditRange(
  outcomes: Set<number>,
  credit: (o: number) => number,
  ci?: SmallSampleInterval | null,
  at?: { observed: number; edges: Region },
): UnitCredit {
  const cs = [...outcomes].map(credit);
  const [min, max] = [Math.min(...cs), Math.max(...cs)];
  const unit: UnitCredit = { min, max, paired: ci?.paired ?? false };
  if (max > min && ci && at) unit.toDecide = repetitionsToDecide(ci, at.observed, at.edges);
  return unit;
}

/** The edges between a difference's outcomes: −tol and tol (a tie band or a sign's deadband). */
export const bandEdges = (tol: number): Region => ({ lo: -tol, hi: tol });

export interface ShareRange {
  low: number;
  high: number;
  /** Units whose interval allowed more than one credit. */
  undecided: number;
  units: number;
  /** Every unit's interval was paired by seed. */
  paired: boolean;
  /**
   * The repetitions that would likely decide every undecided unit, and so the share (null: some
   * unit not within 100); absent when no unit is undecided or none could say.
   */
  toDecide?: number | null;
}

export function shareRange(units: readonly UnitCredit[]): ShareRange {
  const n = units.length;
  const open = units.filter((u) => u.max > u.min);
  const each = open.map((u) => u.toDecide);
  const range: ShareRange = {
    low: units.reduce((s, u) => s + u.min, 0) / n,
    high: units.reduce((s, u) => s + u.max, 0) / n,
    undecided: open.length,
    units: n,
    paired: n > 0 && units.every((u) => u.paired),
  };
  if (open.length && each.every((x) => x !== undefined))
    range.toDecide = each.includes(null) ? null : Math.max(...(each as number[]));
  return range;
}

/** For an inconclusive share: "; about 6 repetitions would decide it at these means and spreads". */
export function shareToDecide(r: ShareRange): ToDecideNote {
  return toDecideNote(r.toDecide);
}

export interface ToDecideNote {
  text: string;
  record: Pick<VerdictTest, 'repetitionsToDecide'>;
}

/** The sentence and record for a projection over several units; nothing when it cannot say (undefined). */
export function toDecideNote(n: number | null | undefined): ToDecideNote {
  if (n === undefined) return { text: '', record: {} };
  return { text: `; ${repetitionsText(n, true)}`, record: { repetitionsToDecide: n } };
}

/**
 * The record comparison.json carries for such a share: the units' level and resamples, and the
 * claim's seed (each unit's interval is seeded from the claim id and the unit's place).
 */
export function shareRecord(r: ShareRange, seed: number): NonNullable<VerdictTest['ci']> {
  return {
    low: r.low,
    high: r.high,
    level: 0.95,
    resamples: 10_000,
    seed,
    ...(r.paired ? { paired: true } : {}),
    undecided: r.undecided,
    units: r.units,
  };
}

/** "0.727 to 0.909 (1 of 11 pairs undecided, paired by seed)". */
/** `what`: the units' plural ("pairs"); one unit is named in the singular. */
export function shareRangeText(r: ShareRange, what: string): string {
  const units = r.units === 1 ? what.replace(/s$/, '') : what;
  return `${fmt(r.low)} to ${fmt(r.high)} (${r.undecided} of ${r.units} ${units} undecided${r.paired ? ', paired by seed' : ''})`;
}

/** A cell's value with its own interval (the mean of its runs, a ratio of two cells, …). */
export const valueCi = (e: Estimate, seedText: string) => jointCi([e], (v) => v[0] as number, seedText);

/** The difference of two items, resampled together (paired by seed where they share repetitions). */
export const differenceCi = (a: Estimate, b: Estimate, seedText: string) =>
  jointCi([a, b], ([x, y]) => (x as number) - (y as number), seedText);
