// The shipped LFN suite on the real lab, cut to what a CI job can afford: its first condition
// (120 ms, 1 BDP buffer, at 20 Mbit/s instead of 100), its first two stacks, one repetition of 12 s each (24 s of
// lab time). JUnit XML and the report are written, every run's fidelity verdict is valid, and the
// metrics that need no loss cycle (goodput share, RTT inflation) are measured in both cases.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootTestLab, TEST_LAB } from '../../test/support/lab.js';
import { expectValidButForDelayJitter } from '../../test/support/verdict.js';
import type { SuiteResult } from './judge.js';
import { parseSuiteText } from './suite.js';

const CLI = fileURLToPath(new URL('../../bin/lfnlab.js', import.meta.url));
const SHIPPED = fileURLToPath(new URL('../../../presets/suites/lfn-qualification.yaml', import.meta.url));

describe('lfnlab qualify (shipped suite, cut to 1 condition × 2 stacks × 1 run, real lab)', () => {
  beforeAll(async () => {
    await bootTestLab();
  });

  it('runs the cut suite, writes JUnit XML and judges valid runs only', () => {
    const full = parseSuiteText(readFileSync(SHIPPED, 'utf8'));
    const [first] = full.conditions;
    if (!first) throw new Error('the shipped suite has no condition');
    const cut = {
      ...full,
      // Recovery needs several loss cycles (about 40 s at this BDP): not asked of a 20 s run.
      // At 100 Mbit/s with a 1036-packet queue the dilated lab's one vCPU is at its edge: on a
      // loaded host 84 % of dequeue gaps came on time (suspect, so an error here). The cut runs at
      // 20 Mbit/s: this test is about qualify, not about the lab's ceiling.
      conditions: [
        {
          ...first,
          spec: { ...first.spec, paths: { main: { rate: '20Mbit' } } },
          thresholds: { ...first.thresholds, recovery_time: null },
        },
      ],
      stacks: full.stacks.slice(0, 2),
      repetitions: 1,
      seconds: 12,
    };
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-qualify-lab-'));
    const suiteFile = join(dir, 'suite.json');
    writeFileSync(suiteFile, JSON.stringify(cut, null, 2));
    const r = spawnSync(
      'node',
      [
        CLI,
        'qualify',
        suiteFile,
        '--lab',
        TEST_LAB,
        '--out',
        join(dir, 'out'),
        '--junit',
        join(dir, 'junit.xml'),
      ],
      { encoding: 'utf8', timeout: 600_000 },
    );
    console.log(r.stdout, r.stderr);
    // 0 or 1: the bounds are the vendor's question; a suite or argument problem (2) is not.
    expect([0, 1], r.stderr).toContain(r.status);
    expect(r.stdout).toMatch(/^1 conditions × 2 stacks × 1 repetitions: 2 runs, 24 s of lab time/m);
    const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(2);
    expect(xml).toContain('<property name="lab.mode" value="real"/>');
    expect(xml).not.toContain('<property name="kernel" value="unknown"/>');
    expect(existsSync(join(dir, 'out/report.html'))).toBe(true);
    const result = JSON.parse(readFileSync(join(dir, 'out/result.json'), 'utf8')) as SuiteResult;
    expect(result.cases.map((c) => c.stack)).toEqual(cut.stacks);
    for (const c of result.cases) {
      expect(c.runs).toHaveLength(1);
      for (const run of c.runs) expectValidButForDelayJitter(run.verdict, run.reasons, c.stack);
      for (const id of ['goodput_share', 'rtt_inflation'])
        expect(c.metrics.find((m) => m.metric === id)?.mean, `${c.stack} ${id}`).toEqual(expect.any(Number));
      // Counts in the XML agree with the judged cases.
      expect(['pass', 'failure', 'error']).toContain(c.outcome);
    }
    const failures = result.cases.filter((c) => c.outcome === 'failure').length;
    const errors = result.cases.filter((c) => c.outcome === 'error').length;
    expect(xml).toMatch(new RegExp(`<testsuites [^>]*failures="${failures}" errors="${errors}"`));
    expect(r.status).toBe(failures + errors > 0 ? 1 : 0);
  });
});
