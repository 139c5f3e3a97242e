import { describe, expect, it } from 'vitest';
import type { ShareRange } from './decidedShare.js';
import { type OrderingState, orderingToDecide, tauRepetitions } from './orderingToDecide.js';

describe('tauRepetitions', () => {
  it('finds the first r whose z (growing as √r) clears the one-sided 5 % point', () => {
    // z = 0.842 at p = 0.2: 0.842·√(11/3) = 1.611 falls short of 1.645, 0.842·√(12/3) = 1.683 clears it.
    expect(tauRepetitions(0.2, 3)).toBe(12);
    expect(tauRepetitions(0.2, 6)).toBe(23); // 0.842·√(23/6) = 1.648
  });

  it('is r0 when already significant and null when τ points away or it would take over 100', () => {
    expect(tauRepetitions(0.04, 3)).toBe(3);
    expect(tauRepetitions(0.6, 3)).toBeNull();
    expect(tauRepetitions(0.45, 3)).toBeNull();
  });
});

const share = (undecided: number, toDecide?: number | null): ShareRange => ({
  low: 0.5,
  high: undecided ? 1 : 0.5,
  undecided,
  units: 6,
  paired: true,
  ...(toDecide !== undefined ? { toDecide } : {}),
});

const state = (over: Partial<OrderingState>): OrderingState => ({
  tau: 0.3,
  pGreater: 0.2,
  pLess: 0.85,
  byRun: true,
  repetitions: 3,
  share: share(0),
  shareReaches: true,
  ...over,
});

describe('orderingToDecide', () => {
  it('holds once both τ-b and the share are decided: the later of the two', () => {
    expect(orderingToDecide(state({}))).toBe(12);
    expect(orderingToDecide(state({ share: share(2, 20) }))).toBe(20);
    expect(orderingToDecide(state({ share: share(2, null) }))).toBeNull();
  });

  it('fails at the first of a reversed τ-b or a share deciding below the claim', () => {
    expect(orderingToDecide(state({ shareReaches: false, share: share(2, 5) }))).toBe(5);
    expect(orderingToDecide(state({ tau: -0.3, pGreater: 0.85, pLess: 0.2 }))).toBe(12);
    expect(
      orderingToDecide(
        state({ tau: -0.3, pGreater: 0.85, pLess: 0.2, shareReaches: false, share: share(2, null) }),
      ),
    ).toBe(12);
  });

  it('says no number would when τ-b is over the items themselves, and nothing when a pair cannot say', () => {
    expect(orderingToDecide(state({ byRun: false }))).toBeNull();
    expect(orderingToDecide(state({ tau: null }))).toBeNull();
    expect(orderingToDecide(state({ share: share(2) }))).toBeUndefined();
  });
});
