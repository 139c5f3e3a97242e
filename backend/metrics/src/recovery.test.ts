import { describe, expect, it } from 'vitest';
import { MetricInputError } from './guard.js';
import { windowRecoveries } from './recovery.js';
import { series } from './series.js';
import { responsivenessS } from './theory.js';

/** Ideal Reno, 1 s RTT, sampled once per RTT: +1 packet per RTT from 80 to 100, halve at 21 s, climb back. */
function renoSawtooth() {
  const t: number[] = [];
  const v: number[] = [];
  for (let k = 0; k <= 20; k++) {
    t.push(k);
    v.push(80 + k);
  }
  for (let k = 0; k <= 60; k++) {
    t.push(21 + k);
    v.push(50 + k);
  }
  return series(t, v);
}

describe('windowRecoveries', () => {
  it('measures from the drop to the first sample back at the pre-loss window', () => {
    const [ev, ...rest] = windowRecoveries(renoSawtooth());
    expect(rest).toHaveLength(0);
    expect(ev).toEqual({
      peakAtS: 20,
      preLossWindow: 100,
      dropAtS: 21,
      bottomWindow: 50,
      recoveredAtS: 71,
      recoveryS: 50,
    });
  });

  it('agrees with seed 003 responsiveness for an ideal Reno flow', () => {
    // A 100-packet pipe at 1 s RTT with 1460-byte segments: C = 100·1460·8 bit/s.
    const rho = responsivenessS({ capacityBitPerS: 100 * 1460 * 8, rttS: 1, mssBytes: 1460 });
    expect(rho).toBeCloseTo(50, 9);
    expect(windowRecoveries(renoSawtooth())[0]?.recoveryS).toBeCloseTo(rho, 9);
  });

  it('treats a reduction spread over several samples (PRR) as one event', () => {
    const cwnd = series([0, 1, 2, 3, 4, 5, 6, 7], [100, 80, 60, 50, 70, 90, 100, 110]);
    const events = windowRecoveries(cwnd);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      peakAtS: 0,
      dropAtS: 1,
      bottomWindow: 50,
      recoveredAtS: 6,
      recoveryS: 5,
    });
  });

  it('ignores small dips and honours regainFraction and afterS', () => {
    const cwnd = series([0, 1, 2, 3, 4, 5, 6], [100, 90, 95, 40, 60, 92, 100]);
    const [ev] = windowRecoveries(cwnd); // 100 → 90 is only 10 %
    expect(ev).toMatchObject({ peakAtS: 2, preLossWindow: 95, dropAtS: 3, recoveredAtS: 6, recoveryS: 3 });
    expect(windowRecoveries(cwnd, { regainFraction: 0.9 })[0]?.recoveredAtS).toBe(5);
    expect(windowRecoveries(cwnd, { minDropFraction: 0.05 })).toHaveLength(2);
    expect(windowRecoveries(cwnd, { afterS: 3.5 })).toHaveLength(0);
  });

  it('reports NaN when the window never comes back', () => {
    const [ev] = windowRecoveries(series([0, 1, 2, 3], [100, 50, 60, 70]));
    expect(ev?.dropAtS).toBe(1);
    expect(ev?.recoveredAtS).toBeNaN();
    expect(ev?.recoveryS).toBeNaN();
  });

  it('counts from the first drop when a second loss strikes before recovery', () => {
    const events = windowRecoveries(series([0, 1, 2, 3, 4, 5, 6], [100, 50, 70, 35, 60, 90, 100]));
    expect(events.map((e) => [e.dropAtS, e.recoveredAtS])).toEqual([
      [1, 6],
      [3, 5],
    ]);
  });

  it('validates its input', () => {
    expect(() => windowRecoveries(series([0, 1], [10, -1]))).toThrow(MetricInputError);
    expect(() => windowRecoveries(renoSawtooth(), { minDropFraction: 1 })).toThrow(/minDropFraction/);
    expect(() => windowRecoveries(renoSawtooth(), { regainFraction: 0 })).toThrow(/regainFraction/);
  });

  it('ends a recovery at a later peak within 2 % of the old window, and counts on through a deeper cut', () => {
    // Reno's sawtooth: the second peak one packet short of the first (99 of 100) is one cycle,
    // recovered at 99 (49 s after the drop), not two cycles later. The next climb is cut at 70,
    // far below its 99: that recovery counts on from its own drop through the cut, to 99 again.
    const t: number[] = [];
    const v: number[] = [];
    const climb = (from: number, to: number) => {
      for (let w = from; w <= to; w++) {
        t.push(t.length);
        v.push(w);
      }
    };
    climb(90, 100);
    climb(50, 99);
    climb(49, 70);
    climb(35, 120);
    const [first, second, third] = windowRecoveries(series(t, v));
    expect(first).toMatchObject({ preLossWindow: 100, dropAtS: 11, recoveredAtS: 60, recoveryS: 49 });
    expect(second).toMatchObject({ preLossWindow: 99, dropAtS: 61, recoveredAtS: 147, recoveryS: 86 });
    expect(third).toMatchObject({ preLossWindow: 70, dropAtS: 83, bottomWindow: 35, recoveryS: 35 });
  });

  it('climbs through a dip smaller than a reduction', () => {
    const cwnd = series([0, 1, 2, 3, 4, 5, 6], [100, 50, 70, 65, 80, 95, 100]);
    expect(windowRecoveries(cwnd)[0]).toMatchObject({ recoveredAtS: 6, recoveryS: 5 });
  });
});
