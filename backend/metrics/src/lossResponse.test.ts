import { describe, expect, it } from 'vitest';
import { MetricInputError } from './guard.js';
import { windowReductionFactor } from './lossResponse.js';
import { windowRecoveries } from './recovery.js';
import { series } from './series.js';

describe('windowReductionFactor', () => {
  it('is the median of window after over window before', () => {
    // Reno-like halvings (100 → 50) and one CUBIC-like cut (100 → 70): the median is 0.5.
    const cwnd = series([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [100, 50, 75, 100, 50, 75, 100, 70, 85, 100]);
    const events = windowRecoveries(cwnd);
    expect(events).toHaveLength(3);
    expect(windowReductionFactor(events)).toBeCloseTo(0.5, 12);
    expect(windowReductionFactor(events.slice(2))).toBeCloseTo(0.7, 12);
  });

  it('is NaN for a flow that never reduced its window', () => {
    expect(windowReductionFactor([])).toBeNaN();
  });

  it('refuses a reduction from an empty window', () => {
    const bad = { peakAtS: 0, preLossWindow: 0, dropAtS: 1, bottomWindow: 0, recoveredAtS: 2, recoveryS: 1 };
    expect(() => windowReductionFactor([bad])).toThrow(MetricInputError);
  });
});
