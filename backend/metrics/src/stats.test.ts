import { describe, expect, it } from 'vitest';
import { MetricInputError } from './guard.js';
import { mean, meanAndSd, quantileSorted, stdDev } from './stats.js';

describe('stats', () => {
  // Textbook set: mean 5, squared deviations sum to 32.
  const values = [2, 4, 4, 4, 5, 5, 7, 9];

  it('computes the mean', () => {
    expect(mean(values)).toBe(5);
  });

  it('uses the population standard deviation by default', () => {
    expect(stdDev(values)).toBe(2); // √(32/8)
    expect(stdDev(values, { sample: true })).toBeCloseTo(Math.sqrt(32 / 7), 12);
  });

  it('gives σ = 0 for one value, and NaN for the sample form', () => {
    expect(stdDev([3])).toBe(0);
    expect(stdDev([3], { sample: true })).toBeNaN();
  });

  it('bundles mean, σ and count', () => {
    expect(meanAndSd([1, 3])).toEqual({ mean: 2, sd: 1, count: 2 });
  });

  it('rejects empty and non-finite input', () => {
    expect(() => mean([])).toThrow(MetricInputError);
    expect(() => mean([1, Number.NaN])).toThrow(/values\[1\]/);
    expect(() => stdDev([Number.POSITIVE_INFINITY])).toThrow(MetricInputError);
  });
});

describe('quantileSorted', () => {
  it('interpolates linearly between neighbours', () => {
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantileSorted([1, 2, 3, 4], 0)).toBe(1);
    expect(quantileSorted([1, 2, 3, 4], 1)).toBe(4);
    expect(quantileSorted([0, 10], 0.025)).toBeCloseTo(0.25, 12);
  });

  it('takes the nearer end next to an infinity instead of NaN', () => {
    expect(quantileSorted([1, Number.POSITIVE_INFINITY], 0.9)).toBe(Number.POSITIVE_INFINITY);
    expect(quantileSorted([1, Number.POSITIVE_INFINITY], 0.1)).toBe(1);
  });

  it('rejects an empty list or q outside [0, 1]', () => {
    expect(() => quantileSorted([], 0.5)).toThrow(MetricInputError);
    expect(() => quantileSorted([1], 1.5)).toThrow(/q/);
  });
});
