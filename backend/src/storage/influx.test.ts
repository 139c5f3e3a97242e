// Against a real influxd (1.x) the test starts on 127.0.0.1 with a temporary data directory.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MEASUREMENTS } from '@lfnlab/grafana';
import { findInfluxd, influxdSuiteTitle, type RunningInfluxd, startInfluxd } from '@lfnlab/grafana/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sample } from '../run/samples.js';
import { durationNs, InfluxClient, InfluxError, literal } from './influx.js';
import { type Point, type RunContext, samplePoint } from './points.js';
import { refusedLines, SampleWriter } from './writer.js';

const influxd = findInfluxd();

/** Ten ticks of every sample kind for two flows on one path; nulls where a sampler may give them. */
function fakeSamples(ticks: number): Sample[] {
  const out: Sample[] = [];
  for (let i = 0; i < ticks; i++) {
    const t = i * 0.1;
    for (const flow of ['cubic-1', 'bbr-2']) {
      out.push({
        kind: 'tcp',
        t,
        flow,
        streams: 1,
        cc: flow.split('-')[0] as string,
        cwndPackets: 100 + i,
        ssthreshPackets: i % 2 === 0 ? null : 50,
        srttMs: 50 + i / 10,
        rttvarMs: 1,
        minRttMs: 50,
        pacingBps: null,
        deliveryBps: 9e7,
        bytesAcked: 1e6 * i,
        retransSegments: i,
        lostPackets: 0,
        unackedPackets: 99,
        dataSegsOut: 10 * i,
      });
      out.push({ kind: 'goodput', t, flow, bps: 1e8 + i, bytesReceived: 1e6 * i });
      out.push({
        kind: 'interval',
        t: t + 1,
        flow,
        seconds: 1,
        goodputBps: 9e7,
        sendBps: i === 0 ? null : 9.5e7,
        retransmits: 2,
        cwndBytes: 150_000,
        rttMs: 51,
        streams: [{ socket: 5, cwndBytes: 150_000, rttMs: 51, retransmits: 2, sendBps: 9.5e7 }],
      });
    }
    out.push({
      kind: 'queue',
      t,
      path: 'main',
      stage: 'bottleneck',
      direction: 'forward',
      dev: 'eth1',
      backlogPackets: i,
      backlogBytes: 1500 * i,
      drops: 0,
      packets: 1000 * i,
      bytes: 1.5e6 * i,
    });
    out.push({ kind: 'cpu', t, busyPct: 10 + i, userPct: 1, systemPct: 2, softirqPct: 7 + i });
    out.push({ kind: 'rtt', t, path: 'main', rttMs: 50.25, seq: i });
  }
  return out;
}

const title = 'InfluxDB v1 client and writer (real influxd)';
describe.skipIf(!influxd)(influxdSuiteTitle(title, influxd), () => {
  let dir: string;
  let server: RunningInfluxd;
  let client: InfluxClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-influx-'));
    server = await startInfluxd({ dir: join(dir, 'influxd') });
    client = new InfluxClient({ url: server.url });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('pings, listens on loopback only, and names status and body in errors', async () => {
    expect((await client.ping()).version).toMatch(/^1\./);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Every socket influxd listens on is 127.0.0.1 (Linux's /proc/net/tcp: 0100007F, state 0A).
    const hex = (p: number) => p.toString(16).toUpperCase().padStart(4, '0');
    const listening = ['/proc/net/tcp', '/proc/net/tcp6']
      .flatMap((f) => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').slice(1) : []))
      .map((l) => l.trim().split(/\s+/))
      .filter(
        (c) =>
          c[3] === '0A' && [hex(server.httpPort), hex(server.rpcPort)].includes(c[1]?.split(':')[1] ?? ''),
      )
      .map((c) => c[1]?.split(':')[0]);
    expect(listening).toEqual(['0100007F', '0100007F']);
    const err = await client.write('nowhere', ['m x=1 1']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InfluxError);
    expect((err as InfluxError).status).toBe(404);
    expect((err as InfluxError).message).toMatch(/HTTP 404: database not found: "nowhere"/);
    expect((err as InfluxError).retryable).toBe(true); // created later, then written: not a bad line
    await expect(client.query('SELECT nonsense')).rejects.toThrow(/HTTP 400.*error parsing query/);
    const down = new InfluxClient({ url: 'http://127.0.0.1:1', timeoutMs: 2000 });
    const e2 = await down.ping().catch((e: unknown) => e);
    expect((e2 as InfluxError).status).toBeNull();
    expect((e2 as InfluxError).retryable).toBe(true);
  });

  it('ensureDatabase is idempotent and makes its retention policy the default', async () => {
    for (let i = 0; i < 3; i++) await client.ensureDatabase('lfn_rp_test', { name: 'lfn', duration: '30d' });
    const show = async () => (await client.query('SHOW RETENTION POLICIES ON lfn_rp_test'))[0]?.values ?? [];
    expect(await show()).toEqual([
      ['autogen', '0s', '168h0m0s', 1, false],
      ['lfn', '720h0m0s', '24h0m0s', 1, true],
    ]);
    await client.ensureDatabase('lfn_rp_test', { name: 'lfn', duration: '4w' }); // altered, not an error
    await client.ensureDatabase('lfn_rp_test', { name: 'lfn', duration: '4w' });
    expect((await show()).find((r) => r[0] === 'lfn')?.slice(1, 2)).toEqual(['672h0m0s']);
    await client.ensureDatabase('lfn_rp_test', { name: 'forever', duration: 'INF' });
    expect((await show()).filter((r) => r[4] === true).map((r) => r[0])).toEqual(['forever']);
    expect(
      (await client.query('SHOW DATABASES'))[0]?.values.flat().filter((d) => d === 'lfn_rp_test'),
    ).toHaveLength(1);
    expect(durationNs('720h0m0s')).toBe(durationNs('30d'));
    expect(durationNs('1h30m')).toBe(5400e9);
    expect(() => durationNs('30 days')).toThrow(/not an InfluxQL duration/);
  });

  it('writes points of every sample kind and reads back counts and values', async () => {
    const t0EpochMs = Math.floor(Date.now() / 1000) * 1000 - 600_000;
    const ctx: RunContext = {
      runId: 'kinds',
      user: 'ada',
      t0EpochMs,
      flows: {
        'cubic-1': { stack: 'cubic', path: 'main', direction: 'forward' },
        'bbr-2': { stack: 'bbr', path: 'main', direction: 'reverse' },
      },
    };
    const samples = fakeSamples(10);
    const w = await SampleWriter.open({
      client,
      database: 'lfn',
      retentionPolicy: { name: 'lfn', duration: 'INF' },
      spoolDir: join(dir, 'spool-kinds'),
      log: () => undefined,
    });
    for (const s of samples) w.add(samplePoint(ctx, s));
    await w.drain();
    await w.close();
    const st = w.stats();
    expect(st).toMatchObject({
      accepted: samples.length,
      written: samples.length,
      spooled: 0,
      rejected: 0,
      empty: 0,
    });

    const count = async (m: string, f: string, extra = '') =>
      (await client.query(`SELECT count(${f}) FROM ${m} WHERE run = 'kinds'${extra}`, 'lfn'))[0]
        ?.values[0]?.[1];
    expect(await count(MEASUREMENTS.tcp, 'cwnd_packets')).toBe(20);
    expect(await count(MEASUREMENTS.tcp, 'ssthresh_packets')).toBe(10); // nulls are not written
    expect(await count(MEASUREMENTS.tcp, 'pacing_bps')).toBeUndefined();
    expect(await count(MEASUREMENTS.goodput, 'bps')).toBe(20);
    expect(await count(MEASUREMENTS.interval, 'goodput_bps')).toBe(20);
    expect(await count(MEASUREMENTS.interval, 'send_bps')).toBe(18);
    expect(await count(MEASUREMENTS.queue, 'backlog_packets')).toBe(10);
    expect(await count(MEASUREMENTS.cpu, 'busy_pct')).toBe(10);
    expect(await count(MEASUREMENTS.rtt, 'rtt_ms')).toBe(10);

    const byFlow = await client.query(
      `SELECT mean(cwnd_packets), max(retrans_segments) FROM lfn_tcp WHERE run = 'kinds' GROUP BY flow, stack, direction, "user"`,
      'lfn',
    );
    // Series come sorted by their tags in key order (direction first here), not in GROUP BY's order.
    expect(byFlow.map((s) => [s.tags, s.values[0]?.slice(1)])).toEqual([
      [{ flow: 'cubic-1', stack: 'cubic', direction: 'forward', user: 'ada' }, [104.5, 9]],
      [{ flow: 'bbr-2', stack: 'bbr', direction: 'reverse', user: 'ada' }, [104.5, 9]],
    ]);
    const from = `${t0EpochMs}ms`;
    const perSecond = await client.query(
      `SELECT mean(bps) FROM lfn_goodput WHERE run = 'kinds' AND time >= ${from} AND time < ${from} + 1s GROUP BY time(500ms), flow`,
      'lfn',
      { epoch: 'ms' },
    );
    expect(perSecond).toHaveLength(2);
    expect(perSecond[0]?.values).toEqual([
      [t0EpochMs, 1e8 + 2],
      [t0EpochMs + 500, 1e8 + 7],
    ]);
    const q = await client.query(
      `SELECT backlog_bytes, dev, stage FROM lfn_queue WHERE run = ${literal('kinds')} AND time = ${t0EpochMs + 300}ms`,
      'lfn',
      { epoch: 'ms' },
    );
    expect(q[0]?.values).toEqual([[t0EpochMs + 300, 4500, 'eth1', 'bottleneck']]);
    const cpu = await client.query(`SELECT last(softirq_pct) FROM lfn_cpu WHERE run = 'kinds'`, 'lfn', {
      epoch: 'u',
    });
    expect(cpu[0]?.values).toEqual([[t0EpochMs * 1000 + 900_000, 16]]);
  }, 60_000);

  it('counts a malformed line as rejected once, and writes the rest of its batch', async () => {
    const ctx: RunContext = { runId: 'bad', user: 'ada', t0EpochMs: Date.now() - 60_000, flows: {} };
    const writes: number[] = [];
    const counting = {
      write: (db: string, lines: string | readonly string[], rp?: string) => {
        writes.push(lines.length);
        return client.write(db, lines, rp);
      },
      ensureDatabase: client.ensureDatabase.bind(client),
    };
    const logs: string[] = [];
    const w = await SampleWriter.open({
      client: counting,
      database: 'lfn',
      retentionPolicy: { name: 'lfn', duration: 'INF' },
      spoolDir: join(dir, 'spool-bad'),
      log: (m) => logs.push(m),
    });
    for (let i = 0; i < 10; i++)
      w.add(samplePoint(ctx, { kind: 'rtt', t: i, path: 'main', rttMs: 20, seq: i }));
    const bad: Point = {
      measurement: 'lfn_rtt',
      tags: { run: 'bad' },
      fields: { rtt_ms: 1 },
      timeNs: '12x',
    };
    w.add(bad);
    w.add({ ...bad, tags: { run: 'line\nbreak' }, timeNs: '1' });
    w.add({ ...bad, fields: {} }); // no field: no line at all
    await w.drain();
    await w.close();
    expect(w.stats()).toMatchObject({
      accepted: 13,
      written: 10,
      rejected: 2,
      empty: 1,
      spooled: 0,
      pending: { memory: 0, spool: 0 },
    });
    expect(writes).toEqual([11]); // one request; the bad line is not retried
    expect(logs.join('\n')).toMatch(
      /refused 1 of 11 lines \(HTTP 400\).*unable to parse 'lfn_rtt,run=bad rtt_ms=1 12x'/,
    );
    expect(logs.join('\n')).toMatch(/line break/);
    const n = await client.query(`SELECT count(rtt_ms) FROM lfn_rtt WHERE run = 'bad'`, 'lfn');
    expect(n[0]?.values[0]?.[1]).toBe(10);
    expect(readdirSync(join(dir, 'spool-bad')).filter((f) => f.startsWith('seg-'))).toEqual([]);
  }, 60_000);

  it('counts points beyond the retention policy as rejected (InfluxDB 1.x drops them with a 400)', async () => {
    await client.ensureDatabase('lfn_short', { name: 'week', duration: '7d' });
    const w = await SampleWriter.open({
      client,
      database: 'lfn_short',
      retentionPolicy: { name: 'week', duration: '7d' },
      spoolDir: join(dir, 'spool-old'),
      log: () => undefined,
    });
    const old: RunContext = {
      runId: 'old',
      user: 'ada',
      t0EpochMs: Date.now() - 30 * 86_400_000,
      flows: {},
    };
    const recent: RunContext = { ...old, t0EpochMs: Date.now() - 60_000 };
    for (let i = 0; i < 3; i++)
      w.add(samplePoint(old, { kind: 'rtt', t: i, path: 'main', rttMs: 20, seq: i }));
    for (let i = 0; i < 2; i++)
      w.add(samplePoint(recent, { kind: 'rtt', t: i, path: 'main', rttMs: 20, seq: i }));
    await w.close();
    expect(w.stats()).toMatchObject({ written: 2, rejected: 3, spooled: 0 });
  }, 60_000);
});

describe('refusedLines', () => {
  it("reads InfluxDB 1.x's partial-write answers", () => {
    expect(refusedLines("partial write: unable to parse 'a': x\nunable to parse 'b c': y dropped=0")).toBe(2);
    expect(refusedLines('partial write: points beyond retention policy dropped=3')).toBe(3);
    expect(refusedLines('partial write: field type conflict: input field "x" … dropped=1')).toBe(1);
    expect(refusedLines('something else')).toBeNull();
  });
});
