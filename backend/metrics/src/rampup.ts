// How fast a transfer gets going (seed 004 §3.1.2): the time and the data needed before the
// transfer runs at 50 % and 90 % of its maximum bandwidth.

import { at, fail, requireFinite, requireInRange, requireNonNegativeList, requirePositive } from './guard.js';
import { checkSeries, integrate, type Series, seriesEnd } from './series.js';

export type RampBasis = 'cumulative' | 'instantaneous';

export interface RampUpOptions {
  /** Fractions of the maximum to report, each in (0, 1]. */
  fractions?: readonly number[];
  /**
   * 'cumulative' (seed 004): compare the average rate since the transfer began, bytes so far /
   * time so far, and take as maximum the whole transfer's average. 'instantaneous': compare the
   * current rate, and take as maximum the highest rate seen.
   */
  basis?: RampBasis;
  /** Override the maximum (bit/s), e.g. the link capacity or an iperf UDP reference. */
  maxBitPerS?: number;
  /** When the transfer starts (s); default: the first sample. */
  startS?: number;
}

export interface RampPoint {
  fraction: number;
  targetBitPerS: number;
  /** Run time at which the target is reached (s); NaN if never. */
  reachedAtS: number;
  /** Time from transfer start (s); NaN if never. */
  elapsedS: number;
  /** Data delivered by then (bytes); NaN if never. */
  bytes: number;
}

export interface RampUp {
  basis: RampBasis;
  maxBitPerS: number;
  points: RampPoint[];
}

const NEVER = { reachedAtS: Number.NaN, elapsedS: Number.NaN, bytes: Number.NaN };

/**
 * Seed 004 states its maximum as the rate over the whole large transfer and finds when the running
 * average first reaches it; the cumulative basis does the same. The running average is linear in
 * data within each sample, so crossings are solved exactly rather than read off at sample times.
 */
export function rampUp(throughputBitPerS: Series, options: RampUpOptions = {}): RampUp {
  checkSeries(throughputBitPerS, 'throughputBitPerS');
  requireNonNegativeList(throughputBitPerS.v, 'throughputBitPerS.v');
  const { fractions = [0.5, 0.9], basis = 'cumulative' } = options;
  if (basis !== 'cumulative' && basis !== 'instantaneous') fail(`unknown basis '${String(basis)}'`);
  if (fractions.length === 0) fail('fractions must not be empty');
  fractions.forEach((f, i) => {
    requireInRange(f, `fractions[${i}]`, 0, 1, { lowOpen: true });
  });
  const startS = requireFinite(options.startS ?? at(throughputBitPerS.t, 0), 'startS');
  const endS = seriesEnd(throughputBitPerS);
  if (endS <= startS) fail(`the series ends (${endS} s) before or at startS (${startS} s); set endS`);
  const maxBitPerS =
    options.maxBitPerS !== undefined
      ? requirePositive(options.maxBitPerS, 'maxBitPerS')
      : basis === 'cumulative'
        ? integrate(throughputBitPerS, startS, endS).area / (endS - startS)
        : throughputBitPerS.v.reduce((a, b) => Math.max(a, b), 0);
  const points = fractions.map((fraction) => {
    const targetBitPerS = fraction * maxBitPerS;
    if (maxBitPerS === 0) return { fraction, targetBitPerS, ...NEVER };
    const hit =
      basis === 'cumulative'
        ? firstCumulativeCrossing(throughputBitPerS, startS, targetBitPerS)
        : firstRateCrossing(throughputBitPerS, startS, targetBitPerS);
    return { fraction, targetBitPerS, ...hit };
  });
  return { basis, maxBitPerS, points };
}

type Hit = Omit<RampPoint, 'fraction' | 'targetBitPerS'>;

function firstCumulativeCrossing(s: Series, startS: number, target: number): Hit {
  let bits = 0;
  for (let i = 0; i < s.t.length; i++) {
    const a = Math.max(at(s.t, i), startS);
    const b = i + 1 < s.t.length ? at(s.t, i + 1) : seriesEnd(s);
    if (b <= a) continue;
    const rate = at(s.v, i);
    const ua = a - startS;
    const ub = b - startS;
    let u = Number.NaN;
    // Running average = bits/u. It moves toward this sample's rate, so it can only climb past the
    // target while the rate is above it; at u = 0 the running average is the rate itself.
    if (rate >= target && bits >= target * ua) u = ua;
    else if (rate > target) u = (rate * ua - bits) / (rate - target);
    // The relative slack lets a target met exactly at the last sample's end (fraction 1) count.
    if (u <= ub * (1 + 1e-12)) {
      return { reachedAtS: startS + u, elapsedS: u, bytes: (bits + rate * (u - ua)) / 8 };
    }
    bits += rate * (b - a);
  }
  return NEVER;
}

function firstRateCrossing(s: Series, startS: number, target: number): Hit {
  for (let i = 0; i < s.t.length; i++) {
    const ti = at(s.t, i);
    const holdsPastStart = (i + 1 < s.t.length ? at(s.t, i + 1) : seriesEnd(s)) > startS;
    if (!holdsPastStart || at(s.v, i) < target) continue;
    const reachedAtS = Math.max(ti, startS);
    return {
      reachedAtS,
      elapsedS: reachedAtS - startS,
      bytes: integrate(s, startS, reachedAtS).area / 8,
    };
  }
  return NEVER;
}
