import { describe, expect, it } from 'vitest';
import {
  asymmetry,
  bottleneckJain,
  efficiency,
  fairShare,
  jainIndex,
  jainIndexNormalised,
  performanceScore,
} from './fairness.js';
import { MetricInputError } from './guard.js';

const M = 1e6;

describe('jainIndex', () => {
  it('is 1 for equal shares', () => {
    expect(jainIndex([7, 7, 7, 7])).toBe(1);
    expect(jainIndex([42])).toBe(1);
  });

  it('is 1/n when one flow takes everything', () => {
    expect(jainIndex([100, 0])).toBe(1 / 2);
    expect(jainIndex([0, 0, 0, 0, 0, 9])).toBeCloseTo(1 / 6, 12);
  });

  it('matches a hand-worked uneven split', () => {
    // (400)² / (2·(300² + 100²)) = 160000 / 200000
    expect(jainIndex([300, 100])).toBeCloseTo(0.8, 12);
    // (200+150+100+50)² / (4·(200²+150²+100²+50²)) = 250000 / 300000
    expect(jainIndex([200, 150, 100, 50])).toBeCloseTo(5 / 6, 12);
  });

  it('does not depend on the unit', () => {
    expect(jainIndex([300 * M, 100 * M])).toBeCloseTo(jainIndex([300, 100]), 12);
  });

  it('is undefined (NaN) when no flow moved data', () => {
    expect(jainIndex([0, 0])).toBeNaN();
  });
});

describe('bottleneckJain (one path, one direction)', () => {
  it('is jainIndex of the flows sharing the bottleneck', () => {
    expect(bottleneckJain([10, 30])).toBeCloseTo(jainIndex([10, 30]), 12);
    expect(bottleneckJain([5, 5, 5])).toBe(1);
  });

  it('has no index for one flow, a flow without goodput, or no traffic at all', () => {
    expect(bottleneckJain([42])).toBeNull();
    expect(bottleneckJain([])).toBeNull();
    expect(bottleneckJain([10, null])).toBeNull();
    expect(bottleneckJain([0, 0])).toBeNull();
  });
});

describe('jainIndexNormalised (seed 001 eq. 7)', () => {
  it('equals the plain index: Q_opt = B/n cancels', () => {
    const q = [200 * M, 150 * M, 100 * M, 50 * M];
    expect(jainIndexNormalised(q, 622 * M)).toBeCloseTo(5 / 6, 12);
    expect(jainIndexNormalised(q, 10_000 * M)).toBeCloseTo(5 / 6, 12);
  });

  it('still validates the capacity', () => {
    expect(() => jainIndexNormalised([1, 2], 0)).toThrow(/capacityBitPerS/);
  });
});

describe('fairShare', () => {
  it('is B/n', () => {
    expect(fairShare(622 * M, 2)).toBe(311 * M);
    expect(() => fairShare(622 * M, 1.5)).toThrow(/whole number/);
  });
});

describe('asymmetry (seed 000 §5.2)', () => {
  it('spans +1 (starves the other) to −1 (starved)', () => {
    expect(asymmetry(10, 0)).toBe(1);
    expect(asymmetry(0, 10)).toBe(-1);
    expect(asymmetry(5, 5)).toBe(0);
    expect(asymmetry(0, 0)).toBeNaN();
  });

  // seed 000 Table 4: Mbit/s to UFL with 8 MB windows, [with reverse traffic, without].
  // A(with, without) measures how much the reverse 16-stream Reno costs each stack.
  const table4: Record<string, [number, number, number]> = {
    //          with  without  A by hand = (with − without)/(with + without)
    'Bic-TCP': [230, 400, -170 / 630],
    Fast: [20, 260, -240 / 280],
    'HS-TCP': [110, 380, -270 / 490],
    'HSTCP-LP': [220, 380, -160 / 600],
    'H-TCP': [220, 380, -160 / 600],
    'P-TCP': [200, 380, -180 / 580],
    'S-TCP': [280, 400, -120 / 680],
  };

  it.each(Object.entries(table4))(
    'turns Table 4 %s into its asymmetry',
    (_stack, [withRev, withoutRev, a]) => {
      expect(asymmetry(withRev, withoutRev)).toBeCloseTo(a, 12);
    },
  );

  it('ranks Fast TCP as the stack hurt most by reverse traffic, S-TCP least (seed 000 §5.3)', () => {
    const a = Object.entries(table4).map(([stack, [w, wo]]) => [stack, asymmetry(w, wo)] as const);
    const sorted = [...a].sort((x, y) => x[1] - y[1]).map(([stack]) => stack);
    expect(sorted[0]).toBe('Fast');
    expect(sorted.at(-1)).toBe('S-TCP');
    expect(asymmetry(20, 260)).toBeCloseTo(-0.857, 3);
    expect(asymmetry(280, 400)).toBeCloseTo(-0.176, 3);
  });

  it('is antisymmetric and unit-free', () => {
    expect(asymmetry(400, 230)).toBeCloseTo(-asymmetry(230, 400), 12);
    expect(asymmetry(230 * M, 400 * M)).toBeCloseTo(asymmetry(230, 400), 12);
  });
});

describe('efficiency (seed 001 eq. 8)', () => {
  it('is ΣQ/B', () => {
    expect(efficiency([200 * M, 150 * M, 100 * M, 50 * M], 622 * M)).toBeCloseTo(500 / 622, 12);
    expect(efficiency([0, 0], 1)).toBe(0);
  });

  it('is not clamped, so a layer mix-up stays visible', () => {
    expect(efficiency([700 * M], 622 * M)).toBeGreaterThan(1);
  });

  it('rejects zero capacity', () => {
    expect(() => efficiency([1], 0)).toThrow(/capacityBitPerS/);
  });
});

describe('performanceScore (seed 001 eq. 10)', () => {
  it('weights efficiency 0.2 and fairness 0.8 by default: hand-worked 4 flows on 622 Mbit/s', () => {
    // Q = 200, 150, 100, 50 Mbit/s on B = 622 Mbit/s:
    //   E = 500/622 = 0.803859..., F = 5/6 = 0.833333...
    //   P = 0.2·0.803859 + 0.8·0.833333 = 0.160772 + 0.666667 = 0.827438
    const q = [200 * M, 150 * M, 100 * M, 50 * M];
    const e = efficiency(q, 622 * M);
    const f = jainIndexNormalised(q, 622 * M);
    expect(performanceScore(e, f)).toBeCloseTo(0.827438, 6);
  });

  it('rewards a full link: the same split on a 500 Mbit/s link scores 0.2·1 + 0.8·5/6', () => {
    expect(performanceScore(1, 5 / 6)).toBeCloseTo(0.2 + (0.8 * 5) / 6, 12);
  });

  it('takes another α', () => {
    expect(performanceScore(0.5, 1, 0.5)).toBe(0.75);
  });

  it('requires 0 < α < 1 and a fairness in [0, 1]', () => {
    expect(() => performanceScore(1, 1, 0)).toThrow(/alpha/);
    expect(() => performanceScore(1, 1, 1)).toThrow(/alpha/);
    expect(() => performanceScore(1, 1.2)).toThrow(/fairnessIndex/);
    expect(() => performanceScore(-0.1, 1)).toThrow(MetricInputError);
  });
});
