import { describe, expect, it } from 'vitest';
import { MetricInputError } from './guard.js';
import { goodputShare, timeToLinkShare } from './linkShare.js';
import { series } from './series.js';

describe('goodputShare', () => {
  it('is goodput over capacity', () => {
    expect(goodputShare(80e6, 100e6)).toBeCloseTo(0.8, 12);
    expect(goodputShare(0, 100e6)).toBe(0);
  });

  it('refuses a capacity of zero and a negative goodput', () => {
    expect(() => goodputShare(1e6, 0)).toThrow(MetricInputError);
    expect(() => goodputShare(-1, 1e6)).toThrow(/goodputBitPerS/);
  });
});

describe('timeToLinkShare', () => {
  // 1 s steps: 20, 50, 95, 99 Mbit/s on a 100 Mbit/s link, starting at 2 s.
  const ramp = series([2, 3, 4, 5], [20e6, 50e6, 95e6, 99e6], 6);

  it('is the first time the rate reaches the share of the capacity, from the start', () => {
    expect(timeToLinkShare(ramp, 100e6, { startS: 2 })).toBe(2);
    expect(timeToLinkShare(ramp, 100e6, { fraction: 0.5, startS: 2 })).toBe(1);
  });

  it('measures against the link, not the flow’s own maximum', () => {
    // 99 % of a 100 Mbit/s link is reached; 90 % of 120 Mbit/s (108) never is.
    expect(timeToLinkShare(ramp, 120e6, { startS: 2 })).toBeNaN();
  });

  it('refuses a fraction outside (0, 1]', () => {
    expect(() => timeToLinkShare(ramp, 100e6, { fraction: 1.2 })).toThrow(/fraction must be in \(0, 1\]/);
  });
});
