import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sample } from '../run/samples.js';
import type { WorkerBatch } from '../service/workerRuns.js';
import { RunStream } from './runStream.js';
import { type ServiceClient, ServiceRefused } from './serviceClient.js';

/** A service that is away while `away` is true, and records every batch it acknowledges. */
function service() {
  const acked: WorkerBatch[] = [];
  const state = { away: false, refuse: false };
  const client = {
    batchOnce: async (_runId: string, b: WorkerBatch) => {
      if (state.refuse) throw new ServiceRefused(409, 'run r1 is failed');
      if (state.away) throw new Error('the service at http://x is unreachable (ECONNREFUSED)');
      acked.push(b);
    },
  } as unknown as ServiceClient;
  return { client, acked, state };
}

const tcp = (t: number) => ({ kind: 'tcp', t, flow: 'f0' }) as unknown as Sample;

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a run’s stream to the service', () => {
  it('keeps batches on disk while the service is away and delivers each once, in order, when it is back', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-stream-'));
    const svc = service();
    const lines: string[] = [];
    const spoolDir = join(dir, 'r1.spool');
    const stream = new RunStream({
      client: svc.client,
      runId: 'r1',
      spoolDir,
      log: (l) => lines.push(l),
      onRefused: () => undefined,
      everyMs: 10,
      retryEveryMs: 20,
    });
    svc.state.away = true;
    for (let t = 1; t <= 5; t++) stream.feed.onSample(tcp(t));
    // Waits on disk, not in memory alone.
    await expect.poll(() => readdirSync(spoolDir).length, { timeout: 5000 }).toBeGreaterThanOrEqual(1);
    for (let t = 6; t <= 10; t++) stream.feed.onSample(tcp(t));
    svc.state.away = false;
    await stream.close(5000);
    const seqs = svc.acked.map((b) => b.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(svc.acked.flatMap((b) => b.samples.map((s) => s.t))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(stream.pending).toBe(0);
    expect(lines.some((l) => /unreachable.*batches wait in/.test(l))).toBe(true);
    expect(lines.some((l) => /answers again after \d+ s; replaying/.test(l))).toBe(true);
    stream.stop();
    expect(existsSync(spoolDir)).toBe(false);
  });

  it('stops at the service’s refusal, once, and says why', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-stream-'));
    const svc = service();
    const refusals: string[] = [];
    const stream = new RunStream({
      client: svc.client,
      runId: 'r1',
      spoolDir: join(dir, 'r1.spool'),
      log: () => undefined,
      onRefused: (why) => refusals.push(why),
      everyMs: 10,
    });
    svc.state.refuse = true;
    stream.feed.onSample(tcp(1));
    await stream.close(5000);
    expect(stream.refused).toBe(true);
    expect(refusals).toEqual(['run r1 is failed']);
    stream.stop();
  });

  it('gives up on a service that stays away beyond the time it was given, naming what is left', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-stream-'));
    const svc = service();
    svc.state.away = true;
    const stream = new RunStream({
      client: svc.client,
      runId: 'r1',
      spoolDir: join(dir, 'r1.spool'),
      log: () => undefined,
      onRefused: () => undefined,
      everyMs: 10,
      retryEveryMs: 20,
    });
    stream.feed.onSample(tcp(1));
    await expect(stream.close(200)).rejects.toThrow(/within 0 s; \d+ left in .*r1\.spool/);
    stream.stop();
  });
});
