// Per-flow metrics: throughput level and stability, loss-recovery cost, and delay.

import { at, fail, requireNonNegative, requireNonNegativeList } from './guard.js';
import { checkSeries, definedValues, intervalMeans, type Series, seriesEnd } from './series.js';
import { mean, stdDev } from './stats.js';

export interface ThroughputStats {
  meanBitPerS: number;
  /** Population σ of the interval means. */
  sdBitPerS: number;
  /** σ/μ of the interval means (seed 000 §4.6); NaN when the mean is 0. */
  stabilityIndex: number;
  /** How many intervals held data. */
  intervals: number;
}

/**
 * Stability index σ/μ (seed 000 §4.6; seed 002 calls the same ratio the coefficient of variance).
 * 0 means a flat line. A flow that sent nothing has no defined stability, hence NaN.
 */
export function stabilityIndex(values: readonly number[]): number {
  requireNonNegativeList(values, 'values');
  const m = mean(values);
  return m === 0 ? Number.NaN : stdDev(values) / m;
}

/**
 * Mean and σ of throughput over fixed intervals, as seed 000 does with 5 s iperf reports. The
 * interval matters: σ over 1 s intervals is larger than over 5 s for the same flow, so reports
 * should carry intervalS alongside the numbers.
 */
export function throughputStats(
  throughputBitPerS: Series,
  { intervalS = 5, startS = 0, endS }: { intervalS?: number; startS?: number; endS?: number } = {},
): ThroughputStats {
  checkSeries(throughputBitPerS, 'throughputBitPerS');
  requireNonNegativeList(throughputBitPerS.v, 'throughputBitPerS.v');
  const iv = intervalMeans(throughputBitPerS, intervalS, {
    startS,
    endS: endS ?? seriesEnd(throughputBitPerS),
  });
  const values = definedValues(iv);
  if (values.length === 0) fail(`no throughput data between ${startS} s and ${endS} s`);
  return {
    meanBitPerS: mean(values),
    sdBitPerS: stdDev(values),
    stabilityIndex: stabilityIndex(values),
    intervals: values.length,
  };
}

/**
 * Throughput statistics of several series added up interval by interval: what a bottleneck carried
 * when the parts are everything that crossed it (seed 000 §4.5: the TCP flow and the UDP stream
 * together stay roughly level when the flow takes the capacity the stream leaves). An interval in
 * which any part has no data is left out, so a sum is never short of a part.
 */
export function aggregateThroughputStats(
  parts: readonly Series[],
  { intervalS = 5, startS = 0, endS }: { intervalS?: number; startS?: number; endS?: number } = {},
): ThroughputStats {
  if (parts.length === 0) fail('aggregateThroughputStats needs at least one series');
  parts.forEach((s, i) => {
    checkSeries(s, `parts[${i}]`);
    requireNonNegativeList(s.v, `parts[${i}].v`);
  });
  const end = endS ?? Math.min(...parts.map(seriesEnd));
  const each = parts.map((s) => intervalMeans(s, intervalS, { startS, endS: end }).values);
  const count = Math.min(...each.map((v) => v.length));
  const sums: number[] = [];
  for (let k = 0; k < count; k++) {
    const xs = each.map((v) => at(v, k));
    if (xs.every((x) => !Number.isNaN(x))) sums.push(xs.reduce((a, b) => a + b, 0));
  }
  if (sums.length === 0) fail(`no interval between ${startS} s and ${end} s holds data from every part`);
  return {
    meanBitPerS: mean(sums),
    sdBitPerS: stdDev(sums),
    stabilityIndex: stabilityIndex(sums),
    intervals: sums.length,
  };
}

/**
 * Retransmitted segments / sent segments. Linux counts retransmissions inside segs_out, so the
 * ratio is at most 1; more retransmissions than sent segments means the counters were mixed up.
 */
export function retransmitRate(retransmittedSegments: number, sentSegments: number): number {
  requireNonNegative(retransmittedSegments, 'retransmittedSegments');
  requireNonNegative(sentSegments, 'sentSegments');
  if (sentSegments === 0) fail('sentSegments is 0: the flow sent nothing, so it has no retransmit rate');
  if (retransmittedSegments > sentSegments) {
    fail(`retransmittedSegments (${retransmittedSegments}) exceeds sentSegments (${sentSegments})`);
  }
  return retransmittedSegments / sentSegments;
}

export interface RttStats {
  meanMs: number;
  sdMs: number;
  minMs: number;
  maxMs: number;
  samples: number;
}

/**
 * RTT statistics over the samples taken in [fromS, toS). Unlike throughput these are not
 * time-weighted: each sample is one probe's measurement, not a state that held for a while.
 */
export function rttStats(
  rttMs: Series,
  { fromS = Number.NEGATIVE_INFINITY, toS = Number.POSITIVE_INFINITY }: { fromS?: number; toS?: number } = {},
): RttStats {
  checkSeries(rttMs, 'rttMs');
  const values = rttMs.v.filter((_, i) => at(rttMs.t, i) >= fromS && at(rttMs.t, i) < toS);
  if (values.length === 0) fail(`no RTT samples between ${fromS} s and ${toS} s`);
  requireNonNegativeList(values, 'rttMs.v');
  return {
    meanMs: mean(values),
    sdMs: stdDev(values),
    // A loop, not Math.min(...values): long runs sampled every 10 ms overflow the argument limit.
    minMs: values.reduce((a, b) => Math.min(a, b)),
    maxMs: values.reduce((a, b) => Math.max(a, b)),
    samples: values.length,
  };
}
