// Time series and the operations every metric builds on: checking, windowing, integrating and
// averaging into fixed intervals.
//
// A Series is a step function: v[i] holds from t[i] until t[i+1], and the last sample holds until
// endS. Interval reports (iperf: rate over [start, end)) map onto it by stamping each rate at its
// interval start and setting endS to the last interval's end; gauges sampled by ss (cwnd, RTT)
// are held until the next sample. Averages are therefore time-weighted, so irregular sampling
// does not bias them.

import { at, fail, requireFinite, requireNonEmpty, requirePositive } from './guard.js';

export interface Series {
  /** Sample times in seconds from run start, strictly increasing. */
  readonly t: readonly number[];
  /** Values; the unit is the caller's (bit/s, ms, packets...), named where the series is used. */
  readonly v: readonly number[];
  /** When the last sample stops holding (s). Default: the last t, so the last sample has no width. */
  readonly endS?: number;
}

/** Fixed-width interval means, e.g. seed 000's 5 s iperf intervals. NaN marks an interval with no data. */
export interface Intervals {
  /** Start of the first interval (s from run start). */
  readonly startS: number;
  readonly intervalS: number;
  /** values[k] is the time-weighted mean over [startS + k·intervalS, startS + (k+1)·intervalS). */
  readonly values: readonly number[];
}

/** Builds a Series and checks it, so malformed parser output fails where it enters. */
export function series(t: readonly number[], v: readonly number[], endS?: number): Series {
  const s: Series = endS === undefined ? { t, v } : { t, v, endS };
  return checkSeries(s);
}

export function checkSeries(s: Series, name = 'series'): Series {
  requireNonEmpty(s.t, `${name}.t`);
  if (s.t.length !== s.v.length) fail(`${name}: t has ${s.t.length} samples but v has ${s.v.length}`);
  s.t.forEach((t, i) => {
    requireFinite(t, `${name}.t[${i}]`);
    requireFinite(at(s.v, i), `${name}.v[${i}]`);
    if (i > 0 && t <= at(s.t, i - 1)) fail(`${name}.t must be strictly increasing (t[${i}] = ${t})`);
  });
  if (s.endS !== undefined) {
    requireFinite(s.endS, `${name}.endS`);
    if (s.endS < lastTime(s)) fail(`${name}.endS (${s.endS}) is before the last sample (${lastTime(s)})`);
  }
  return s;
}

export function lastTime(s: Series): number {
  return at(s.t, s.t.length - 1);
}

export function seriesEnd(s: Series): number {
  return s.endS ?? lastTime(s);
}

/** Where sample i stops holding. */
function sampleEnd(s: Series, i: number): number {
  return i + 1 < s.t.length ? at(s.t, i + 1) : seriesEnd(s);
}

/** Index of the last sample with t <= x, or -1 if x is before the first sample. */
function indexAtOrBefore(s: Series, x: number): number {
  let lo = 0;
  let hi = s.t.length - 1;
  if (x < at(s.t, 0)) return -1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (at(s.t, mid) <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The step function's value at time x; NaN before the first sample or after endS. */
export function valueAt(s: Series, x: number): number {
  const i = indexAtOrBefore(s, x);
  if (i < 0 || x >= sampleEnd(s, i)) return Number.NaN;
  return at(s.v, i);
}

export interface Integral {
  /** ∫ v dt over the covered part of the range (value unit × s, e.g. bit/s × s = bits). */
  area: number;
  /** Seconds of the range for which the series has data. */
  coveredS: number;
}

export function integrate(s: Series, fromS: number, toS: number): Integral {
  requireFinite(fromS, 'fromS');
  requireFinite(toS, 'toS');
  if (toS < fromS) fail(`toS (${toS}) must not be before fromS (${fromS})`);
  let area = 0;
  let coveredS = 0;
  for (let i = Math.max(0, indexAtOrBefore(s, fromS)); i < s.t.length; i++) {
    if (at(s.t, i) >= toS) break;
    const a = Math.max(at(s.t, i), fromS);
    const b = Math.min(sampleEnd(s, i), toS);
    if (b > a) {
      area += at(s.v, i) * (b - a);
      coveredS += b - a;
    }
  }
  return { area, coveredS };
}

/** Time-weighted mean over [fromS, toS); NaN when the series has no data there. */
export function timeWeightedMean(s: Series, fromS: number, toS: number): number {
  const { area, coveredS } = integrate(s, fromS, toS);
  return coveredS > 0 ? area / coveredS : Number.NaN;
}

/**
 * Restricts a series to [fromS, toS), keeping the step function intact: a sample that started
 * before fromS but still holds there is re-stamped at fromS. Throws if nothing is left, because
 * every caller needs data.
 */
export function window(s: Series, fromS: number, toS: number): Series {
  requireFinite(fromS, 'fromS');
  requireFinite(toS, 'toS');
  if (toS <= fromS) fail(`window end (${toS}) must be after its start (${fromS})`);
  const t: number[] = [];
  const v: number[] = [];
  const holding = valueAt(s, fromS);
  if (!Number.isNaN(holding)) {
    t.push(fromS);
    v.push(holding);
  }
  s.t.forEach((ti, i) => {
    if (ti > fromS && ti < toS) {
      t.push(ti);
      v.push(at(s.v, i));
    }
  });
  if (t.length === 0) fail(`no samples in the window [${fromS}, ${toS}) s`);
  return { t, v, endS: Math.min(seriesEnd(s), toS) };
}

/** The second half of a run that starts at 0 s (seed 001's SHT). */
export function secondHalf(s: Series, runDurationS: number): Series {
  requirePositive(runDurationS, 'runDurationS');
  return window(s, runDurationS / 2, runDurationS);
}

/**
 * Averages a series into fixed intervals starting at startS. Only whole intervals are kept: a
 * short tail would weigh as much as a full interval in σ while holding fewer data.
 */
export function intervalMeans(
  s: Series,
  intervalS: number,
  { startS = 0, endS = seriesEnd(s) }: { startS?: number; endS?: number } = {},
): Intervals {
  requirePositive(intervalS, 'intervalS');
  requireFinite(startS, 'startS');
  requireFinite(endS, 'endS');
  // The epsilon keeps 1200 s / 5 s from losing its last interval to rounding.
  const count = Math.floor((endS - startS) / intervalS + 1e-9);
  if (count < 1) fail(`[${startS}, ${endS}) s is shorter than one ${intervalS} s interval`);
  const values: number[] = [];
  for (let k = 0; k < count; k++) {
    const a = startS + k * intervalS;
    values.push(timeWeightedMean(s, a, a + intervalS));
  }
  return { startS, intervalS, values };
}

/** Interval values that hold data (drops the NaN of empty intervals). */
export function definedValues(iv: Intervals): number[] {
  return iv.values.filter((x) => !Number.isNaN(x));
}

/**
 * Turns a cumulative byte counter (ss bytes_acked, tc sent bytes) into a rate series in bit/s,
 * each rate stamped at the start of the span it covers. A decreasing counter means a reset or a
 * wrong column, so it throws rather than report a negative rate.
 */
export function rateFromByteCounter(counter: Series): Series {
  checkSeries(counter, 'counter');
  if (counter.t.length < 2) fail('counter needs at least two samples to give a rate');
  const t: number[] = [];
  const v: number[] = [];
  for (let i = 0; i + 1 < counter.t.length; i++) {
    const bytes = at(counter.v, i + 1) - at(counter.v, i);
    if (bytes < 0) fail(`counter decreases at t = ${at(counter.t, i + 1)} s (reset or wrong column?)`);
    t.push(at(counter.t, i));
    v.push((8 * bytes) / (at(counter.t, i + 1) - at(counter.t, i)));
  }
  return { t, v, endS: lastTime(counter) };
}
