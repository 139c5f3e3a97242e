import { describe, expect, it } from 'vitest';
import { MetricInputError } from './guard.js';
import { lnGamma, regularizedBeta, studentTCdf, studentTQuantile } from './studentT.js';

describe('lnGamma', () => {
  it('matches Γ at integers and half-integers', () => {
    expect(lnGamma(1)).toBeCloseTo(0, 12);
    expect(lnGamma(5)).toBeCloseTo(Math.log(24), 12);
    expect(lnGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
    // Γ(10.5) = 9.5 · 8.5 · … · 0.5 · √π
    let g = Math.sqrt(Math.PI);
    for (let x = 0.5; x < 10; x++) g *= x;
    expect(lnGamma(10.5)).toBeCloseTo(Math.log(g), 10);
  });
});

describe('regularizedBeta', () => {
  it('is x^a for b = 1 and symmetric under x ↔ 1 − x, a ↔ b', () => {
    expect(regularizedBeta(0.3, 2.5, 1)).toBeCloseTo(0.3 ** 2.5, 12);
    expect(regularizedBeta(0.8, 3, 1)).toBeCloseTo(0.8 ** 3, 12);
    expect(regularizedBeta(0.3, 2, 5)).toBeCloseTo(1 - regularizedBeta(0.7, 5, 2), 12);
    expect(regularizedBeta(0, 2, 3)).toBe(0);
    expect(regularizedBeta(1, 2, 3)).toBe(1);
  });
});

describe('Student t', () => {
  it('has the closed forms for 1 and 2 degrees of freedom', () => {
    for (const t of [-7, -1.3, 0, 0.4, 2, 25]) {
      expect(studentTCdf(t, 1)).toBeCloseTo(0.5 + Math.atan(t) / Math.PI, 12);
      expect(studentTCdf(t, 2)).toBeCloseTo(0.5 + t / (2 * Math.sqrt(2 + t * t)), 12);
    }
  });

  it('gives the two-sided 95 % quantiles of the tables', () => {
    const table: [number, number][] = [
      [1, 12.7062],
      [2, 4.3027],
      [3, 3.1824],
      [4, 2.7764],
      [5, 2.5706],
      [10, 2.2281],
      [30, 2.0423],
      [1e7, 1.96],
    ];
    for (const [df, q] of table) expect(studentTQuantile(0.975, df)).toBeCloseTo(q, 3);
    expect(studentTQuantile(0.025, 3)).toBeCloseTo(-3.1824, 3);
    expect(studentTQuantile(0.5, 3)).toBe(0);
  });

  it('takes fractional degrees of freedom, between its integer neighbours', () => {
    const q = studentTQuantile(0.975, 2.5);
    expect(q).toBeLessThan(studentTQuantile(0.975, 2));
    expect(q).toBeGreaterThan(studentTQuantile(0.975, 3));
    expect(studentTCdf(q, 2.5)).toBeCloseTo(0.975, 10);
  });

  it('names the bad argument', () => {
    expect(() => studentTQuantile(1, 3)).toThrow(MetricInputError);
    expect(() => studentTQuantile(0.9, 0)).toThrow(/degrees of freedom must be > 0 \(got 0\)/);
  });
});
