// `lfnlab qualify` as CI runs it: the built CLI (`npm run build` first) on a small suite against
// the fake lab, with one bound that must fail and one metric that cannot be measured. Its JUnit XML
// is read by a real JUnit consumer, junitparser from PyPI in a venv made here (cached between runs
// like any tool download), and a second run resumes, keeping every finished run.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BUILT, LFNLAB_BIN } from '../../test/support/cliProcess.js';

/** The version verified with our JUnit XML; bump it deliberately. */
const JUNITPARSER = 'junitparser==5.0.3';

const hasPython = spawnSync('python3', ['-c', 'import venv, ensurepip'], { stdio: 'ignore' }).status === 0;
const skipReason = !hasPython
  ? 'python3 with venv and ensurepip is missing (apt-get install python3-venv)'
  : !CLI_BUILT
    ? 'backend/dist is not built (run `npm run build` first; `npm test` does)'
    : null;
if (skipReason) console.warn(`qualify.integration.test: skipped: ${skipReason}`);

const SUITE = `name: it-suite
description: Two stacks on a plain path, a shared one and one asking for what a shared flow never does
base:
  name: it-suite
  duration: 30s
  paths: { main: { rtt: 40ms, rate: 50Mbit, buffer: 1bdp } }
  flows: [{ name: test, stack: cubic }]
subject: test
stacks: [cubic, reno]
repetitions: 2
seconds: 6
seed: 5
thresholds:
  goodput_share: { min: 50, unit: '%' }
  time_to_90: { max: 3000, unit: ms }
conditions:
  - name: plain
  - name: shared
    spec: { flows: [{ name: test, stack: cubic }, { name: other, stack: cubic }] }
    thresholds:
      jain: { min: 0.9 }
      # Half the link each: a bound of 90 % must fail.
      goodput_share: { min: 0.9 }
      time_to_90: null
  - name: unreachable
    spec: { flows: [{ name: test, stack: cubic }, { name: other, stack: cubic }] }
`;

/** junitparser's view of a JUnit file: every suite's counts and every case's result and message. */
const READER = `
import json, sys
from junitparser import JUnitXml, Failure, Error
xml = JUnitXml.fromfile(sys.argv[1])
out = {"suites": [], "cases": []}
for suite in xml:
    props = {p.name: p.value for p in suite.properties()}
    out["suites"].append({"name": suite.name, "tests": suite.tests, "failures": suite.failures,
                          "errors": suite.errors, "props": props})
    for case in suite:
        kinds = [r for r in case.result if isinstance(r, (Failure, Error))]
        out["cases"].append({
            "classname": case.classname, "name": case.name, "time": case.time,
            "result": "pass" if case.is_passed else ("failure" if isinstance(kinds[0], Failure) else "error"),
            "message": kinds[0].message if kinds else None,
        })
print(json.dumps(out))
`;

interface Parsed {
  suites: { name: string; tests: number; failures: number; errors: number; props: Record<string, string> }[];
  cases: { classname: string; name: string; time: number; result: string; message: string | null }[];
}

const venv = join(
  process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
  'lfnlab/test-venvs',
  JUNITPARSER.replace('==', '-'),
);
const python = join(venv, 'bin/python');

/** The venv, made once per junitparser version (network to PyPI only the first time). */
function ensureVenv(): void {
  const ok = () =>
    existsSync(python) &&
    spawnSync(
      python,
      ['-c', `import junitparser; assert junitparser.version == "${JUNITPARSER.split('==')[1]}"`],
      {
        stdio: 'ignore',
      },
    ).status === 0;
  if (ok()) return;
  rmSync(venv, { recursive: true, force: true });
  mkdirSync(venv, { recursive: true });
  execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
  execFileSync(join(venv, 'bin/pip'), ['install', '--quiet', '--disable-pip-version-check', JUNITPARSER], {
    stdio: 'inherit',
  });
  if (!ok()) throw new Error(`${JUNITPARSER} did not install into ${venv}`);
}

let dir: string;

function qualify(): { code: number | null; out: string } {
  const r = spawnSync(
    process.execPath,
    [
      LFNLAB_BIN,
      'qualify',
      join(dir, 'suite.yaml'),
      '--lab',
      'fake',
      '--fake-speed',
      '30',
      '--out',
      join(dir, 'out'),
      '--junit',
      join(dir, 'ci/junit.xml'),
    ],
    { cwd: dir, encoding: 'utf8', timeout: 120_000 },
  );
  return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
}

function readJunit(file: string): Parsed {
  return JSON.parse(execFileSync(python, ['-c', READER, file], { encoding: 'utf8' })) as Parsed;
}

/** summary.json of every run: directory → modification time (ms). */
function summaries(): Map<string, number> {
  const out = new Map<string, number>();
  const conditions = join(dir, 'out/conditions');
  for (const c of readdirSync(conditions))
    for (const r of readdirSync(join(conditions, c, 'runs'))) {
      const f = join(conditions, c, 'runs', r, 'summary.json');
      if (existsSync(f)) out.set(`${c}/${r}`, statSync(f).mtimeMs);
    }
  return out;
}

describe.skipIf(skipReason !== null)('lfnlab qualify --lab fake, read by junitparser', () => {
  beforeAll(() => {
    ensureVenv();
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-qualify-'));
    writeFileSync(join(dir, 'suite.yaml'), SUITE);
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  let first: ReturnType<typeof qualify>;

  it('runs every condition × stack × repetition, prints the cost first, and exits 1 on a failure', () => {
    first = qualify();
    expect(first.code, first.out).toBe(1);
    const lines = first.out.split('\n');
    expect(lines[1]).toMatch(/^3 conditions × 2 stacks × 2 repetitions: 12 runs, 72 s of lab time/);
    expect(first.out).toMatch(/suite: 12\/12 runs done, 0 left, ETA 0 s/);
    expect(summaries().size).toBe(12);
    expect(existsSync(join(dir, 'out/report.html'))).toBe(true);
    expect(existsSync(join(dir, 'out/result.json'))).toBe(true);
  });

  it('writes JUnit XML that junitparser reads case by case', () => {
    const parsed = readJunit(join(dir, 'ci/junit.xml'));
    expect(parsed.suites.map((s) => [s.name, s.tests, s.failures, s.errors])).toEqual([
      ['it-suite.plain', 2, 0, 0],
      ['it-suite.shared', 2, 2, 0],
      ['it-suite.unreachable', 2, 0, 2],
    ]);
    expect(parsed.suites[0]?.props).toMatchObject({ 'lab.mode': 'fake', seed: '5', 'image.id': 'fake' });
    expect(parsed.suites[0]?.props.kernel).toMatch(/fake/);
    const byCase = Object.fromEntries(parsed.cases.map((c) => [`${c.classname}/${c.name}`, c]));
    expect(Object.keys(byCase)).toEqual([
      'it-suite.plain/cubic',
      'it-suite.plain/reno',
      'it-suite.shared/cubic',
      'it-suite.shared/reno',
      'it-suite.unreachable/cubic',
      'it-suite.unreachable/reno',
    ]);
    for (const k of ['it-suite.plain/cubic', 'it-suite.plain/reno']) {
      expect(byCase[k]?.result).toBe('pass');
      expect(byCase[k]?.time).toBe(12); // two 6 s runs
    }
    for (const k of ['it-suite.shared/cubic', 'it-suite.shared/reno']) {
      expect(byCase[k]?.result).toBe('failure');
      // Value, bound, n and interval, as CI shows it.
      expect(byCase[k]?.message).toMatch(
        /^goodput share of the link 0\.\d\d < min 0\.90 \(n=2, 95 % CI 0\.\d\d–0\.\d\d\)$/,
      );
    }
    for (const k of ['it-suite.unreachable/cubic', 'it-suite.unreachable/reno']) {
      expect(byCase[k]?.result).toBe('error');
      expect(byCase[k]?.message).toMatch(
        /^time to 90 % of the link not measured in runs \S+-r\d, \S+-r\d; goodput share of the link 0\.\d\d < min 0\.50 /,
      );
    }
  });

  it('resumes: a second run redoes only the run that is gone and keeps the others', () => {
    const before = summaries();
    const [gone] = [...before.keys()].sort();
    const [condition, run] = (gone as string).split('/') as [string, string];
    rmSync(join(dir, 'out/conditions', condition, 'runs', run), { recursive: true });
    const second = qualify();
    expect(second.code, second.out).toBe(1);
    expect(second.out).toContain('resuming: 11 of 12 runs already finished');
    const after = summaries();
    expect(after.size).toBe(12);
    for (const [run, mtime] of before) if (run !== gone) expect(after.get(run), run).toBe(mtime);
    expect(after.get(gone as string)).toBeGreaterThan(before.get(gone as string) as number);
    // The same verdicts from the kept runs and the new one.
    const parsed = readJunit(join(dir, 'ci/junit.xml'));
    expect(parsed.cases.map((c) => c.result)).toEqual([
      'pass',
      'pass',
      'failure',
      'failure',
      'error',
      'error',
    ]);
  });

  it('judges again on the runs it has when only bounds change, and refuses other specs in the same directory', () => {
    const before = summaries();
    writeFileSync(
      join(dir, 'suite.yaml'),
      SUITE.replace('goodput_share: { min: 0.9 }', 'goodput_share: { min: 0.3 }'),
    );
    const rejudged = qualify();
    expect(rejudged.out).toContain('resuming: 12 of 12 runs already finished');
    expect(summaries()).toEqual(before);
    const parsed = readJunit(join(dir, 'ci/junit.xml'));
    expect(parsed.cases.map((c) => c.result)).toEqual(['pass', 'pass', 'pass', 'pass', 'error', 'error']);
    // Another run length would mix runs of two lengths: refused, nothing run.
    writeFileSync(join(dir, 'suite.yaml'), SUITE.replace('seconds: 6', 'seconds: 7'));
    const other = qualify();
    expect(other.code).toBe(2);
    expect(other.out).toMatch(/holds runs of condition plain made with other specs, length or repetitions/);
    expect(summaries()).toEqual(before);
    writeFileSync(join(dir, 'suite.yaml'), SUITE);
  });

  it('drains on SIGUSR2: the run in progress finishes and is kept, no new one starts, exit 130', async () => {
    const out = join(dir, 'drained');
    const child = spawn(
      process.execPath,
      [LFNLAB_BIN, 'qualify', join(dir, 'suite.yaml'), '--lab', 'fake', '--fake-speed', '3', '--out', out],
      { cwd: dir },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    const code = await new Promise<number | null>((done) => {
      child.stdout.on('data', (b: Buffer) => {
        const before = stdout;
        stdout += b.toString();
        // The first run has started (its line is printed as it starts): ask for the drain.
        if (!/\[1\/4\] /.test(before) && /\[1\/4\] /.test(stdout)) child.kill('SIGUSR2');
      });
      child.on('exit', (c) => done(c));
    });
    expect(code, `${stdout}\n${stderr}`).toBe(130);
    expect(stderr).toContain('finishing the runs in progress, then stopping');
    const runs = join(out, 'conditions/plain/runs');
    const kept = readdirSync(runs).filter((r) => existsSync(join(runs, r, 'summary.json')));
    expect(kept).toHaveLength(1);
    const summary = JSON.parse(readFileSync(join(runs, kept[0] as string, 'summary.json'), 'utf8'));
    expect(summary.status).toBe('completed');
    expect(stdout).not.toMatch(/\[2\/4\] /);
    expect(stdout).not.toMatch(/condition 2\/3/);
  });

  it('refuses a broken suite with exit 2 and names the field', () => {
    writeFileSync(join(dir, 'bad.yaml'), SUITE.replace('repetitions: 2', 'repetitions: 0'));
    const r = spawnSync(process.execPath, [LFNLAB_BIN, 'qualify', join(dir, 'bad.yaml'), '--lab', 'fake'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('repetitions: must be a whole number of runs from 1 to 20');
  });
});
