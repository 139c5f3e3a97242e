// A share judged unit by unit: a unit whose interval allows several outcomes counts every way.
import { fastMean, seededUniform, smallSampleCi } from '@lfnlab/metrics';
import { describe, expect, it } from 'vitest';
import { bandEdges, creditRange, outcomesOf, shareRange, shareRangeText } from './decidedShare.js';
import { decide } from './judge.js';

describe('outcomesOf', () => {
  it('lists the outcomes an interval allows around a band, the observed one always', () => {
    expect([...outcomesOf({ low: 2, high: 5 }, 3, 1)]).toEqual([1]);
    expect([...outcomesOf({ low: -0.5, high: 5 }, 3, 1)].sort()).toEqual([0, 1]);
    expect([...outcomesOf({ low: -3, high: 5 }, 3, 1)].sort()).toEqual([-1, 0, 1]);
    expect([...outcomesOf({ low: -3, high: -2 }, -2.5, 0)]).toEqual([-1]);
    expect([...outcomesOf(null, 3, 1)].sort()).toEqual([-1, 0, 1]);
  });
});

describe('shareRange', () => {
  it('runs from the least credit to the most and counts the undecided units', () => {
    const units = [
      creditRange(new Set([1]), (o) => (o === 1 ? 1 : 0)),
      creditRange(new Set([0, 1]), (o) => (o === 1 ? 1 : o === 0 ? 0.5 : 0)),
      creditRange(new Set([-1]), (o) => (o === 1 ? 1 : 0)),
    ];
    expect(shareRange(units)).toMatchObject({ low: 1.5 / 3, high: 2 / 3, undecided: 1, units: 3 });
  });

  it('says how many repetitions would decide every undecided unit, the most any needs', () => {
    // Differences of 1.6 and 0.8, each sd 1 over 3 runs (t on 2 df, error 1/√3), tie band ±0.
    const ci = (d: number) => ({
      estimate: d,
      low: d - 2.48,
      high: d + 2.48,
      level: 0.95,
      resamples: 10,
      seed: 1,
      valid: 10,
      paired: true,
      bootstrap: { low: d - 1, high: d + 1 },
      t: { low: d - 2.48, high: d + 2.48, se: 1 / Math.sqrt(3), df: 2 },
    });
    const unit = (d: number) =>
      creditRange(new Set([-1, 0, 1]), (o) => (o === 1 ? 1 : 0), ci(d), { observed: d, edges: bandEdges(0) });
    // 1.6 from 0: at 4 runs 3.182 · 1/√4 = 1.59 clears it; 0.8 needs t(n-1)/√n < 0.8, n = 9.
    expect(unit(1.6).toDecide).toBe(4);
    expect(unit(0.8).toDecide).toBe(9);
    const decided = creditRange(new Set([1]), () => 1, ci(5), { observed: 5, edges: bandEdges(0) });
    expect(decided.toDecide).toBeUndefined();
    expect(shareRange([unit(1.6), unit(0.8), decided]).toDecide).toBe(9);
    expect(shareRange([unit(1.6), unit(0.01)]).toDecide).toBeNull();
    expect(shareRange([decided]).toDecide).toBeUndefined();
  });

  it('says how many units were undecided, one unit in the singular', () => {
    const paired = {
      estimate: 1,
      low: 1,
      high: 1,
      level: 0.95,
      resamples: 10,
      seed: 1,
      valid: 10,
      paired: true,
      bootstrap: { low: 1, high: 1 },
      t: null,
    };
    const one = shareRange([creditRange(new Set([1]), () => 1, paired)]);
    expect(shareRangeText(one, 'pairs')).toBe('1 to 1 (0 of 1 pair undecided, paired by seed)');
    const units = [creditRange(new Set([1]), () => 1), creditRange(new Set([0, 1]), (o) => o)];
    expect(shareRangeText(shareRange(units), 'signs')).toBe('0.5 to 1 (1 of 2 signs undecided)');
  });
});

// Six pairs, three normal runs per cell, the claim needing 75 % of pairs in the paper's order.
// Judged by the bootstrap of the share, a true share of 5 of 6 at margins of 0.5 σ failed in about
// 15 % of trials; counted unit by unit it must rarely fail, and a true 4 of 6 must rarely hold.
describe('deciding a share of pairs at three runs per cell', () => {
  const random = seededUniform(77);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const diff = (g: readonly (readonly number[])[]) => fastMean(g[0] as number[]) - fastMean(g[1] as number[]);
  function verdicts(margins: number[], sims: number) {
    const out = { holds: 0, fails: 0, inconclusive: 0 };
    for (let s = 0; s < sims; s++) {
      const units = margins.map((m, k) => {
        const a = [m + normal(), m + normal(), m + normal()];
        const b = [normal(), normal(), normal()];
        const ci = smallSampleCi([a, b], diff, { resamples: 300, seed: s * 10 + k + 1 });
        return creditRange(outcomesOf(ci, diff([a, b]), 0), (o) => (o === 1 ? 1 : o === 0 ? 0.5 : 0));
      });
      out[decide(shareRange(units), { lo: 0.75, hi: 1 })]++;
    }
    return out;
  }

  it('rarely fails a share that truly holds (5 of 6 pairs at 0.5 σ)', () => {
    const v = verdicts([0.5, 0.5, 0.5, 0.5, 0.5, -0.5], 300);
    expect(v.fails / 300).toBeLessThan(0.05);
  });

  it('rarely holds a share that truly fails (4 of 6 pairs at 1 σ)', () => {
    const v = verdicts([1, 1, 1, 1, -1, -1], 300);
    expect(v.holds / 300).toBeLessThan(0.05);
  });

  it('still decides when the pairs are far apart (6 of 6 at 5 σ)', () => {
    const v = verdicts([5, 5, 5, 5, 5, 5], 100);
    expect(v.holds / 100).toBeGreaterThan(0.9);
  });
});
