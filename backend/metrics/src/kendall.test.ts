import { describe, expect, it } from 'vitest';
import { MetricInputError } from './guard.js';
import { kendallTau, normalUpperTail } from './kendall.js';

/** Exact one-sided p-values by listing every arrangement of y (small n only), for checking. */
function bruteForce(x: number[], y: number[]): { pGreater: number; pLess: number } {
  const s0 = kendallTau(x, y).s;
  let ge = 0;
  let le = 0;
  let all = 0;
  const permute = (rest: number[], acc: number[]) => {
    if (!rest.length) {
      const s = kendallTau(x, acc).s;
      all++;
      if (s >= s0) ge++;
      if (s <= s0) le++;
      return;
    }
    rest.forEach((v, i) => {
      permute([...rest.slice(0, i), ...rest.slice(i + 1)], [...acc, v]);
    });
  };
  permute(y, []);
  return { pGreater: ge / all, pLess: le / all };
}

describe('kendallTau', () => {
  it('gives τ = 1 and p = 1/n! for a perfect order of distinct values', () => {
    const r = kendallTau([1, 2, 3, 4], [10, 20, 30, 40]);
    expect(r).toMatchObject({ tau: 1, s: 6, n: 4, method: 'exact' });
    expect(r.pGreater).toBeCloseTo(1 / 24, 12);
    expect(r.pLess).toBe(1);
    expect(kendallTau([1, 2, 3, 4, 5], [5, 6, 7, 8, 9]).pGreater).toBeCloseTo(1 / 120, 12);
  });

  it('mirrors for a reversed order', () => {
    const r = kendallTau([1, 2, 3, 4], [4, 3, 2, 1]);
    expect(r.tau).toBe(-1);
    expect(r.pLess).toBeCloseTo(1 / 24, 12);
    expect(r.pGreater).toBe(1);
  });

  it('counts one swapped pair: S = 10 − 2, P(S ≥ 8) = (1 + 4)/120', () => {
    // Permutations of 5 with 0 inversions: 1; with exactly 1: 4.
    const r = kendallTau([1, 2, 3, 4, 5], [1, 3, 2, 4, 5]);
    expect(r.s).toBe(8);
    expect(r.tau).toBeCloseTo(0.8, 12);
    expect(r.pGreater).toBeCloseTo(5 / 120, 12);
  });

  it('uses τ-b and the exact multiset distribution when x has ties', () => {
    // {a, a, b, b} has 6 arrangements; only one has no inversion. 4 pairs across groups, all agree.
    const r = kendallTau([1, 1, 2, 2], [1, 2, 3, 4]);
    expect(r.s).toBe(4);
    expect(r.tau).toBeCloseTo(4 / Math.sqrt(4 * 6), 12);
    expect(r.method).toBe('exact');
    expect(r.pGreater).toBeCloseTo(1 / 6, 12);
  });

  it('matches listing every arrangement, with ties in x (exact path)', () => {
    const x = [0, 0, 0, 1, 1, 1, 2, 2];
    const y = [1.1, 0.4, 2.2, 1.9, 3.5, 2.8, 4.1, 3.0];
    const r = kendallTau(x, y);
    const b = bruteForce(x, y);
    expect(r.method).toBe('exact');
    expect(r.pGreater).toBeCloseTo(b.pGreater, 10);
    expect(r.pLess).toBeCloseTo(b.pLess, 10);
  });

  it('approximates with the tie-corrected normal when both lists have ties', () => {
    const x = [0, 0, 0, 1, 1, 1, 2, 2];
    const y = [1, 1, 2, 2, 3, 3, 4, 2];
    const r = kendallTau(x, y);
    const b = bruteForce(x, y);
    expect(r.method).toBe('normal');
    expect(Math.abs(r.pGreater - b.pGreater)).toBeLessThan(0.02);
    expect(Math.abs(r.pLess - b.pLess)).toBeLessThan(0.02);
  });

  it('has no τ for a constant list, and p = 1 both ways', () => {
    const r = kendallTau([1, 1, 1], [1, 2, 3]);
    expect(r.tau).toBeNaN();
    expect(r.pGreater).toBe(1);
  });

  it('rejects mismatched, short or NaN input', () => {
    expect(() => kendallTau([1, 2], [1])).toThrow(MetricInputError);
    expect(() => kendallTau([1], [1])).toThrow(/at least 2/);
    expect(() => kendallTau([1, Number.NaN], [1, 2])).toThrow(/x\[1\]/);
  });
});

describe('normalUpperTail', () => {
  it('matches tabulated values', () => {
    expect(normalUpperTail(0)).toBeCloseTo(0.5, 6);
    expect(normalUpperTail(1.959964)).toBeCloseTo(0.025, 6);
    expect(normalUpperTail(-1.644854)).toBeCloseTo(0.95, 6);
    expect(normalUpperTail(3)).toBeCloseTo(0.0013499, 6);
  });
});
