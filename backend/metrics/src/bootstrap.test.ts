import { describe, expect, it } from 'vitest';
import { bootstrapCi, fastMean, seededUniform, seedFromText } from './bootstrap.js';
import { MetricInputError } from './guard.js';

const meanOf = (g: readonly (readonly number[])[]) => fastMean(g[0] as number[]);

describe('seededUniform', () => {
  it('repeats its sequence for a seed and stays in [0, 1)', () => {
    const a = seededUniform(42);
    const b = seededUniform(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(fastMean(xs)).toBeCloseTo(0.5, 1);
    expect(seededUniform(43)()).not.toBe(seededUniform(42)());
  });

  it('derives a stable seed from a text', () => {
    expect(seedFromText('order.short')).toBe(seedFromText('order.short'));
    expect(seedFromText('order.short')).not.toBe(seedFromText('order.long'));
  });
});

describe('bootstrapCi', () => {
  it('gives the same interval for the same samples and seed', () => {
    const g = [[3.1, 2.7, 3.9, 3.3, 2.8, 3.5]];
    const a = bootstrapCi(g, meanOf, { seed: 7 });
    expect(a).toEqual(bootstrapCi(g, meanOf, { seed: 7 }));
    expect(a).toMatchObject({ level: 0.95, resamples: 10_000, seed: 7, valid: 10_000 });
    expect(a?.estimate).toBeCloseTo(3.2167, 3);
    expect(a?.low).toBeLessThan(a?.estimate as number);
    expect(a?.high).toBeGreaterThan(a?.estimate as number);
  });

  it('spans the range for two values (means 0, ½, 1 with chances ¼, ½, ¼)', () => {
    const ci = bootstrapCi([[0, 1]], meanOf, { resamples: 4000 });
    expect(ci).toMatchObject({ low: 0, high: 1, estimate: 0.5 });
  });

  it('collapses to a point when every value is the same', () => {
    expect(bootstrapCi([[5, 5, 5]], meanOf)).toMatchObject({ low: 5, high: 5 });
  });

  it('resamples each group on its own (a difference of two cells)', () => {
    const diff = (g: readonly (readonly number[])[]) =>
      fastMean(g[0] as number[]) - fastMean(g[1] as number[]);
    const ci = bootstrapCi(
      [
        [10, 10.5, 9.5, 10.2, 9.8],
        [5, 5.5, 4.5, 5.2, 4.8],
      ],
      diff,
    );
    expect(ci?.estimate).toBeCloseTo(5, 12);
    expect(ci?.low).toBeGreaterThan(4.4);
    expect(ci?.high).toBeLessThan(5.6);
  });

  it('draws whole blocks when every group holds the same blocks: a shared seed effect cancels', () => {
    const diff = (g: readonly (readonly number[])[]) =>
      fastMean(g[0] as number[]) - fastMean(g[1] as number[]);
    // Each repetition's seed moves both cells by tens; one cell is always 1 above the other.
    const groups = [
      [10, 40, 25],
      [24, 9, 39],
    ];
    const blocks = [
      [1, 2, 3],
      [3, 1, 2],
    ];
    const paired = bootstrapCi(groups, diff, { blocks });
    expect(paired).toMatchObject({ estimate: 1, low: 1, high: 1, paired: true });
    const apart = bootstrapCi(groups, diff);
    expect(apart?.paired).toBe(false);
    expect((apart?.high ?? 0) - (apart?.low ?? 0)).toBeGreaterThan(20);
    // A block missing from one group (an invalid run left out): each group on its own again.
    expect(
      bootstrapCi(
        [
          [10, 40, 25],
          [31, 9],
        ],
        diff,
        {
          blocks: [
            [1, 2, 3],
            [3, 1],
          ],
        },
      )?.paired,
    ).toBe(false);
    // A block twice in a group, or a single group: nothing to pair.
    expect(
      bootstrapCi(groups, diff, {
        blocks: [
          [1, 1, 3],
          [3, 1, 2],
        ],
      })?.paired,
    ).toBe(false);
    expect(bootstrapCi([[1, 2, 3]], meanOf, { blocks: [[1, 2, 3]] })?.paired).toBe(false);
  });

  it('covers the true mean about 95 % of the time (fixed seeds)', () => {
    // Samples of 30 from uniform [0, 1): true mean ½. The percentile interval runs a little narrow
    // at this size, so accept 88–99 % over 200 trials.
    const draw = seededUniform(2026);
    let covered = 0;
    const trials = 200;
    for (let t = 0; t < trials; t++) {
      const sample = Array.from({ length: 30 }, () => draw());
      const ci = bootstrapCi([sample], meanOf, { resamples: 2000, seed: t + 1 });
      if (ci && ci.low <= 0.5 && ci.high >= 0.5) covered++;
    }
    expect(covered / trials).toBeGreaterThan(0.88);
    expect(covered / trials).toBeLessThan(0.99);
  });

  it('is null when the statistic does not exist, and drops replicates where it does not', () => {
    const ratio = (g: readonly (readonly number[])[]) => {
      const d = fastMean(g[1] as number[]);
      return d === 0 ? Number.NaN : fastMean(g[0] as number[]) / d;
    };
    expect(
      bootstrapCi(
        [
          [1, 2],
          [0, 0],
        ],
        ratio,
      ),
    ).toBeNull();
    const ci = bootstrapCi(
      [
        [1, 2, 3],
        [0, 2, 2],
      ],
      ratio,
      { resamples: 1000 },
    );
    expect(ci?.valid).toBeLessThan(1000); // the replicates that drew three zeros
    expect(ci?.valid).toBeGreaterThan(900);
  });

  it('keeps infinities ("never happened") in order', () => {
    const ci = bootstrapCi([[Number.POSITIVE_INFINITY, 120, 130]], meanOf, { resamples: 1000 });
    expect(ci?.estimate).toBe(Number.POSITIVE_INFINITY);
    expect(ci?.low).toBeGreaterThanOrEqual(120);
    expect(ci?.high).toBe(Number.POSITIVE_INFINITY);
  });

  it('rejects empty groups and levels outside (0, 1)', () => {
    expect(() => bootstrapCi([], meanOf)).toThrow(MetricInputError);
    expect(() => bootstrapCi([[]], meanOf)).toThrow(/groups\[0\]/);
    expect(() => bootstrapCi([[1]], meanOf, { level: 1 })).toThrow(/level/);
    expect(() => bootstrapCi([[1]], meanOf, { resamples: 0 })).toThrow(/resamples/);
  });
});
