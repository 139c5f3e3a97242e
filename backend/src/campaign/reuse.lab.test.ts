// A campaign's runs that share a topology, in the real lab: the second run starts on the first
// run's dumbbell and calibration (verified by its own idle-RTT probe) and is still judged by every
// check; the campaign leaves nothing behind, whether it ends or is killed between runs.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectLab, LabBusyError } from '@lfnlab/lab-images';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootTestLab, TEST_LAB } from '../../test/support/lab.js';
import { expectValidButForDelayJitter } from '../../test/support/verdict.js';
import type { RunSummary } from '../run/summary.js';
import { parseCampaignText } from './expand.js';
import { type RunOne, runCampaign, runInLab } from './runCampaign.js';

const CLI = fileURLToPath(new URL('../../bin/lfnlab.js', import.meta.url));

const CAMPAIGN = `
name: kept
base:
  name: kept
  duration: 3s
  sampleHz: 10
  paths: { main: { rtt: 40ms, rate: 20Mbit, buffer: 1bdp } }
  flows: [{ stack: reno }]
vary:
  flows[0].stack: [reno, cubic]
order: sequential
`;

/** What the lab holds right now; waits while another client (a dying campaign) still has the channel. */
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

beforeAll(async () => {
  await bootTestLab();
});

describe('a campaign whose runs share a topology', () => {
  it('reuses the dumbbell and calibration, judges every run fully, and leaves the lab clean', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-kept-'));
    const inLab = runInLab(TEST_LAB, (l) => console.log(l));
    const runs: { dir: string; summary: RunSummary; ms: number }[] = [];
    let last = Date.now();
    const runOne: RunOne = async (spec, runDir, signal) => {
      const summary = await inLab(spec, runDir, signal);
      runs.push({ dir: runDir, summary, ms: Date.now() - last });
      last = Date.now();
      return summary;
    };
    runOne.close = inLab.close;
    const out = await runCampaign({
      campaign: parseCampaignText(CAMPAIGN),
      dir,
      runOne,
      log: (l) => console.log(l),
    });
    expect(out.rows.map((r) => r.status)).toEqual(['completed', 'completed']);
    const [first, second] = runs as [(typeof runs)[0], (typeof runs)[0]];
    for (const r of runs) {
      const checks = r.summary.fidelity?.checks ?? [];
      expectValidButForDelayJitter(r.summary.verdict, r.summary.fidelity?.reasons, r.dir);
      // The checks of what reuse keeps (the calibration: idle RTT; the dumbbell: rate and
      // spacing) are there, measured in this run, and pass.
      for (const id of ['idle-rtt:main', 'bottleneck-rate:main:forward', 'packet-spacing:main:forward']) {
        const c = checks.find((x) => x.id.startsWith(id));
        expect(c?.status, `${id} in ${checks.map((x) => x.id).join(', ')}`).toBe('pass');
      }
    }
    expect(first.summary.reuse).toBeUndefined();
    expect(second.summary.reuse).toMatchObject({ from: first.dir, calibratedBy: first.dir });
    const read = (d: string, f: string) => JSON.parse(readFileSync(join(d, f), 'utf8'));
    expect(read(second.dir, 'calibration.json').main.reusedFrom).toBe(first.dir);
    expect(read(second.dir, 'calibration.json').main.excessMs).toBe(
      read(first.dir, 'calibration.json').main.excessMs,
    );
    // The second run's idle RTT is its own measurement, on the kept calibration.
    expect(Math.abs(read(second.dir, 'idle-rtt.json').main.minMs - 40)).toBeLessThan(0.6);

    const traffic = (r: (typeof runs)[0]) => r.summary.clock?.wallS ?? 0;
    const between = second.ms / 1000 - traffic(second);
    console.log(
      `campaign overhead: first run ${(first.ms / 1000 - traffic(first)).toFixed(1)} s outside traffic (built and calibrated), second ${between.toFixed(1)} s (reused)`,
    );
    // Generous: the point is reuse happened and stayed correct, not a timing target.
    expect(between).toBeLessThan(first.ms / 1000 - traffic(first));

    const left = await labContents();
    expect(left.namespaces).toEqual([]);
    expect(left.processes).toEqual([]);
  });

  it('killed between runs with the dumbbell kept, leaves nothing in the lab', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'lfnlab-kept-kill-'));
    const file = join(tmp, 'kept.yaml');
    writeFileSync(file, CAMPAIGN);
    const child = spawn(
      'node',
      [CLI, 'campaign', 'run', file, '--out', join(tmp, 'out'), '--lab', TEST_LAB],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    await new Promise<void>((resolve, reject) => {
      let buf = '';
      child.stdout?.on('data', (d: Buffer) => {
        buf += d.toString();
        // The first run finished: its dumbbell stands, kept for the second.
        if (/\[1\/2\] reno \(001-reno-r1\): completed/.test(buf)) resolve();
      });
      child.on('exit', () => reject(new Error(`the campaign ended before its first run did:\n${buf}`)));
    });
    await new Promise<void>((resolve) => {
      child.removeAllListeners('exit');
      child.on('exit', () => resolve());
      child.kill('SIGKILL');
    });
    // The agent sees the channel close and removes what the campaign kept; poll until it has.
    let left = await labContents();
    for (let i = 0; i < 50 && (left.namespaces.length || left.processes.length); i++)
      left = await labContents();
    expect(left.namespaces).toEqual([]);
    expect(left.processes).toEqual([]);
  });
});
