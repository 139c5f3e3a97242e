import { describe, expect, it } from 'vitest';
import { UsageError } from './args.js';
import { labsLeftUpNote, parseLabCount, parseLabOption, poolLabNames } from './labsOption.js';

describe('--lab and --labs', () => {
  it('names the pool after --lab: default labs, a lab PC, or none at all', () => {
    expect(parseLabOption(undefined)).toEqual({ lab: 'real', base: 'default' });
    expect(parseLabOption('fake')).toEqual({ lab: 'fake', base: 'default' });
    expect(parseLabOption('labpc01')).toEqual({ lab: 'real', base: 'labpc01' });
    expect(poolLabNames(1, 'labpc01')).toEqual(['labpc01']);
    expect(poolLabNames(3)).toEqual(['default', 'default-2', 'default-3']);
  });

  it('refuses a lab name it could not use, and a lab count outside 1 to 8, saying what is allowed', () => {
    expect(() => parseLabOption('-x')).toThrow(UsageError);
    expect(() => parseLabOption('a'.repeat(29))).toThrow(/--lab must be real, fake, or a lab name \(1-28/);
    expect(() => parseLabCount('0', () => undefined)).toThrow(
      /--labs must be a whole number from 1 to 8 \(got 0\)/,
    );
    expect(() => parseLabCount('2.5', () => undefined)).toThrow(UsageError);
  });

  it('tells which labs a campaign left up and how to power each off', () => {
    expect(labsLeftUpNote(2, 0)).toBeNull();
    // One run on a pool of two: only the first lab was booted.
    expect(labsLeftUpNote(2, 1)).toBe(
      'lab default stays up for the next run (paused between uses, holding memory); to free it: lfnlab lab down --name default',
    );
    expect(labsLeftUpNote(2, 5, 'repro')).toMatch(
      /^labs repro, repro-2 stay up .*to free them: lfnlab lab down --name repro; lfnlab lab down --name repro-2$/,
    );
  });
});
