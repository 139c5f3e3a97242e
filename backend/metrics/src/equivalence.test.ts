import { describe, expect, it } from 'vitest';
import { renoEquivalentFlows } from './equivalence.js';
import { MetricInputError } from './guard.js';

const M = 1e6;
// Aggregates of n parallel Reno flows, saturating as they fill a 1 Gbit/s path.
const reno = [
  { flows: 1, aggregateBitPerS: 100 * M },
  { flows: 2, aggregateBitPerS: 190 * M },
  { flows: 4, aggregateBitPerS: 350 * M },
  { flows: 8, aggregateBitPerS: 560 * M },
  { flows: 16, aggregateBitPerS: 800 * M },
];

describe('renoEquivalentFlows (seed 002 equivalence test)', () => {
  it('hits measured points exactly', () => {
    expect(renoEquivalentFlows(reno, 190 * M)).toBe(2);
    expect(renoEquivalentFlows(reno, 800 * M)).toBe(16);
  });

  it('interpolates between measured counts', () => {
    // 475 lies between 4 flows (350) and 8 flows (560): 4 + 4·125/210
    expect(renoEquivalentFlows(reno, 475 * M)).toBeCloseTo(4 + (4 * 125) / 210, 12);
  });

  it('anchors at zero flows below the single-flow aggregate', () => {
    expect(renoEquivalentFlows(reno, 50 * M)).toBeCloseTo(0.5, 12);
    expect(renoEquivalentFlows(reno, 0)).toBe(0);
  });

  it('accepts measurements in any order', () => {
    expect(renoEquivalentFlows([...reno].reverse(), 475 * M)).toBeCloseTo(4 + (4 * 125) / 210, 12);
  });

  it('takes the first crossing when aggregates are noisy', () => {
    const noisy = [
      { flows: 1, aggregateBitPerS: 100 },
      { flows: 2, aggregateBitPerS: 190 },
      { flows: 3, aggregateBitPerS: 180 },
      { flows: 4, aggregateBitPerS: 260 },
    ];
    expect(renoEquivalentFlows(noisy, 185)).toBeCloseTo(1 + 85 / 90, 12);
  });

  it('is NaN when the stack outruns every measured Reno aggregate', () => {
    expect(renoEquivalentFlows(reno, 900 * M)).toBeNaN();
  });

  it('rejects malformed measurements', () => {
    expect(() => renoEquivalentFlows([], 1)).toThrow(/renoAggregates/);
    expect(() => renoEquivalentFlows([{ flows: 0, aggregateBitPerS: 1 }], 1)).toThrow(MetricInputError);
    expect(() => renoEquivalentFlows([{ flows: 1.5, aggregateBitPerS: 1 }], 1)).toThrow(/whole number/);
    const twice = [
      { flows: 2, aggregateBitPerS: 1 },
      { flows: 2, aggregateBitPerS: 2 },
    ];
    expect(() => renoEquivalentFlows(twice, 1)).toThrow(/measured twice/);
    expect(() => renoEquivalentFlows(reno, -1)).toThrow(/singleFlowBitPerS/);
  });
});
