// Issue 14, honest endings: when qemu or the agent dies mid-run, the run says so, exits non-zero,
// records status failed with a partial summary from the samples that arrived, and the next run
// boots a fresh lab.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plan } from '@lfnlab/emulator';
import { readLab } from '@lfnlab/lab-images';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootTestLab, runSpec, TEST_LAB } from '../../test/support/lab.js';
import { findMetric } from '../report/format.js';
import type { RunSummary } from '../run/summary.js';

const CLI = fileURLToPath(new URL('../../bin/lfnlab.js', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'lfnlab-death-'));
const SPEC = `name: qemu-dies
duration: 20s
paths: {main: {rtt: 40ms, rate: 20Mbit}}
flows: [{stack: cubic}]
`;

const readSummary = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RunSummary & { partial?: boolean };

beforeAll(async () => {
  await bootTestLab();
});

describe('the lab dies mid-run', () => {
  let killedPid = 0;

  it('qemu killed with SIGKILL: lfnlab run says so, exits 1, records failed + partial with a summary', async () => {
    const file = join(tmp, 'qemu-dies.yaml');
    writeFileSync(file, SPEC);
    const out = join(tmp, 'run-qemu');
    const child = spawn('node', [CLI, 'run', file, '--out', out, '--lab', TEST_LAB]);
    let stdout = '';
    const fiveSeconds = new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        // A progress line at 5 s of lab time or later: samples have been flowing for five seconds.
        // (Progress lines come every 5 s of wall time; on a dilated clock their lab times vary.)
        const lab = [...stdout.matchAll(/t=\s+([\d.]+) s\s+of 20 s/g)].map((m) => Number(m[1]));
        if (lab.some((t) => t >= 5)) resolve();
      });
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    await fiveSeconds;
    const lab = readLab(TEST_LAB);
    expect(lab).not.toBeNull();
    killedPid = lab?.pid ?? 0;
    process.kill(killedPid, 'SIGKILL');
    const code = await exited;
    console.log(stdout.split('\n').slice(-8).join('\n'), stderr);
    expect(code).toBe(1);
    expect(stdout).toMatch(/failed: the lab '.+' died mid-run: its qemu process is gone/);
    const s = readSummary(out);
    expect(s.status).toBe('failed');
    expect(s.partial).toBe(true);
    // Computed from the goodput samples that arrived in the five seconds before the kill.
    const goodput = findMetric(s.metrics.flows[0]?.metrics, 'throughput.mean');
    console.log(`partial summary: throughput.mean ${goodput} bit/s`);
    expect(goodput).toBeGreaterThan(1e6);
    const events = readFileSync(join(out, 'events.jsonl'), 'utf8');
    expect(events).toMatch(/"type":"failed"/);
    expect(readLab(TEST_LAB)).toBeNull();
  });

  it('the agent killed mid-run: the run ends failed (the lab stopped answering) in a fresh lab, then retires it', async () => {
    // The next run boots a fresh lab: the dead one was noticed and cleared.
    const killAgentAt5s = (plan: Plan): Plan => ({
      ...plan,
      changes: [
        ...plan.changes,
        {
          at: 5000,
          path: '(test: kill the agent)',
          // Test-only: the command's parent is the agent that runs it.
          cmds: [{ argv: ['sh', '-c', 'kill -KILL $PPID'] }],
        },
      ],
    });
    const t0 = Date.now();
    const r = await runSpec(
      {
        name: 'agent-dies',
        duration: '20s',
        paths: { main: { rtt: '40ms', rate: '20Mbit' } },
        flows: [{ stack: 'cubic' }],
      },
      { alterPlan: killAgentAt5s },
    );
    const env = r.read('environment.json') as { lab: { pid: number; startedAt: string } };
    expect(env.lab.pid).not.toBe(killedPid);
    expect(Date.parse(env.lab.startedAt)).toBeGreaterThanOrEqual(t0 - 1000);
    expect(r.summary.status).toBe('failed');
    expect(r.summary.error).toMatch(/stopped answering mid-run.*next run boots a fresh lab/);
    const s = readSummary(r.dir);
    expect(s.partial).toBe(true);
    expect(findMetric(s.metrics.flows[0]?.metrics, 'throughput.mean')).toBeGreaterThan(1e6);
    expect(readLab(TEST_LAB)).toBeNull();
    expect(existsSync(join(r.dir, 'summary.json'))).toBe(true);
  });
});
