import { describe, expect, it } from 'vitest';
import { MetricInputError } from './guard.js';
import { rttInflation } from './rttInflation.js';

describe('rttInflation', () => {
  it('is the mean loaded RTT over the idle RTT', () => {
    // A 1-BDP queue kept full doubles a 120 ms path's RTT.
    expect(rttInflation([240, 240, 240], 120)).toBeCloseTo(2, 12);
    expect(rttInflation([120, 180], 120)).toBeCloseTo(1.25, 12);
  });

  it('refuses no samples and an idle RTT of zero', () => {
    expect(() => rttInflation([], 120)).toThrow(MetricInputError);
    expect(() => rttInflation([130], 0)).toThrow(/idleRttMs/);
  });
});
