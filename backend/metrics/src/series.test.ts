import { describe, expect, it } from 'vitest';
import { MetricInputError } from './guard.js';
import {
  definedValues,
  integrate,
  intervalMeans,
  rateFromByteCounter,
  secondHalf,
  series,
  timeWeightedMean,
  valueAt,
  window,
} from './series.js';

describe('series', () => {
  // 10 on [0,1), 20 on [1,4), 40 on [4,6).
  const s = series([0, 1, 4], [10, 20, 40], 6);

  it('reads the step function', () => {
    expect(valueAt(s, 0)).toBe(10);
    expect(valueAt(s, 3.99)).toBe(20);
    expect(valueAt(s, 4)).toBe(40);
    expect(valueAt(s, -1)).toBeNaN();
    expect(valueAt(s, 6)).toBeNaN();
  });

  it('integrates and reports covered time', () => {
    expect(integrate(s, 0, 6)).toEqual({ area: 10 + 60 + 80, coveredS: 6 });
    expect(integrate(s, -5, 2)).toEqual({ area: 10 + 20, coveredS: 2 });
    expect(integrate(s, 7, 9)).toEqual({ area: 0, coveredS: 0 });
  });

  it('averages time-weighted, so irregular sampling does not bias', () => {
    // A plain sample mean would say (10 + 20 + 40)/3 = 23.3.
    expect(timeWeightedMean(s, 0, 6)).toBeCloseTo(150 / 6, 12);
    expect(timeWeightedMean(s, 10, 12)).toBeNaN();
  });

  it('averages into fixed intervals', () => {
    const iv = intervalMeans(s, 3);
    expect(iv.startS).toBe(0);
    expect(iv.intervalS).toBe(3);
    expect(iv.values[0]).toBeCloseTo((10 * 1 + 20 * 2) / 3, 12);
    expect(iv.values[1]).toBeCloseTo((20 * 1 + 40 * 2) / 3, 12);
  });

  it('drops a partial last interval and marks intervals without data as NaN', () => {
    const late = series([10, 11], [5, 7], 17);
    const iv = intervalMeans(late, 5);
    expect(iv.values).toHaveLength(3); // [0,5) [5,10) [10,15); [15,17) is partial
    expect(iv.values[0]).toBeNaN();
    expect(iv.values[1]).toBeNaN();
    expect(iv.values[2]).toBeCloseTo((5 + 7 * 4) / 5, 12);
    expect(definedValues(iv)).toHaveLength(1);
  });

  it('keeps every interval of 1200 s / 5 s despite rounding', () => {
    const flat = series([0], [1], 1200);
    expect(intervalMeans(flat, 5).values).toHaveLength(240);
    expect(intervalMeans(series([0], [1], 0.3), 0.1).values).toHaveLength(3);
  });

  it('windows without changing the step function', () => {
    const w = window(s, 2, 5);
    expect(w).toEqual({ t: [2, 4], v: [20, 40], endS: 5 });
    expect(timeWeightedMean(w, 2, 5)).toBeCloseTo(timeWeightedMean(s, 2, 5), 12);
    expect(() => window(s, 7, 9)).toThrow(/no samples/);
  });

  it('takes the second half of a run', () => {
    expect(secondHalf(s, 6)).toEqual({ t: [3, 4], v: [20, 40], endS: 6 });
  });

  it('turns a byte counter into bit/s', () => {
    const c = series([0, 1, 2, 4], [0, 1000, 3000, 3000]);
    expect(rateFromByteCounter(c)).toEqual({ t: [0, 1, 2], v: [8000, 16000, 0], endS: 4 });
    expect(() => rateFromByteCounter(series([0, 1], [10, 5]))).toThrow(/decreases/);
  });

  it('rejects malformed series', () => {
    expect(() => series([], [])).toThrow(MetricInputError);
    expect(() => series([0, 1], [1])).toThrow(/2 samples but v has 1/);
    expect(() => series([0, 0], [1, 2])).toThrow(/strictly increasing/);
    expect(() => series([0, 1], [1, Number.NaN])).toThrow(/v\[1\]/);
    expect(() => series([0, 5], [1, 2], 3)).toThrow(/endS/);
    expect(() => intervalMeans(s, 0)).toThrow(/intervalS/);
    expect(() => intervalMeans(s, 10)).toThrow(/shorter than one/);
  });
});
