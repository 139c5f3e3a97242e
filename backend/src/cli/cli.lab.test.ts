// The CLI as a person uses it, against the real lab: bad specs are refused with the field named
// and nothing left behind; a run killed mid-experiment leaves nothing behind for the next one.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectLab, LabBusyError } from '@lfnlab/lab-images';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootTestLab, TEST_LAB } from '../../test/support/lab.js';

const CLI = fileURLToPath(new URL('../../bin/lfnlab.js', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'lfnlab-cli-'));

function specFile(name: string, text: string): string {
  const p = join(tmp, `${name}.yaml`);
  writeFileSync(p, text);
  return p;
}

const lfnlab = (...args: string[]) =>
  spawnSync('node', [CLI, ...args, '--lab', TEST_LAB], { encoding: 'utf8', timeout: 600_000 });

/** What the lab holds right now; waits while another client (a dying run) still has the channel. */
async function labContents(): Promise<{ namespaces: string[]; processes: unknown[] }> {
  for (let i = 0; ; i++) {
    try {
      const ch = await connectLab(TEST_LAB, { timeoutMs: 3000 });
      const info = await ch.call<{ namespaces: string[]; processes: unknown[] }>('info');
      ch.close();
      return info;
    } catch (err) {
      if (!(err instanceof LabBusyError) || i > 20) throw err;
    }
  }
}

/** Resolves with the first stdout line matching `re` (the run's own progress, not a timer). */
function waitForLine(child: ChildProcess, re: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const hit = buf.split('\n').find((l) => re.test(l));
      if (hit) resolve(hit);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code} before printing ${re}:\n${buf}`)));
  });
}

beforeAll(async () => {
  await bootTestLab();
});

describe('bad specs', () => {
  const cases: [string, string, RegExp][] = [
    [
      'wrong-unit',
      'name: x\nduration: 10s\npaths: {main: {rtt: 50ms, rate: 100MB}}\nflows: [{stack: cubic}]\n',
      /paths\.main\.rate: .*bytes; write bits/,
    ],
    [
      'negative-rtt',
      'name: x\nduration: 10s\npaths: {main: {rtt: -5ms, rate: 10Mbit}}\nflows: [{stack: cubic}]\n',
      /paths\.main\.rtt: must be/,
    ],
    [
      'unknown-stack',
      'name: x\nduration: 10s\npaths: {main: {rtt: 5ms, rate: 10Mbit}}\nflows: [{stack: tahoe}]\n',
      /flows\.0\.stack: unknown stack "tahoe"; available: reno, cubic/,
    ],
    [
      'missing-field',
      'name: x\npaths: {main: {rtt: 5ms, rate: 10Mbit}}\nflows: [{stack: cubic}]\n',
      /duration: is required/,
    ],
  ];
  for (const [name, text, message] of cases) {
    it(`${name}: non-zero exit, the field and what is allowed named, nothing left behind`, async () => {
      const out = join(tmp, `out-${name}`);
      const r = lfnlab('run', specFile(name, text), '--out', out);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(existsSync(out)).toBe(false);
      expect(await labContents()).toMatchObject({ namespaces: [], processes: [] });
    });
  }
});

describe('interrupted runs', () => {
  const long = specFile(
    'long',
    'name: long\nduration: 60s\npaths: {main: {rtt: 20ms, rate: 20Mbit}}\nflows: [{stack: cubic}, {stack: reno, direction: reverse}]\n',
  );
  const short = specFile(
    'short',
    'name: short\nduration: 3s\npaths: {main: {rtt: 20ms, rate: 20Mbit}}\nflows: [{stack: reno}]\n',
  );

  it('SIGKILL mid-experiment: the lab removes its namespaces and processes; the next run starts clean', async () => {
    const child = spawn('node', [CLI, 'run', long, '--out', join(tmp, 'killed'), '--lab', TEST_LAB], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await waitForLine(child, /started reno-2/);
    const during = await new Promise<number | null>((resolve) => {
      child.on('exit', (code) => resolve(code));
      child.kill('SIGKILL');
    });
    expect(during).toBeNull();
    // The agent sees the channel close and tears the run down; poll until it has.
    let contents = await labContents();
    for (let i = 0; i < 50 && (contents.namespaces.length || contents.processes.length); i++)
      contents = await labContents();
    expect(contents).toMatchObject({ namespaces: [], processes: [] });

    const next = lfnlab('run', short, '--out', join(tmp, 'after-kill'));
    expect(next.stdout).toMatch(/clean start: nothing left from earlier runs/);
    expect(next.status).toBe(0);
  });

  it('SIGINT mid-experiment: exits 130, keeps the partial record as aborted, cleans the lab', async () => {
    const out = join(tmp, 'interrupted');
    const child = spawn('node', [CLI, 'run', long, '--out', out, '--lab', TEST_LAB], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await waitForLine(child, /started reno-2/);
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', (c) => resolve(c));
      child.kill('SIGINT');
    });
    expect(code).toBe(130);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.status).toBe('aborted');
    expect(await labContents()).toMatchObject({ namespaces: [], processes: [] });
  });
});

describe('--help', () => {
  it('every sub-command has help', () => {
    for (const cmd of ['run', 'campaign', 'lab', 'validate', 'metrics', 'image', 'kernel', 'schema']) {
      const r = spawnSync('node', [CLI, cmd, '--help'], { encoding: 'utf8' });
      expect(r.status, cmd).toBe(0);
      expect(r.stdout, cmd).toMatch(new RegExp(`^usage: lfnlab ${cmd}`));
    }
  });
});

/** A campaign of 3 s runs over `stacks`, in file order, started in the background. */
function startCampaign(
  name: string,
  stacks: string[],
  out: string,
  extra: string[] = [],
): { file: string; child: ChildProcess } {
  const file = join(tmp, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}\nbase:\n  name: ${name}\n  duration: 3s\n  paths: { main: { rtt: 20ms, rate: 20Mbit } }\n  flows: [{ stack: reno }]\nvary:\n  flows[0].stack: [${stacks.join(', ')}]\norder: sequential\n`,
  );
  const child = spawn('node', [CLI, 'campaign', 'run', file, '--out', out, '--lab', TEST_LAB, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { file, child };
}

describe('campaigns', () => {
  it('a campaign killed after its first run resumes without redoing it, collects one table, and its kept progress restores it elsewhere', async () => {
    const out = join(tmp, 'campaign');
    const progress = join(tmp, 'campaign-progress');
    const { file, child } = startCampaign('camp', ['reno', 'htcp', 'bic'], out, ['--progress', progress]);
    await waitForLine(child, /^\[1\/3\] reno \(001-reno-r1\): completed/);
    await new Promise<void>((resolve) => {
      child.on('exit', () => resolve());
      child.kill('SIGKILL');
    });
    const again = lfnlab('campaign', 'run', file, '--out', out, '--progress', progress);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/resuming: 1 of 3 runs already finished/);
    expect(again.stdout).not.toMatch(/\[1\/3\] reno \(001-reno-r1\)/);
    const csv = readFileSync(join(out, 'results.csv'), 'utf8').trim().split('\n');
    expect(csv).toHaveLength(4);
    expect(csv.slice(1).every((l) => l.includes(',completed,'))).toBe(true);
    // A fresh clone holds only the committed progress: every run comes back, none runs again.
    const elsewhere = lfnlab(
      'campaign',
      'run',
      file,
      '--out',
      join(tmp, 'campaign-elsewhere'),
      '--progress',
      progress,
    );
    expect(elsewhere.status, elsewhere.stderr).toBe(0);
    expect(elsewhere.stdout).toMatch(/progress: 3 finished runs restored/);
    expect(elsewhere.stdout).toMatch(/0 run now, 3 already done/);
  });

  it('SIGUSR2 mid-run: the run in progress completes and is kept, no new one starts, exit 130, the lab left clean', async () => {
    const out = join(tmp, 'drained');
    const { child } = startCampaign('drain', ['reno', 'htcp'], out);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // The first run has started (the campaign prints its line as it starts): ask for the drain.
    await waitForLine(child, /^\[1\/2\] reno \(001-reno-r1\)$/);
    child.kill('SIGUSR2');
    expect(await exited, stderr).toBe(130);
    expect(stderr).toMatch(/finishing the runs in progress, then stopping/);
    const summary = JSON.parse(readFileSync(join(out, 'runs/001-reno-r1/summary.json'), 'utf8'));
    expect(summary.status).toBe('completed');
    expect(existsSync(join(out, 'runs/002-htcp-r1'))).toBe(false);
    expect(await labContents()).toMatchObject({ namespaces: [], processes: [] });
  });
});
