// Between-flow metrics on mean throughputs: how evenly flows share, and how well they fill the link.

import {
  fail,
  requireInRange,
  requireNonNegative,
  requireNonNegativeList,
  requirePositive,
} from './guard.js';

/**
 * Chiu-Jain fairness index (Σx)² / (n·Σx²) (seed 000 §5.1): 1 for equal shares, 1/n when one flow
 * takes everything. All-zero throughputs share nothing, so the index is undefined: NaN.
 */
export function jainIndex(throughputs: readonly number[]): number {
  requireNonNegativeList(throughputs, 'throughputs');
  let sum = 0;
  let squares = 0;
  for (const x of throughputs) {
    sum += x;
    squares += x * x;
  }
  return squares === 0 ? Number.NaN : (sum * sum) / (throughputs.length * squares);
}

/**
 * Jain's index of the flows that share one path in one direction: the scope the run summary
 * ("Jain fwd" / "Jain rev"), the CLI and Grafana's lfn_fairness all report. No index (null) when
 * fewer than two flows share it, when one of them has no goodput, or when none moved anything:
 * fairness between one flow and itself, or against an unknown, says nothing.
 */
export function bottleneckJain(goodputs: readonly (number | null)[]): number | null {
  if (goodputs.length < 2 || goodputs.some((x) => x === null)) return null;
  const j = jainIndex(goodputs as number[]);
  return Number.isFinite(j) ? j : null;
}

/**
 * Seed 001 eq. (7): the Jain index of each flow's throughput divided by its optimal share
 * Q_opt = B/n. Dividing every term by the same Q_opt cancels, so the value equals jainIndex; it is
 * kept as its own function so reports can cite the paper's form and so B is validated.
 */
export function jainIndexNormalised(throughputsBitPerS: readonly number[], capacityBitPerS: number): number {
  requireNonNegativeList(throughputsBitPerS, 'throughputsBitPerS');
  const qOpt = fairShare(capacityBitPerS, throughputsBitPerS.length);
  return jainIndex(throughputsBitPerS.map((q) => q / qOpt));
}

/** Seed 001's optimal per-flow throughput Q_opt = B/n in bit/s. */
export function fairShare(capacityBitPerS: number, flows: number): number {
  requirePositive(capacityBitPerS, 'capacityBitPerS');
  requirePositive(flows, 'flows');
  if (!Number.isInteger(flows)) fail(`flows must be a whole number (got ${flows})`);
  return capacityBitPerS / flows;
}

/**
 * Asymmetry A = (x1 − x2)/(x1 + x2) (seed 000 §5.2). Near +1: flow 1 crowds flow 2 out; near −1:
 * flow 1 is too gentle; 0: even split. Undefined (NaN) when neither flow moved data.
 */
export function asymmetry(x1: number, x2: number): number {
  requireNonNegative(x1, 'x1');
  requireNonNegative(x2, 'x2');
  const total = x1 + x2;
  return total === 0 ? Number.NaN : (x1 - x2) / total;
}

/**
 * Efficiency ΣQ/B (seed 001 eq. 8): aggregate throughput over link capacity. Not clamped to 1:
 * a value above 1 signals that throughput and capacity were measured at different layers.
 */
export function efficiency(throughputsBitPerS: readonly number[], capacityBitPerS: number): number {
  requireNonNegativeList(throughputsBitPerS, 'throughputsBitPerS');
  requirePositive(capacityBitPerS, 'capacityBitPerS');
  return throughputsBitPerS.reduce((a, b) => a + b, 0) / capacityBitPerS;
}

/** Seed 001 §5 weights efficiency by 0.2: fairness only counts once the link is well used. */
export const DEFAULT_PERFORMANCE_ALPHA = 0.2;

/** Seed 001 eq. (10): α·E + (1 − α)·F, a convex trade-off with 0 < α < 1. */
export function performanceScore(
  efficiencyRatio: number,
  fairnessIndex: number,
  alpha: number = DEFAULT_PERFORMANCE_ALPHA,
): number {
  requireNonNegative(efficiencyRatio, 'efficiencyRatio');
  requireInRange(fairnessIndex, 'fairnessIndex', 0, 1);
  requireInRange(alpha, 'alpha', 0, 1, { lowOpen: true, highOpen: true });
  return alpha * efficiencyRatio + (1 - alpha) * fairnessIndex;
}
