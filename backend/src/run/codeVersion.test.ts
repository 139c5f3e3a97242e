import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutState, codeIdentity, codeVersion } from './codeVersion.js';

describe("lfnlab's own version, as a run records it", () => {
  it('names the checked-out commit, and calls it modified for changed code, not for changed results or prose', () => {
    const root = mkdtempSync(join(tmpdir(), 'lfnlab-checkout-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
    git('-c', 'init.defaultBranch=main', 'init', '-q');
    mkdirSync(join(root, 'backend'));
    mkdirSync(join(root, 'presets', 'results'), { recursive: true });
    writeFileSync(join(root, 'backend', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'presets', 'results', 'runs.json'), '{}\n');
    writeFileSync(join(root, 'README.md'), 'x\n');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'first');
    const head = git('rev-parse', '--short=12', 'HEAD');
    expect(checkoutState(root)).toEqual({ commit: head, modified: false });
    writeFileSync(join(root, 'presets', 'results', 'runs.json'), '{"runs": 1}\n');
    writeFileSync(join(root, 'README.md'), 'y\n');
    writeFileSync(join(root, 'campaign-record.json'), '{}\n'); // untracked: a run record
    expect(checkoutState(root)).toEqual({ commit: head, modified: false });
    writeFileSync(join(root, 'backend', 'a.ts'), 'export const a = 2;\n');
    expect(checkoutState(root)).toEqual({ commit: head, modified: true });
    expect(checkoutState(join(tmpdir(), 'no-such-checkout'))).toEqual({ commit: null, modified: null });
  });

  it("this process's identity: the package version and this checkout's state", () => {
    expect(codeIdentity()).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
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
