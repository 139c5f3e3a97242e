// A paper preset end to end in the real lab, shortened as its CI block says: every part runs as a
// campaign, and the comparison puts the paper's numbers beside measured ones and judges findings.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootTestLab, TEST_LAB } from '../../test/support/lab.js';
import type { PresetComparison } from '../presets/index.js';

const CLI = fileURLToPath(new URL('../../bin/lfnlab.js', import.meta.url));

/** `lfnlab preset run seed003-responsiveness --ci` into `out`, keeping its progress in `progress`. */
const presetRun = (out: string, progress: string, timeout: number) =>
  spawnSync(
    'node',
    [
      CLI,
      'preset',
      'run',
      'seed003-responsiveness',
      '--ci',
      '--out',
      out,
      '--lab',
      TEST_LAB,
      '--progress',
      progress,
    ],
    { encoding: 'utf8', timeout },
  );

describe('lfnlab preset run (CI length, real lab)', () => {
  beforeAll(async () => {
    await bootTestLab();
  });

  it('runs seed003-responsiveness, keeps each run in its progress directory and compares it with the paper', () => {
    const out = mkdtempSync(join(tmpdir(), 'lfnlab-preset-'));
    const progress = mkdtempSync(join(tmpdir(), 'lfnlab-progress-'));
    const r = presetRun(out, progress, 900_000);
    console.log(r.stdout, r.stderr);
    expect(r.status, r.stderr).toBe(0);
    const c = JSON.parse(readFileSync(join(out, 'comparison.json'), 'utf8')) as PresetComparison;
    // One CI run per path of the preset: 50 Mbit/s x 120 and 60 ms, 25 Mbit/s x 120 ms.
    expect(c.rows).toMatchObject({ total: 3 });
    expect(c.rows.used).toBeGreaterThan(0);
    const measured = c.cells.filter((x) => x.measured?.value !== null && x.measured !== null);
    expect(measured.length).toBeGreaterThan(0);
    for (const x of measured) expect(Number.isFinite(x.measured?.value)).toBe(true);
    expect(c.findings.length).toBeGreaterThan(0);
    const html = readFileSync(join(out, 'comparison.html'), 'utf8');
    expect(html).toContain('Published numbers beside ours');
    expect(html).toContain(c.scaling.slice(0, 40));
    expect(r.stdout).toMatch(/\[(holds|fails|inconclusive)\]/);
    expect(existsSync(join(out, 'main', 'results.csv'))).toBe(true);

    // The progress directory holds each run's record; a fresh directory restored from it runs
    // nothing and compares the same.
    expect(readdirSync(join(progress, 'main', 'runs'))).toHaveLength(3);
    const fresh = mkdtempSync(join(tmpdir(), 'lfnlab-preset-fresh-'));
    rmSync(fresh, { recursive: true });
    const again = presetRun(fresh, progress, 300_000);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('3 finished runs restored');
    expect(again.stdout).toContain('resuming: 3 of 3 runs already finished');
    const c2 = JSON.parse(readFileSync(join(fresh, 'comparison.json'), 'utf8')) as PresetComparison;
    expect(c2.findings.map((f) => f.verdict)).toEqual(c.findings.map((f) => f.verdict));
  });
});
