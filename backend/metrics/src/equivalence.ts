// Seed 002's equivalence test: how many Reno flows move as much data together as one flow of
// another stack. A stack "worth 12 Reno flows" takes about 12 times a Reno flow's share.

import { at, fail, requireNonNegative, requirePositive } from './guard.js';

export interface RenoAggregate {
  /** Number of parallel Reno flows in the measurement. */
  flows: number;
  /** Their combined throughput (bit/s). */
  aggregateBitPerS: number;
}

/**
 * Interpolates linearly in the measured (flows, aggregate) points, anchored at (0, 0) since no
 * flows move no data, and returns the fractional flow count whose aggregate equals the single
 * flow's throughput. Aggregates need not rise monotonically (they saturate and are noisy); the
 * first crossing counts. Returns NaN when the single flow beats every measured aggregate: the
 * answer is then only "more than the largest count measured", which one number cannot say.
 */
export function renoEquivalentFlows(
  renoAggregates: readonly RenoAggregate[],
  singleFlowBitPerS: number,
): number {
  requireNonNegative(singleFlowBitPerS, 'singleFlowBitPerS');
  if (renoAggregates.length === 0) fail('renoAggregates must not be empty');
  const points = [...renoAggregates].sort((a, b) => a.flows - b.flows);
  points.forEach((p, i) => {
    requirePositive(p.flows, `renoAggregates[${i}].flows`);
    if (!Number.isInteger(p.flows))
      fail(`renoAggregates[${i}].flows must be a whole number (got ${p.flows})`);
    requireNonNegative(p.aggregateBitPerS, `renoAggregates[${i}].aggregateBitPerS`);
    if (i > 0 && p.flows === at(points, i - 1).flows) fail(`flow count ${p.flows} is measured twice`);
  });
  const withOrigin = [{ flows: 0, aggregateBitPerS: 0 }, ...points];
  for (let i = 0; i + 1 < withOrigin.length; i++) {
    const a = at(withOrigin, i);
    const b = at(withOrigin, i + 1);
    const low = Math.min(a.aggregateBitPerS, b.aggregateBitPerS);
    const high = Math.max(a.aggregateBitPerS, b.aggregateBitPerS);
    if (singleFlowBitPerS < low || singleFlowBitPerS > high) continue;
    if (high === low) return a.flows;
    const fraction = (singleFlowBitPerS - a.aggregateBitPerS) / (b.aggregateBitPerS - a.aggregateBitPerS);
    return a.flows + fraction * (b.flows - a.flows);
  }
  return Number.NaN;
}
