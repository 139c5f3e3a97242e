// Issue 14: lfnlab selftest for every stack in the image, in the real lab. Two short runs per
// stack (8 s and 6 s of traffic plus set-up): about 40 s a stack, some 13 minutes for all 20.
// Opt-in (LFNLAB_SELFTEST_ALL=1) until every stack passes: measured under a realtime TCG clock,
// fast, vegas, lp and hstcplp did not (see kernels/stacks/README.md); it is not yet re-measured
// on the dilated clock in CI.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STACK_NAMES } from '@lfnlab/emulator';
import { beforeAll, expect, it } from 'vitest';
import { bootTestLab, TEST_LAB } from '../testing/lab.js';

const CLI = fileURLToPath(new URL('../../bin/lfnlab.js', import.meta.url));

beforeAll(async () => {
  if (process.env.LFNLAB_SELFTEST_ALL === '1') await bootTestLab();
});

const all = process.env.LFNLAB_SELFTEST_ALL === '1';

it.skipIf(!all)(`every stack (${STACK_NAMES.length}) passes the selftest`, { timeout: 3_600_000 }, () => {
  const out = mkdtempSync(join(tmpdir(), 'lfnlab-selftest-'));
  const t0 = Date.now();
  const r = spawnSync('node', [CLI, 'selftest', '--out', out, '--lab', TEST_LAB], {
    encoding: 'utf8',
    timeout: 3_600_000,
  });
  console.log(r.stdout, r.stderr, `wall time ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  for (const stack of STACK_NAMES) expect(r.stdout).toMatch(new RegExp(`^${stack}\\s.*\\bpass$`, 'm'));
  expect(r.status).toBe(0);
});
