import { describe, expect, it } from 'vitest';
import {
  fairnessByActiveSet,
  jainPerInterval,
  jainSecondHalf,
  jainWholeRun,
  meanThroughputs,
} from './fairnessOverTime.js';
import { series } from './series.js';

describe('whole run and second half (seed 001 TRT / SHT)', () => {
  // A takes 300 while B gets 100 for the first 50 s, then both settle at 200 until 100 s.
  const a = series([0, 50], [300, 200], 100);
  const b = series([0, 50], [100, 200], 100);

  it('averages each flow over the window', () => {
    expect(meanThroughputs([a, b], 0, 100)).toEqual([250, 150]);
  });

  it('counts the unfair start over the whole run', () => {
    // 400² / (2·(250² + 150²)) = 160000 / 170000
    expect(jainWholeRun([a, b], 100)).toBeCloseTo(16 / 17, 12);
  });

  it('sees only the settled state in the second half', () => {
    expect(jainSecondHalf([a, b], 100)).toBe(1);
  });

  it('throws when a flow has no data in the window', () => {
    const lateB = series([60], [200], 100);
    expect(() => jainSecondHalf([a, lateB], 100)).not.toThrow();
    expect(() => meanThroughputs([a, lateB], 0, 50)).toThrow(/flowsBitPerS\[1\] has no data/);
  });
});

describe('jainPerInterval', () => {
  it('uses the flows present in each interval', () => {
    const a = series([0, 20], [100, 300], 40);
    const b = series([20], [100], 40); // joins at 20 s
    const iv = jainPerInterval([a, b], 10);
    expect(iv.values).toHaveLength(4);
    expect(iv.values[0]).toBe(1); // A alone
    expect(iv.values[1]).toBe(1);
    expect(iv.values[2]).toBeCloseTo(0.8, 12); // 300 vs 100
    expect(iv.values[3]).toBeCloseTo(0.8, 12);
  });

  it('marks intervals without any data as NaN', () => {
    const a = series([20], [100], 30);
    expect(jainPerInterval([a], 10).values[0]).toBeNaN();
  });
});

describe('fairnessByActiveSet (seed 001 DST)', () => {
  const M = 1e6;
  const capacity = 600 * M;
  // Flow 0 from 0 s, flow 1 from 50 s, flow 2 from 100 s; run ends at 150 s.
  const flows = [
    { throughputBitPerS: series([0, 50, 100], [600 * M, 400 * M, 200 * M], 150), startS: 0 },
    { throughputBitPerS: series([50, 100], [200 * M, 200 * M], 150), startS: 50 },
    { throughputBitPerS: series([100], [200 * M], 150), startS: 100 },
  ];

  it('splits the run where the number of flows changes and uses Q_opt = B/n in each', () => {
    const parts = fairnessByActiveSet(flows, capacity, 150);
    expect(parts.map((p) => [p.fromS, p.toS, p.active])).toEqual([
      [0, 50, [0]],
      [50, 100, [0, 1]],
      [100, 150, [0, 1, 2]],
    ]);
    expect(parts.map((p) => p.fairShareBitPerS)).toEqual([600 * M, 300 * M, 200 * M]);
    expect(parts.map((p) => p.efficiency)).toEqual([1, 1, 1]);
    expect(parts[0]?.jain).toBe(1);
    // 400 vs 200 Mbit/s: 600² / (2·(400² + 200²)) = 0.9; P = 0.2·1 + 0.8·0.9 = 0.92
    expect(parts[1]?.jain).toBeCloseTo(0.9, 12);
    expect(parts[1]?.performance).toBeCloseTo(0.92, 12);
    expect(parts[2]?.jain).toBeCloseTo(1, 12);
  });

  it('can skip the newcomer ramp at the start of each stretch', () => {
    // Flow 1 gets nothing for its first 25 s, then an even split.
    const ramp = [
      { throughputBitPerS: series([0, 50, 75], [600 * M, 600 * M, 300 * M], 100), startS: 0 },
      { throughputBitPerS: series([50, 75], [0, 300 * M], 100), startS: 50 },
    ];
    const all = fairnessByActiveSet(ramp, capacity, 100);
    // Means over [50,100): 450 vs 150 → 600² / (2·(450² + 150²)) = 0.8
    expect(all[1]?.jain).toBeCloseTo(0.8, 12);
    const settled = fairnessByActiveSet(ramp, capacity, 100, { settleFraction: 0.5 });
    expect(settled[1]?.measuredFromS).toBe(75);
    expect(settled[1]?.jain).toBe(1);
  });

  it('handles flows that leave', () => {
    const parts = fairnessByActiveSet(
      [
        { throughputBitPerS: series([0], [300 * M], 100), startS: 0 },
        { throughputBitPerS: series([0], [300 * M], 40), startS: 0, stopS: 40 },
      ],
      capacity,
      100,
    );
    expect(parts.map((p) => p.active)).toEqual([[0, 1], [0]]);
    expect(parts[1]?.efficiency).toBe(0.5);
  });

  it('throws when a flow is declared active but has no data', () => {
    const silent = [{ throughputBitPerS: series([80], [1], 100), startS: 0 }];
    expect(() => fairnessByActiveSet(silent, capacity, 100)).not.toThrow();
    const silentEarly = [{ throughputBitPerS: series([80], [1], 100), startS: 0, stopS: 50 }];
    expect(() => fairnessByActiveSet(silentEarly, capacity, 100)).toThrow(
      /flows\[0\] is active but has no data/,
    );
  });

  it('validates its arguments', () => {
    expect(() => fairnessByActiveSet([], capacity, 100)).toThrow(/flows/);
    expect(() => fairnessByActiveSet(flows, 0, 150)).toThrow(/capacityBitPerS/);
    expect(() => fairnessByActiveSet(flows, capacity, 150, { settleFraction: 1 })).toThrow(/settleFraction/);
    const backwards = [{ throughputBitPerS: series([0], [1], 10), startS: 5, stopS: 2 }];
    expect(() => fairnessByActiveSet(backwards, capacity, 10)).toThrow(/startS < stopS/);
  });
});
