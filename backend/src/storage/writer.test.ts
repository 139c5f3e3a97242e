// The writer across outages and restarts: a real influxd (1.x) on 127.0.0.1, killed and started
// again on the same data directory; plus a scripted client for what 1.x cannot be made to do.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  findInfluxd,
  freePort,
  influxdSuiteTitle,
  type RunningInfluxd,
  startInfluxd,
} from '@lfnlab/grafana/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InfluxClient, InfluxError, type RetentionPolicy } from './influx.js';
import { type RunContext, samplePoint } from './points.js';
import { SampleWriter } from './writer.js';

const influxd = findInfluxd();

const rp: RetentionPolicy = { name: 'lfn', duration: 'INF' };
const ctxFor = (runId: string): RunContext => ({
  runId,
  user: 'ada',
  t0EpochMs: Math.floor(Date.now() / 1000) * 1000 - 3_600_000,
  flows: {},
});
const rttPoint = (ctx: RunContext, seq: number) =>
  samplePoint(ctx, { kind: 'rtt', t: seq / 1000, path: 'main', rttMs: 20 + (seq % 7), seq });
const seqOf = (line: string) => Number(/[ ,]seq=(\d+)/.exec(line)?.[1]);
const segments = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('seg-'));
const turn = () => new Promise<void>((r) => setImmediate(r));
const quiet = () => undefined;
/** Wait for a condition, polling, up to a deadline. */
async function until(cond: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const title = 'SampleWriter against a real influxd';
describe.skipIf(!influxd)(influxdSuiteTitle(title, influxd), () => {
  let dir: string;
  let server: RunningInfluxd;
  let client: InfluxClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-writer-'));
    server = await startInfluxd({ dir: join(dir, 'influxd') });
    client = new InfluxClient({ url: server.url, timeoutMs: 5000 });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const countSeq = async (run: string) =>
    (await client.query(`SELECT count(seq) FROM lfn_rtt WHERE run = '${run}'`, 'lfn'))[0]?.values[0]?.[1] ??
    0;

  it('loses nothing when influxd is killed mid-stream and comes back, and writes in order', async () => {
    const ctx = ctxFor('outage');
    const sent: number[] = []; // seq of every line InfluxDB acknowledged, in the order it did
    const recording = {
      write: async (db: string, lines: string | readonly string[], p?: string) => {
        await client.write(db, lines, p);
        for (const l of lines as string[]) sent.push(seqOf(l));
      },
      ensureDatabase: client.ensureDatabase.bind(client),
    };
    const logs: string[] = [];
    const w = await SampleWriter.open({
      client: recording,
      database: 'lfn',
      retentionPolicy: rp,
      spoolDir: join(dir, 'spool-outage'),
      batchLines: 500,
      batchMs: 20,
      retryMinMs: 50,
      retryMaxMs: 500,
      log: (m) => logs.push(m),
    });
    const total = 30_000;
    let seq = 0;
    // Up: the first 10 000, with the worker sending as they come; once InfluxDB has taken some,
    // influxd is killed (SIGKILL) with batches in memory and on the wire.
    for (; seq < 10_000; seq++) {
      w.add(rttPoint(ctx, seq));
      if (seq % 250 === 249) await turn();
      if (seq === 4_000) await until(() => sent.length >= 2_000, 'the first writes');
      if (seq === 6_000) await server.kill();
    }
    const atKill = sent.length;
    expect(atKill).toBeGreaterThanOrEqual(2_000);
    // Down: 10 000 more; flush puts everything on disk.
    for (; seq < 20_000; seq++) {
      w.add(rttPoint(ctx, seq));
      if (seq % 250 === 249) await turn();
    }
    await w.flush();
    const down = w.stats();
    expect(down.spooled).toBe(20_000 - down.written);
    expect(down.pending).toEqual({ memory: 0, spool: 20_000 - down.written });
    expect(segments(join(dir, 'spool-outage')).length).toBeGreaterThan(0);
    // Back on the same data directory and ports: 10 000 more arrive while the spool replays.
    server = await startInfluxd({
      dir: server.dir,
      httpPort: server.httpPort,
      rpcPort: server.rpcPort,
    });
    for (; seq < total; seq++) {
      w.add(rttPoint(ctx, seq));
      if (seq % 250 === 249) await turn();
    }
    await w.drain(60_000);
    await w.close();
    const st = w.stats();
    console.log(
      `outage: ${total} points, ${atKill} written before the kill, ${down.written} before the restart, ` +
        `${st.spooled} spooled, ${st.replayed} replayed, ${st.written} written in all, ${st.rejected} rejected`,
    );
    expect(st).toMatchObject({
      accepted: total,
      written: total,
      rejected: 0,
      pending: { memory: 0, spool: 0 },
    });
    expect(st.replayed).toBe(st.spooled);
    expect(sent).toEqual(Array.from({ length: total }, (_, i) => i)); // each once, oldest first
    expect(await countSeq('outage')).toBe(total);
    const stored = await client.query(`SELECT seq FROM lfn_rtt WHERE run = 'outage'`, 'lfn', {
      epoch: 'u',
    });
    const rows = stored[0]?.values ?? [];
    expect(rows.map((r) => r[1])).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(rows[1]?.[0]).toBe(ctx.t0EpochMs * 1000 + 1000);
    expect(segments(join(dir, 'spool-outage'))).toEqual([]);
    expect(logs.join('\n')).toMatch(/does not take writes .*no answer from InfluxDB/);
  }, 120_000);

  it('leaves a spool when closed while influxd is down; a new writer on it replays it', async () => {
    const ctx = ctxFor('restart');
    const spoolDir = join(dir, 'spool-restart');
    const nobody = new InfluxClient({ url: `http://127.0.0.1:${await freePort()}`, timeoutMs: 2000 });
    const w1 = await SampleWriter.open({
      client: nobody,
      database: 'lfn',
      retentionPolicy: rp,
      spoolDir,
      batchLines: 500,
      log: quiet,
    });
    for (let i = 0; i < 1234; i++) w1.add(rttPoint(ctx, i));
    await expect(SampleWriter.open({ client, database: 'lfn', spoolDir })).rejects.toThrow(/already open/);
    await w1.close({ drainMs: 0 });
    expect(w1.stats()).toMatchObject({
      accepted: 1234,
      written: 0,
      spooled: 1234,
      pending: { memory: 0, spool: 1234 },
    });
    const files = segments(spoolDir);
    expect(files.reduce((n, f) => n + Number(/-(\d+)\.lp$/.exec(f)?.[1]), 0)).toBe(1234);
    const first = readFileSync(join(spoolDir, files[0] as string), 'utf8').split('\n');
    expect(first[0]).toMatch(/^lfn_rtt,path=main,run=restart,user=ada rtt_ms=20,seq=0 \d+$/);
    expect(readdirSync(spoolDir)).not.toContain('lock');

    // As if the process had crashed: a lock of a dead process and a half-written segment.
    const dead = spawnSync('true');
    writeFileSync(join(spoolDir, 'lock'), `${dead.pid}\n`);
    writeFileSync(join(spoolDir, '.tmp-99.lp'), 'lfn_rtt,run=restart rtt_ms=1');
    // Another database on this spool would send its points to the wrong place.
    await expect(
      SampleWriter.open({ client, database: 'other', retentionPolicy: rp, spoolDir }),
    ).rejects.toThrow(/holds points for lfn\.lfn, not other\.lfn/);

    const w2 = await SampleWriter.open({
      client,
      database: 'lfn',
      retentionPolicy: rp,
      spoolDir,
      log: quiet,
    });
    expect(w2.stats()).toMatchObject({ recovered: 1234, pending: { memory: 0, spool: 1234 } });
    await w2.drain();
    await w2.close();
    expect(w2.stats()).toMatchObject({
      recovered: 1234,
      replayed: 1234,
      written: 1234,
      rejected: 0,
      pending: { spool: 0 },
    });
    expect(await countSeq('restart')).toBe(1234);
    expect(readdirSync(spoolDir).sort()).toEqual(['spool.json']);
  }, 60_000);
});

describe('SampleWriter with a scripted client', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-writer-fake-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('replays 5xx failures in order and halves a 400 that does not say which lines were bad', async () => {
    const stored: string[] = [];
    let calls = 0;
    const fake = {
      write: async (_db: string, lines: string | readonly string[]) => {
        calls += 1;
        const ls = lines as string[];
        if (calls <= 3) throw new InfluxError('write: HTTP 503', 503, '{"error":"busy"}');
        if (ls.some((l) => l.includes('BAD')))
          throw new InfluxError('write: HTTP 400', 400, '{"error":"bad request"}');
        stored.push(...ls);
      },
      ensureDatabase: async () => undefined,
    };
    const w = await SampleWriter.open({
      client: fake,
      database: 'lfn',
      spoolDir: join(dir, 'spool'),
      batchLines: 64,
      retryMinMs: 10,
      log: quiet,
    });
    const ctx = ctxFor('fake');
    for (let i = 0; i < 1000; i++) {
      w.add(rttPoint(i === 100 || i === 900 ? { ...ctx, runId: 'BAD' } : ctx, i));
      if (i % 100 === 99) await turn();
    }
    await w.drain(10_000);
    await w.close();
    expect(w.stats()).toMatchObject({
      accepted: 1000,
      written: 998,
      rejected: 2,
      pending: { memory: 0, spool: 0 },
    });
    expect(w.stats().spooled).toBeGreaterThan(0);
    expect(stored.map(seqOf)).toEqual(
      Array.from({ length: 1000 }, (_, i) => i).filter((i) => i !== 100 && i !== 900),
    );
  });

  it('replays many small segments in requests of a batch', async () => {
    let up = false;
    const requests: number[] = [];
    const fake = {
      write: async (_db: string, lines: string | readonly string[]) => {
        if (!up) throw new InfluxError('write: no answer', null, '');
        requests.push(lines.length);
      },
      ensureDatabase: async () => undefined,
    };
    const spoolDir = join(dir, 'spool-small');
    const w = await SampleWriter.open({
      client: fake,
      database: 'lfn',
      spoolDir,
      batchLines: 100,
      retryMinMs: 10,
      log: quiet,
    });
    const ctx = ctxFor('small');
    for (let i = 0; i < 250; i++) {
      w.add(rttPoint(ctx, i));
      if (i % 10 === 9) await w.flush(); // one 10-line segment each time
    }
    expect(segments(spoolDir)).toHaveLength(25);
    up = true;
    await w.drain(10_000);
    await w.close();
    expect(requests).toEqual([100, 100, 50]);
    expect(w.stats()).toMatchObject({ written: 250, spooled: 250, replayed: 250 });
  });
});
