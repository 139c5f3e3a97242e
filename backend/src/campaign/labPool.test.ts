import { describe, expect, it } from 'vitest';
import { defaultLabCount, labsThatFit } from './labPool.js';

describe('defaultLabCount', () => {
  it('gives one lab per two cores, as far as memory allows, and at least one', () => {
    expect(defaultLabCount(2, 23)).toBe(1);
    expect(defaultLabCount(8, 64)).toBe(4);
    expect(defaultLabCount(16, 7)).toBe(2);
    expect(defaultLabCount(1, 1)).toBe(1);
  });

  it('fits a dilated lab per core (its clock is its own), a realtime lab per two, as far as memory allows', () => {
    expect(labsThatFit('dilated', 2, 23)).toBe(2);
    expect(labsThatFit('realtime', 2, 23)).toBe(1);
    expect(labsThatFit('dilated', 16, 7)).toBe(2);
    expect(labsThatFit('dilated', 1, 1)).toBe(1);
  });
});
