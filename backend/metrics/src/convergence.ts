// Transient fairness (seed 002): after a flow joins a link already in use, how long until it
// holds its fair share.

import { at, fail, requireFinite, requireInRange, requirePositive } from './guard.js';
import { checkSeries, intervalMeans, type Series, seriesEnd } from './series.js';

export interface ConvergenceOptions {
  /** When the late flow starts (s from run start); the clock for the result starts here. */
  lateStartS: number;
  /** Allowed relative distance from the fair share: 0.1 accepts 45/55 for two flows. */
  tolerance?: number;
  /** Averaging interval (s); the result has this resolution. */
  intervalS?: number;
  /**
   * How long the late flow must stay within tolerance to count as converged (s). Default: until
   * the end of the data, so a flow that touches its share once and falls away has not converged.
   */
  holdS?: number;
  /** End of the analysed data (s); default: where the shortest series ends. */
  endS?: number;
}

export interface Convergence {
  /** Run time at which the late flow's share enters tolerance for good; NaN if it never does. */
  convergedAtS: number;
  /** convergedAtS − lateStartS; NaN if it never converges. */
  convergenceTimeS: number;
}

/**
 * Averages all flows over fixed intervals from the late start and finds the first interval from
 * which the late flow's throughput stays within `tolerance` of the fair share (total / flows).
 * Seed 002 only says "until the average throughputs are 50/50"; the tolerance and hold make that
 * measurable on noisy data.
 */
export function convergenceTime(
  lateBitPerS: Series,
  incumbentsBitPerS: readonly Series[],
  { lateStartS, tolerance = 0.1, intervalS = 5, holdS, endS }: ConvergenceOptions,
): Convergence {
  checkSeries(lateBitPerS, 'lateBitPerS');
  if (incumbentsBitPerS.length === 0) fail('incumbentsBitPerS must not be empty');
  incumbentsBitPerS.forEach((s, i) => {
    checkSeries(s, `incumbentsBitPerS[${i}]`);
  });
  requireFinite(lateStartS, 'lateStartS');
  requireInRange(tolerance, 'tolerance', 0, 1, { lowOpen: true });
  requirePositive(intervalS, 'intervalS');
  if (holdS !== undefined) requirePositive(holdS, 'holdS');
  const all = [lateBitPerS, ...incumbentsBitPerS];
  const end = endS ?? Math.min(...all.map(seriesEnd));
  const perFlow = all.map((s) => intervalMeans(s, intervalS, { startS: lateStartS, endS: end }).values);
  const late = at(perFlow, 0);
  const within = late.map((lateMean, k) => {
    const total = perFlow.reduce((sum, vals) => sum + at(vals, k), 0);
    // A NaN total (some flow without data) or an idle link cannot be called fair.
    if (!(total > 0)) return false;
    const share = total / all.length;
    return Math.abs(lateMean / share - 1) <= tolerance;
  });
  const holdCount = holdS === undefined ? Number.POSITIVE_INFINITY : Math.ceil(holdS / intervalS - 1e-9);
  for (let k = 0; k < within.length; k++) {
    const last = Math.min(within.length, k + holdCount);
    if (holdS !== undefined && k + holdCount > within.length) break;
    if (within.slice(k, last).every(Boolean)) {
      return { convergedAtS: lateStartS + k * intervalS, convergenceTimeS: k * intervalS };
    }
  }
  return { convergedAtS: Number.NaN, convergenceTimeS: Number.NaN };
}
