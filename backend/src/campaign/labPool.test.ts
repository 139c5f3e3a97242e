import { describe, expect, it } from 'vitest';
import { defaultLabCount } from './labPool.js';

describe('defaultLabCount', () => {
  it('gives one lab per two cores, as far as memory allows, and at least one', () => {
    expect(defaultLabCount(2, 23)).toBe(1);
    expect(defaultLabCount(8, 64)).toBe(4);
    expect(defaultLabCount(16, 7)).toBe(2);
    expect(defaultLabCount(1, 1)).toBe(1);
  });
});
