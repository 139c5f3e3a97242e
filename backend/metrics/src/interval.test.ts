import { describe, expect, it } from 'vitest';
import { fastMean, seededUniform } from './bootstrap.js';
import { smallSampleCi } from './interval.js';
import { jackknifeError } from './jackknife.js';
import { studentTQuantile } from './studentT.js';

type Groups = readonly (readonly number[])[];
const meanOf = (g: Groups) => fastMean(g[0] as number[]);
const difference = (g: Groups) => fastMean(g[0] as number[]) - fastMean(g[1] as number[]);

function sampleSd(xs: readonly number[]): number {
  const m = fastMean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
}

describe('jackknifeError', () => {
  it('is s/√n with n − 1 degrees of freedom for a mean', () => {
    const xs = [3.1, 2.7, 3.9];
    const j = jackknifeError([xs], meanOf);
    expect(j?.se).toBeCloseTo(sampleSd(xs) / Math.sqrt(3), 12);
    expect(j).toMatchObject({ df: 2, paired: false });
  });

  it('adds independent groups with Welch–Satterthwaite degrees of freedom', () => {
    const a = [10, 12, 11, 13];
    const b = [7, 9, 8];
    const j = jackknifeError([a, b], difference);
    const va = sampleSd(a) ** 2 / a.length;
    const vb = sampleSd(b) ** 2 / b.length;
    expect(j?.se).toBeCloseTo(Math.sqrt(va + vb), 12);
    expect(j?.df).toBeCloseTo((va + vb) ** 2 / (va ** 2 / 3 + vb ** 2 / 2), 10);
  });

  it('leaves out whole blocks when the groups are paired: the paired-t error', () => {
    const a = [10, 12, 15];
    const b = [9, 11.5, 13];
    const j = jackknifeError([a, b], difference, [
      [1, 2, 3],
      [1, 2, 3],
    ]);
    const d = a.map((x, i) => x - (b[i] as number));
    expect(j?.se).toBeCloseTo(sampleSd(d) / Math.sqrt(3), 12);
    expect(j).toMatchObject({ df: 2, paired: true });
  });

  it('cannot say with one sample in a group or a statistic that is infinite', () => {
    expect(jackknifeError([[1, 2], [3]], difference)).toBeNull();
    expect(jackknifeError([[1, 2, Number.POSITIVE_INFINITY]], meanOf)).toBeNull();
  });
});

describe('smallSampleCi', () => {
  it('is the t interval for a mean of three, wider than the bootstrap there', () => {
    const xs = [3.1, 2.7, 3.9];
    const ci = smallSampleCi([xs], meanOf, { seed: 3 });
    const half = (studentTQuantile(0.975, 2) * sampleSd(xs)) / Math.sqrt(3);
    expect(ci?.low).toBeCloseTo(fastMean(xs) - half, 10);
    expect(ci?.high).toBeCloseTo(fastMean(xs) + half, 10);
    // The bootstrap cannot leave [min, max].
    expect(ci?.bootstrap.low).toBeGreaterThanOrEqual(2.7);
    expect(ci?.bootstrap.high).toBeLessThanOrEqual(3.9);
    expect(ci?.t).toMatchObject({ df: 2 });
  });

  it('clips the t interval to the statistic’s range', () => {
    const share = (g: Groups) => (g[0] as number[]).filter((x) => x > 0).length / (g[0] as number[]).length;
    const ci = smallSampleCi([[1, 2, -1, 3]], share, { bounds: [0, 1] });
    expect(ci?.high).toBeLessThanOrEqual(1);
    expect(ci?.low).toBeGreaterThanOrEqual(0);
  });

  it('keeps the bootstrap alone where the jackknife cannot say', () => {
    const ci = smallSampleCi([[1, 2, Number.POSITIVE_INFINITY]], meanOf);
    expect(ci?.t).toBeNull();
    expect(ci?.high).toBe(Number.POSITIVE_INFINITY);
  });

  // The reason it exists: over seeded normal samples of 3, the percentile bootstrap covers the
  // mean about 75 % of the time; this interval must cover it about 95 % of the time.
  it('covers the mean of three normal samples about 95 % of the time, where the bootstrap does not', () => {
    const random = seededUniform(2024);
    const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const sims = 600;
    let ours = 0;
    let boot = 0;
    for (let s = 0; s < sims; s++) {
      const xs = [normal(), normal(), normal()];
      const ci = smallSampleCi([xs], meanOf, { resamples: 400, seed: s + 1 });
      if (ci && ci.low <= 0 && ci.high >= 0) ours++;
      if (ci && ci.bootstrap.low <= 0 && ci.bootstrap.high >= 0) boot++;
    }
    expect(ours / sims).toBeGreaterThan(0.92);
    expect(boot / sims).toBeLessThan(0.85);
  });
});
