import { describe, expect, it } from 'vitest';
import { cpuModelRows, cpuModelText, ratioInterval } from './cpuModel.js';

describe('the CPU model A/B', () => {
  it('puts a 95 % t interval around the mean pace ratio of the pairs', () => {
    expect(ratioInterval([1.1])).toBeNull();
    const r = ratioInterval([1.1, 1.2, 1.15]);
    expect(r?.mean).toBeCloseTo(1.15, 10);
    // sd 0.05, t(0.975, 2) = 4.302653: half-width 4.302653 × 0.05 / √3.
    expect(r?.high).toBeCloseTo(1.15 + (4.302653 * 0.05) / Math.sqrt(3), 6);
    expect(r?.low).toBeCloseTo(1.15 - (4.302653 * 0.05) / Math.sqrt(3), 6);
  });
  it('keeps the t quantile beyond ten pairs, where a normal 1.96 would be too narrow', () => {
    // 12 pairs alternating 1.0 and 1.2: sd = 0.1044; t(0.975, 11) = 2.200985.
    const ratios = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? 1.0 : 1.2));
    const r = ratioInterval(ratios);
    const sd = Math.sqrt((12 * 0.01) / 11);
    expect(r?.high).toBeCloseTo(1.1 + (2.200985 * sd) / Math.sqrt(12), 5);
  });
  it('summarises each model over its runs', () => {
    const run = (model: string, pair: number, pace: number, cpu: number) => ({
      model,
      pair,
      pace,
      guestCpuPct: cpu,
      spacing: 0.95,
      verdict: 'suspect',
    });
    const rows = cpuModelRows({
      runs: [run('max', 0, 0.1, 57), run('max,-erms,-fsrm', 0, 0.11, 48), run('max', 1, 0.12, 55)],
      paceRatios: [1.1],
      ratio: null,
    });
    expect(rows[0]).toEqual(['max', 2, '0.110', '56.0 %', '95.0 %', 'suspect suspect']);
    expect(rows[1]?.[1]).toBe(1);
    expect(
      cpuModelText({ runs: [], paceRatios: [1.1, 1.2, 1.15], ratio: ratioInterval([1.1, 1.2, 1.15]) }),
    ).toMatch(/pace, second model over first: 1\.150 \(95 % t interval 1\.026 to 1\.274, 3 pairs\)$/);
  });
});
