import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { codeIdentity, codeVersion } from './codeVersion.js';

describe("lfnlab's own version, as a run records it", () => {
  it('names the checked-out commit and whether tracked files differ from it', () => {
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !==
      '';
    expect(codeIdentity()).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      commit: head,
      modified: dirty,
    });
  });

  it('reads as one line, with or without a checkout', () => {
    expect(codeVersion({ version: '0.1.0', commit: '0123456789ab', modified: false })).toBe(
      'lfnlab 0.1.0 (0123456789ab)',
    );
    expect(codeVersion({ version: '0.1.0', commit: '0123456789ab', modified: true })).toBe(
      'lfnlab 0.1.0 (0123456789ab, modified)',
    );
    expect(codeVersion({ version: '0.1.0', commit: null, modified: null })).toBe('lfnlab 0.1.0');
  });
});
