// Runs the vitest projects (unit, real processes without a lab, the UI's components, Chromium
// against a fake lab, then the real lab) and ends with one plain line: "tests: N passed, N failed, N skipped". Exit code is non-zero when anything failed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failedTests } from './failedTests.mjs';

const projects = process.argv.slice(2).length
  ? process.argv.slice(2)
  : ['unit', 'integration', 'ui', 'e2e', 'lab'];
const dir = mkdtempSync(join(tmpdir(), 'lfnlab-tests-'));
let passed = 0;
let failed = 0;
let skipped = 0;
let broken = false;
const seconds = [];
const failures = [];
for (const project of projects) {
  const t0 = Date.now();
  const out = join(dir, `${project}.json`);
  const r = spawnSync(
    'npx',
    [
      'vitest',
      'run',
      '--project',
      project,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${out}`,
    ],
    {
      stdio: 'inherit',
    },
  );
  seconds.push(`${project} ${Math.round((Date.now() - t0) / 1000)} s`);
  try {
    const report = JSON.parse(readFileSync(out, 'utf8'));
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += report.numPendingTests + (report.numTodoTests ?? 0);
    if (r.status !== 0 && report.numFailedTests === 0) broken = true; // e.g. a file that failed to load
    failures.push(...failedTests(project, report));
  } catch {
    broken = true;
  }
}
if (broken) failed = Math.max(failed, 1);
// CI keeps only part of a long log, so the failures are repeated here, beside the last line.
if (failures.length) console.log(`\nfailed:\n${failures.join('\n')}`);
// Where CI's time went, per project: the lab's share is the one to watch against CI's limit.
console.log(`\nwall time: ${seconds.join(', ')}`);
console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
