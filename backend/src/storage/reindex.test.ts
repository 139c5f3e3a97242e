// Rebuilding InfluxDB from a run directory (a small fake one), against a real influxd (1.x).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findInfluxd, influxdSuiteTitle, type RunningInfluxd, startInfluxd } from '@lfnlab/grafana/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sample } from '../run/samples.js';
import { InfluxClient } from './influx.js';
import { reindexRun, runContext } from './reindex.js';
import { SampleWriter } from './writer.js';

const influxd = findInfluxd();

const jsonl = (xs: unknown[]) => xs.map((x) => `${JSON.stringify(x)}\n`).join('');

/** A run directory as runExperiment leaves it, with the parts reindexing reads. */
function fakeRun(
  root: string,
  name: string,
  t0: number,
  summary: Record<string, unknown> | null,
  labRealtimeMs = t0,
): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'samples'), { recursive: true });
  writeFileSync(
    join(dir, 'spec.json'),
    JSON.stringify({
      name: 'two-stacks',
      duration: 2000,
      paths: { main: { rtt: 50, rate: 1e8 } },
      flows: [
        { name: 'cubic-1', stack: 'cubic', path: 'main', direction: 'forward', streams: 1 },
        { name: 'bbr-2', stack: 'bbr', path: 'main', direction: 'reverse', streams: 2 },
      ],
    }),
  );
  if (summary) writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
  writeFileSync(
    join(dir, 'events.jsonl'),
    jsonl([
      { at: new Date(t0 - 5000).toISOString(), type: 'created', dir },
      { at: new Date(t0).toISOString(), type: 'traffic', t0: new Date(t0).toISOString(), labRealtimeMs },
      { at: new Date(t0 + 2500).toISOString(), type: 'finished', status: 'completed' },
    ]),
  );
  const by: Record<string, Sample[]> = { tcp: [], goodput: [], queue: [], cpu: [], rtt: [], interval: [] };
  for (let i = 0; i < 20; i++) {
    const t = i / 10;
    for (const flow of ['cubic-1', 'bbr-2']) {
      by.tcp?.push({
        kind: 'tcp',
        t,
        flow,
        streams: 1,
        cc: 'x',
        cwndPackets: 10 + i,
        ssthreshPackets: null,
        srttMs: 50,
        rttvarMs: 1,
        minRttMs: 50,
        pacingBps: null,
        deliveryBps: 1e7,
        bytesAcked: i,
        retransSegments: 0,
        lostPackets: 0,
        unackedPackets: 1,
        dataSegsOut: i,
      });
      by.goodput?.push({ kind: 'goodput', t, flow, bps: 1e7 * (i + 1), bytesReceived: i * 1000 });
    }
    by.queue?.push({
      kind: 'queue',
      t,
      path: 'main',
      stage: 'delay',
      direction: 'reverse',
      dev: 'veth3',
      backlogPackets: i,
      backlogBytes: i,
      drops: 0,
      packets: i,
      bytes: i,
    });
    by.cpu?.push({ kind: 'cpu', t, busyPct: i, userPct: 0, systemPct: 0, softirqPct: 0 });
    by.rtt?.push({ kind: 'rtt', t: t - 0.5, path: 'main', rttMs: 50 + i, seq: i }); // the probe starts before traffic
  }
  for (const flow of ['cubic-1', 'bbr-2'])
    by.interval?.push({
      kind: 'interval',
      flow,
      t: 1,
      seconds: 1,
      goodputBps: 5e7,
      sendBps: 5e7,
      retransmits: 0,
      cwndBytes: null,
      rttMs: 50,
      streams: [],
    });
  for (const [kind, xs] of Object.entries(by))
    writeFileSync(join(dir, 'samples', `${kind}.jsonl`), jsonl(xs));
  // A crash can cut the last line of a file short.
  writeFileSync(join(dir, 'samples', 'cpu.jsonl'), `${jsonl(by.cpu ?? [])}{"kind":"cpu","t":2.0,"bu`);
  return dir;
}

const title = 'reindexRun (real influxd)';
describe.skipIf(!influxd)(influxdSuiteTitle(title, influxd), () => {
  let dir: string;
  let server: RunningInfluxd;
  let client: InfluxClient;
  let writer: SampleWriter;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-reindex-'));
    server = await startInfluxd({ dir: join(dir, 'influxd') });
    client = new InfluxClient({ url: server.url });
    writer = await SampleWriter.open({
      client,
      database: 'lfn',
      retentionPolicy: { name: 'lfn', duration: 'INF' },
      spoolDir: join(dir, 'spool'),
      log: () => undefined,
    });
  }, 60_000);

  afterAll(async () => {
    await writer?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('writes every sample of a run directory, tagged from its spec, on its lab clock; twice stores once', async () => {
    const t0 = Math.floor(Date.now() / 1000) * 1000 - 86_400_000 + 250;
    const run = fakeRun(dir, '2026-01-01-two-stacks', t0, {
      name: 'two-stacks',
      status: 'completed',
      flows: [],
    });
    const logs: string[] = [];
    const r = await reindexRun(run, writer, { user: 'grace', log: (m) => logs.push(m) });
    expect(r).toEqual({
      runId: '2026-01-01-two-stacks',
      user: 'grace',
      t0EpochMs: t0,
      samples: { cpu: 20, goodput: 40, interval: 2, queue: 20, rtt: 20, tcp: 40 },
      total: 142,
      skipped: 1,
    });
    expect(logs.join('\n')).toMatch(/cpu\.jsonl:21: not a sample, skipped/);
    await writer.drain();
    const q = (s: string, epoch?: 'ms') => client.query(s, 'lfn', epoch ? { epoch } : {});
    // `user` is an InfluxQL keyword: the tag has to be quoted.
    const where = `WHERE run = '2026-01-01-two-stacks' AND "user" = 'grace'`;
    const counts = async () =>
      Object.fromEntries(
        await Promise.all(
          [
            ['lfn_tcp', 'cwnd_packets'],
            ['lfn_goodput', 'bps'],
            ['lfn_queue', 'backlog_packets'],
            ['lfn_cpu', 'busy_pct'],
            ['lfn_rtt', 'rtt_ms'],
            ['lfn_interval', 'goodput_bps'],
          ].map(async ([m, f]) => [m, (await q(`SELECT count(${f}) FROM ${m} ${where}`))[0]?.values[0]?.[1]]),
        ),
      );
    const expected = {
      lfn_tcp: 40,
      lfn_goodput: 40,
      lfn_queue: 20,
      lfn_cpu: 20,
      lfn_rtt: 20,
      lfn_interval: 2,
    };
    expect(await counts()).toEqual(expected);
    const tags = await q(`SELECT count(bps) FROM lfn_goodput ${where} GROUP BY flow, stack, path, direction`);
    expect(tags.map((s) => s.tags).sort((a, b) => ((a.flow ?? '') < (b.flow ?? '') ? -1 : 1))).toEqual([
      { flow: 'bbr-2', stack: 'bbr', path: 'main', direction: 'reverse' },
      { flow: 'cubic-1', stack: 'cubic', path: 'main', direction: 'forward' },
    ]);
    const rtt = await q(`SELECT first(rtt_ms), seq FROM lfn_rtt ${where}`, 'ms');
    expect(rtt[0]?.values[0]).toEqual([t0 - 500, 50, 0]); // before t0 is fine
    const cpu = await q(`SELECT last(busy_pct) FROM lfn_cpu ${where}`, 'ms');
    expect(cpu[0]?.values[0]).toEqual([t0 + 1900, 19]);

    await reindexRun(run, writer, { user: 'grace' });
    await writer.drain();
    expect(await counts()).toEqual(expected);
    // 142 samples and the run's closing event (no flows in its summary: no flow ends), twice.
    expect(writer.stats()).toMatchObject({ written: 286, rejected: 0, spooled: 0 });
    const events = await q(`SELECT "text" FROM lfn_event ${where}`);
    expect(events[0]?.values.map((v) => v[1])).toEqual(['run completed']);
  }, 60_000);

  it("takes the run's id from summary.json when it has one, and needs the traffic event", async () => {
    const t0 = Date.now() - 3_600_000;
    const run = fakeRun(dir, 'some-dir', t0, { id: 'run-7f3a', name: 'two-stacks', status: 'completed' });
    expect(runContext(run)).toMatchObject({ runId: 'run-7f3a', user: 'local', t0EpochMs: t0 });
    // A dilated lab's clock 10 min ahead of the host's: the host's t0 still times the points.
    const ahead = fakeRun(dir, 'lab-ahead', t0, null, t0 + 600_000);
    expect(runContext(ahead).t0EpochMs).toBe(t0);
    expect(runContext(run).flows['bbr-2']).toEqual({ stack: 'bbr', path: 'main', direction: 'reverse' });
    writeFileSync(
      join(run, 'events.jsonl'),
      jsonl([
        { at: 'x', type: 'created' },
        { at: 'y', type: 'failed', error: 'no lab' },
      ]),
    );
    await expect(reindexRun(run, writer)).rejects.toThrow(/no traffic event with a t0/);
  });
});
