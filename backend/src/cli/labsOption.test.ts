import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { captureConsole } from '../../test/support/consoleCapture.js';
import { UsageError } from './args.js';
import {
  labsLeftUpNote,
  parseLabCount,
  parseLabOption,
  parseRunLabName,
  poolLabNames,
} from './labsOption.js';
import { main } from './main.js';

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

describe('--lab on the commands that run experiments in real labs', () => {
  it("takes a lab's name, or the default for none and for 'real'", () => {
    expect(parseRunLabName(undefined, 'run')).toBeUndefined();
    expect(parseRunLabName('real', 'run')).toBeUndefined();
    expect(parseRunLabName('labpc01', 'run')).toBe('labpc01');
    expect(() => parseRunLabName('-x', 'run')).toThrow(/--lab must be a lab name \(1-28/);
  });

  it("refuses 'fake' before anything runs: elsewhere it is the stand-in lab, here it would boot a real lab so named", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-runlab-'));
    const campaign = join(dir, 'c.yaml');
    writeFileSync(
      campaign,
      'name: c\nbase:\n  name: c\n  duration: 3s\n  paths: { main: { rtt: 20ms, rate: 10Mbit } }\n  flows: [{ stack: reno }]\nvary:\n  flows[0].stack: [reno, cubic]\n',
    );
    const spec = join(dir, 's.yaml');
    writeFileSync(
      spec,
      'name: s\nduration: 3s\npaths: { main: { rtt: 20ms, rate: 10Mbit } }\nflows: [{ stack: reno }]\n',
    );
    const { out, err } = captureConsole();
    const runs = [
      ['campaign', 'run', campaign, '--out', join(dir, 'out'), '--lab', 'fake'],
      ['preset', 'run', 'seed003-ber', '--ci', '--out', join(dir, 'preset'), '--lab', 'fake'],
      ['run', spec, '--out', join(dir, 'run'), '--lab', 'fake'],
    ];
    for (const argv of runs) expect(await main(argv)).toBe(64);
    expect(err.filter((l) => l.includes('--lab fake:'))).toHaveLength(3);
    expect(err.join('\n')).toContain(
      'lfnlab campaign: --lab fake: campaign run runs experiments in real labs only (the stand-in lab is for lfnlab serve, worker and qualify)',
    );
    // Nothing started: no campaign, preset or run directory, no run counted.
    for (const d of ['out', 'preset', 'run']) expect(existsSync(join(dir, d))).toBe(false);
    expect(out.join('\n')).not.toMatch(/run now/);
    vi.restoreAllMocks();
  });
});
