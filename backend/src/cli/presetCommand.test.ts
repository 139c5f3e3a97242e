import { describe, expect, it } from 'vitest';
import { restoredText } from './presetCommand.js';

describe('what a resumed preset says it restored', () => {
  it('counts invalid tries apart from finished runs', () => {
    expect(restoredText(36, 1)).toBe('36 finished runs and 1 invalid try');
    expect(restoredText(1, 0)).toBe('1 finished run');
    expect(restoredText(0, 2)).toBe('0 finished runs and 2 invalid tries');
  });
});
