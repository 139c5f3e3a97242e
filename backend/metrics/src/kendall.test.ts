import { describe, expect, it } from 'vitest';
import { MetricInputError } from './guard.js';
import { kendallTau, normalUpperQuantile, normalUpperTail, stratifiedKendall } from './kendall.js';

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

describe('normalUpperQuantile', () => {
  it('inverts normalUpperTail at tabulated points', () => {
    expect(normalUpperQuantile(0.5)).toBeCloseTo(0, 6);
    expect(normalUpperQuantile(0.05)).toBeCloseTo(1.644854, 5);
    expect(normalUpperQuantile(0.975)).toBeCloseTo(-1.959964, 5);
    expect(normalUpperQuantile(0.0013499)).toBeCloseTo(3, 4);
  });

  it('rejects a p outside (0, 1)', () => {
    expect(() => normalUpperQuantile(0)).toThrow(/p must be in \(0, 1\)/);
    expect(() => normalUpperQuantile(1.2)).toThrow(MetricInputError);
  });
});

describe('kendallTau over points that share units', () => {
  // 70 untied points (past the exact range): S's variance without ties is n(n−1)(2n+5)/18.
  const n = 70;
  const x = Array.from({ length: n }, (_, i) => i);
  const y = x.map((i) => (i * 37) % n);
  const pairs = x.map((i) => Math.floor(i / 2));

  it('is the plain test when every point is its own unit', () => {
    const plain = kendallTau([1, 2, 3, 4, 5], [1, 3, 2, 4, 5]);
    const own = kendallTau([1, 2, 3, 4, 5], [1, 3, 2, 4, 5], { units: ['a', 'b', 'c', 'd', 'e'] });
    expect(own).toEqual(plain);
    expect(own.designEffect).toBeUndefined();
  });

  it("multiplies S's variance by points over units, and claims no exact tail", () => {
    const r = kendallTau(x, y, { units: pairs });
    const plain = kendallTau(x, y);
    expect(r.s).toBe(plain.s);
    expect(r.tau).toBe(plain.tau);
    expect(r.designEffect).toBe(2);
    const sd = Math.sqrt(((n * (n - 1) * (2 * n + 5)) / 18) * 2);
    expect(r.pGreater).toBeCloseTo(normalUpperTail((r.s - 1) / sd), 12);
    expect(r.pLess).toBeCloseTo(normalUpperTail((-r.s - 1) / sd), 12);
    // Small n would be exact alone; shared units fall back to the normal law.
    expect(kendallTau([1, 2, 3, 4], [1, 2, 3, 4], { units: [1, 1, 2, 2] }).method).toBe('normal');
  });

  it('names the units that do not match the points', () => {
    expect(() => kendallTau([1, 2, 3], [1, 2, 3], { units: [1, 2] })).toThrow(
      /units must name one unit per point \(got 2 for 3 points\)/,
    );
    expect(() => stratifiedKendall([{ x: [1, 2], y: [1, 2], units: [1] }])).toThrow(/stratum 0: units/);
  });

  it('carries the design effect through strata', () => {
    const r = stratifiedKendall([
      { x, y, units: pairs },
      { x, y, units: x },
    ]);
    expect(r.designEffect).toBeCloseTo(140 / 105, 12);
    const sd = Math.sqrt(((n * (n - 1) * (2 * n + 5)) / 18) * 3);
    expect(r.pGreater).toBeCloseTo(normalUpperTail((r.s - 1) / sd), 12);
  });
});

/** Every arrangement of a list (for small brute-force checks). */
function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}

describe('stratifiedKendall', () => {
  const ranks = [2, 2, 1, 1, 0, 0];

  it('is Kendall’s test itself for one stratum', () => {
    const y = [9, 7, 8, 5, 6, 1];
    const one = stratifiedKendall([{ x: ranks, y }]);
    const plain = kendallTau(ranks, y);
    expect(one.s).toBe(plain.s);
    expect(one.tau).toBeCloseTo(plain.tau, 12);
    expect(one.pGreater).toBeCloseTo(plain.pGreater, 12);
    expect(one.pLess).toBeCloseTo(plain.pLess, 12);
    expect(one.strata).toBe(1);
  });

  it('gives the exact tail of ΣS: every arrangement within each stratum counted', () => {
    const a = { x: ranks, y: [9, 7, 8, 5, 6, 1] };
    const b = { x: [1, 1, 0, 0], y: [3, 0.5, 2, 1] };
    const r = stratifiedKendall([a, b]);
    const sOf = (x: readonly number[], y: readonly number[]) =>
      x.reduce((acc, _, i) => {
        let t = acc;
        for (let j = i + 1; j < x.length; j++)
          t +=
            Math.sign((x[i] as number) - (x[j] as number)) * Math.sign((y[i] as number) - (y[j] as number));
        return t;
      }, 0);
    let atLeast = 0;
    let all = 0;
    for (const pa of permutations(a.y))
      for (const pb of permutations(b.y)) {
        all++;
        if (sOf(a.x, pa) + sOf(b.x, pb) >= r.s) atLeast++;
      }
    expect(r.method).toBe('exact');
    expect(r.pGreater).toBeCloseTo(atLeast / all, 12);
  });

  it('finds an order that a load moving every item together hides from the pooled test', () => {
    // Three items × two runs at four background levels: within each level the order is perfect, but
    // each level lowers every item by more than the items differ.
    const strata = [80, 60, 40, 20].map((base) => ({
      x: ranks,
      y: [5, 4.5, 3, 2.5, 1, 0.5].map((d) => base + d),
    }));
    const pooled = kendallTau(
      strata.flatMap((s) => s.x),
      strata.flatMap((s) => s.y),
    );
    const within = stratifiedKendall(strata);
    expect(pooled.pGreater).toBeGreaterThan(0.05);
    // As high as τ-b goes with the items' runs tied in x: the same as in any one level.
    expect(within.tau).toBeCloseTo(kendallTau(ranks, strata[0]?.y ?? []).tau, 12);
    expect(within.pGreater).toBeLessThan(1e-4);
    expect(within.strata).toBe(4);
  });

  it('leaves out strata that cannot speak (one item, or all values equal) and falls back to the normal law with ties on both sides', () => {
    const r = stratifiedKendall([
      { x: [1, 1, 1], y: [3, 2, 1] },
      { x: [1, 0], y: [2, 2] },
      { x: ranks, y: [9, 9, 8, 5, 6, 1] },
    ]);
    expect(r.strata).toBe(1);
    expect(r.method).toBe('normal');
    expect(stratifiedKendall([{ x: [1], y: [1] }])).toMatchObject({ strata: 0, pGreater: 1, pLess: 1 });
  });
});
