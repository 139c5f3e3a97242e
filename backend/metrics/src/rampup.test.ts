import { describe, expect, it } from 'vitest';
import { MetricInputError } from './guard.js';
import { rampUp } from './rampup.js';
import { series } from './series.js';

const M = 1e6;

/** Idle for 10 s, then 100 Mbit/s until 110 s. Whole-transfer average: 100·100/110 Mbit/s. */
const idleThenFull = series([0, 10], [0, 100 * M], 110);

/** A step ramp: 10·k Mbit/s in second k for k = 0..9, then 100 Mbit/s until 20 s. */
const ramp = series(
  Array.from({ length: 11 }, (_, k) => k),
  Array.from({ length: 11 }, (_, k) => Math.min(10 * k, 100) * M),
  20,
);

describe('rampUp, cumulative basis (seed 004)', () => {
  it('takes the whole transfer average as maximum and solves the running-average crossings', () => {
    const r = rampUp(idleThenFull);
    expect(r.basis).toBe('cumulative');
    expect(r.maxBitPerS).toBeCloseTo((100 * M * 100) / 110, 3);
    // Running average 100·(u − 10)/u reaches f·1000/11 at u = 1000 / (100 − f·1000/11):
    //   f = 0.5 → u = 11000/600 = 18.33 s; f = 0.9 → u = 55 s. Bytes = 100 Mbit/s · (u − 10) / 8.
    const [p50, p90] = r.points;
    expect(p50?.elapsedS).toBeCloseTo(11000 / 600, 9);
    expect(p50?.bytes).toBeCloseTo((100 * M * (11000 / 600 - 10)) / 8, 0);
    expect(p90?.elapsedS).toBeCloseTo(55, 9);
    expect(p90?.bytes).toBeCloseTo(562.5e6, 0);
  });

  it('reaches the maximum itself exactly at the end', () => {
    const [p100] = rampUp(idleThenFull, { fractions: [1] }).points;
    expect(p100?.elapsedS).toBeCloseTo(110, 9);
  });

  it('solves crossings inside a sample on a ramp', () => {
    // Total 450 + 1000 Mbit over 20 s → max 72.5 Mbit/s.
    //   50 %: target 36.25; after 8 s the data is 280 Mbit; in second 8 the rate is 80:
    //         (280 + 80·(u − 8)) / u = 36.25 → u = (640 − 280) / (80 − 36.25)
    //   90 %: target 65.25; after 10 s the data is 450 Mbit; then 100:
    //         u = (1000 − 450) / (100 − 65.25)
    const r = rampUp(ramp);
    expect(r.maxBitPerS).toBeCloseTo(72.5 * M, 3);
    const u50 = 360 / 43.75;
    const u90 = 550 / 34.75;
    expect(r.points[0]?.elapsedS).toBeCloseTo(u50, 9);
    expect(r.points[0]?.bytes).toBeCloseTo(((280 + 80 * (u50 - 8)) * M) / 8, 0);
    expect(r.points[1]?.elapsedS).toBeCloseTo(u90, 9);
    expect(r.points[1]?.bytes).toBeCloseTo(((450 + 100 * (u90 - 10)) * M) / 8, 0);
  });

  it('counts from startS and honours an explicit maximum', () => {
    const r = rampUp(idleThenFull, { startS: 10, maxBitPerS: 100 * M, fractions: [0.5] });
    // Full rate from the (new) start: the running average is 100 from the first instant.
    expect(r.points[0]).toMatchObject({ reachedAtS: 10, elapsedS: 0, bytes: 0 });
  });
});

describe('rampUp, instantaneous basis', () => {
  it('uses the peak rate and the first sample at or above the target', () => {
    const r = rampUp(ramp, { basis: 'instantaneous' });
    expect(r.maxBitPerS).toBe(100 * M);
    // 50 Mbit/s first at 5 s after 0+10+20+30+40 = 100 Mbit; 90 at 9 s after 360 Mbit.
    expect(r.points[0]).toMatchObject({ reachedAtS: 5, elapsedS: 5, bytes: (100 * M) / 8 });
    expect(r.points[1]).toMatchObject({ reachedAtS: 9, elapsedS: 9, bytes: (360 * M) / 8 });
  });
});

describe('rampUp, edge cases', () => {
  it('is NaN for a target never reached and for a transfer that moved nothing', () => {
    const r = rampUp(ramp, { maxBitPerS: 200 * M, fractions: [0.9] });
    expect(r.points[0]?.elapsedS).toBeNaN();
    expect(r.points[0]?.bytes).toBeNaN();
    const idle = rampUp(series([0], [0], 10));
    expect(idle.maxBitPerS).toBe(0);
    expect(idle.points.every((p) => Number.isNaN(p.reachedAtS))).toBe(true);
  });

  it('rejects bad options', () => {
    expect(() => rampUp(ramp, { fractions: [] })).toThrow(/fractions/);
    expect(() => rampUp(ramp, { fractions: [1.5] })).toThrow(/fractions\[0\]/);
    expect(() => rampUp(ramp, { maxBitPerS: 0 })).toThrow(/maxBitPerS/);
    expect(() => rampUp(series([0, 1], [1, -1], 2))).toThrow(MetricInputError);
    expect(() => rampUp(series([0, 1], [1, 1]), { startS: 1 })).toThrow(/set endS/);
  });
});
