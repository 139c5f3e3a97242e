import { describe, expect, it } from 'vitest';
import { convergenceTime } from './convergence.js';
import { MetricInputError } from './guard.js';
import { type Series, series } from './series.js';

/**
 * A 100-unit link: the incumbent has it alone until 50 s; the newcomer then ramps by 2.5 per
 * second for 20 s (1 s samples) and the two split 50/50 from 70 s to 120 s. `late(t)` overrides.
 */
function twoFlows(late: (t: number) => number = (t) => Math.min(50, 2.5 * (t - 50))): {
  incumbent: Series;
  newcomer: Series;
} {
  const t = Array.from({ length: 120 }, (_, i) => i);
  const newcomerT = t.filter((x) => x >= 50);
  const newcomerV = newcomerT.map(late);
  const incumbentV = t.map((x) => (x < 50 ? 100 : 100 - late(x)));
  return { incumbent: series(t, incumbentV, 120), newcomer: series(newcomerT, newcomerV, 120) };
}

describe('convergenceTime (seed 002 transient fairness)', () => {
  it('finds when the newcomer reaches its share, at 1 s resolution', () => {
    const { incumbent, newcomer } = twoFlows();
    // Fair share 50; tolerance 8 % needs ≥ 46 = 2.5·k → k ≥ 18.4 → first whole second k = 19.
    const c = convergenceTime(newcomer, [incumbent], { lateStartS: 50, tolerance: 0.08, intervalS: 1 });
    expect(c).toEqual({ convergedAtS: 69, convergenceTimeS: 19 });
  });

  it('has the resolution of the averaging interval', () => {
    const { incumbent, newcomer } = twoFlows();
    // 5 s means of the newcomer from 50 s: 5, 17.5, 30, 42.5, 50 ... ; 42.5 is 15 % off, 50 is on.
    const c = convergenceTime(newcomer, [incumbent], { lateStartS: 50, tolerance: 0.1, intervalS: 5 });
    expect(c.convergenceTimeS).toBe(20);
  });

  it('by default demands the share hold to the end; holdS relaxes that', () => {
    // A 1 s dip to 20 at 90 s: converged for good only from 91 s.
    const dip = (t: number) => (t === 90 ? 20 : Math.min(50, 2.5 * (t - 50)));
    const { incumbent, newcomer } = twoFlows(dip);
    const opts = { lateStartS: 50, tolerance: 0.1, intervalS: 1 };
    expect(convergenceTime(newcomer, [incumbent], opts).convergenceTimeS).toBe(41);
    // 45 = 2.5·18 is exactly 10 % off and counts; ten good seconds from 68 s suffice.
    expect(convergenceTime(newcomer, [incumbent], { ...opts, holdS: 10 }).convergenceTimeS).toBe(18);
  });

  it('uses total / n as the share with several incumbents', () => {
    // Three flows on 90: two incumbents at 45 each until the newcomer joins at 10 s with 30 for all.
    const t = [0, 10, 20];
    const inc = series(t, [45, 30, 30], 30);
    const late = series([10], [30], 30);
    expect(convergenceTime(late, [inc, inc], { lateStartS: 10, intervalS: 5 }).convergenceTimeS).toBe(0);
    const slow = series([10, 20], [10, 30], 30);
    const inc2 = series(t, [45, 40, 30], 30);
    expect(convergenceTime(slow, [inc2, inc2], { lateStartS: 10, intervalS: 5 }).convergenceTimeS).toBe(10);
  });

  it('is NaN when the newcomer never gets its share', () => {
    const { incumbent, newcomer } = twoFlows(() => 20);
    const c = convergenceTime(newcomer, [incumbent], { lateStartS: 50, intervalS: 1 });
    expect(c.convergedAtS).toBeNaN();
    expect(c.convergenceTimeS).toBeNaN();
  });

  it('is NaN when holdS is longer than the data after the newcomer starts', () => {
    const { incumbent, newcomer } = twoFlows();
    const c = convergenceTime(newcomer, [incumbent], { lateStartS: 50, intervalS: 1, holdS: 1000 });
    expect(c.convergenceTimeS).toBeNaN();
  });

  it('validates its options', () => {
    const { incumbent, newcomer } = twoFlows();
    expect(() => convergenceTime(newcomer, [], { lateStartS: 50 })).toThrow(/incumbents/);
    expect(() => convergenceTime(newcomer, [incumbent], { lateStartS: 50, tolerance: 0 })).toThrow(
      /tolerance/,
    );
    expect(() => convergenceTime(newcomer, [incumbent], { lateStartS: 50, intervalS: -1 })).toThrow(
      MetricInputError,
    );
    expect(() => convergenceTime(newcomer, [incumbent], { lateStartS: Number.NaN })).toThrow(/lateStartS/);
  });
});
