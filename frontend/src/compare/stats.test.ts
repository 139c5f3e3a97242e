import { describe, expect, it } from 'vitest';
import { boxStats, cdf, quantile, relativeDelta } from './stats';

describe('compare statistics', () => {
  it('quantiles interpolate between samples; box stats sum up a distribution', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([10], 0.9)).toBe(10);
    expect(boxStats([5, 1, 3, 2, 4])).toEqual({ min: 1, q1: 2, median: 3, q3: 4, max: 5, mean: 3, n: 5 });
    expect(boxStats([Number.NaN])).toBeNull();
  });

  it('the CDF rises to 1 at the largest value and is thinned to a bound', () => {
    const c = cdf(Array.from({ length: 1000 }, (_, i) => i));
    expect(c.length).toBeLessThanOrEqual(201);
    expect(c[c.length - 1]).toEqual({ v: 999, p: 1 });
    expect(c.every((x, i) => i === 0 || x.p >= (c[i - 1]?.p ?? 0))).toBe(true);
  });

  it('a delta is relative to the baseline and absent without one', () => {
    expect(relativeDelta(12, 10)).toBeCloseTo(0.2);
    expect(relativeDelta(8, 10)).toBeCloseTo(-0.2);
    expect(relativeDelta(8, 0)).toBeNull();
    expect(relativeDelta(null, 10)).toBeNull();
  });
});
