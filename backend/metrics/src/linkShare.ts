// How much of a link one flow uses: its goodput as a share of the capacity, and how soon its rate
// first reaches a given share of the capacity. Vendors qualify against the link, not against the
// flow's own maximum (rampup.ts's seed-004 reading), so the reference here is always the capacity.

import { requireInRange, requireNonNegative, requirePositive } from './guard.js';
import { rampUp } from './rampup.js';
import type { Series } from './series.js';

/** Goodput over capacity, both in bit/s; may exceed 1 only through measurement error. */
export function goodputShare(goodputBitPerS: number, capacityBitPerS: number): number {
  requireNonNegative(goodputBitPerS, 'goodputBitPerS');
  requirePositive(capacityBitPerS, 'capacityBitPerS');
  return goodputBitPerS / capacityBitPerS;
}

/**
 * Seconds from `startS` until the flow's rate first reaches `fraction` of the capacity; NaN when it
 * never does. The instantaneous rate is compared (a running average would hide a late ramp-up
 * behind a slow start), with the same crossing rules as rampUp.
 */
export function timeToLinkShare(
  throughputBitPerS: Series,
  capacityBitPerS: number,
  { fraction = 0.9, startS }: { fraction?: number; startS?: number } = {},
): number {
  requirePositive(capacityBitPerS, 'capacityBitPerS');
  requireInRange(fraction, 'fraction', 0, 1, { lowOpen: true });
  const r = rampUp(throughputBitPerS, {
    fractions: [fraction],
    basis: 'instantaneous',
    maxBitPerS: capacityBitPerS,
    ...(startS === undefined ? {} : { startS }),
  });
  return r.points[0]?.elapsedS ?? Number.NaN;
}
