// The service with a real influxd and the fake lab: full-rate samples reach InfluxDB while the
// browser gets them downsampled.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findInfluxd, type RunningInfluxd, startInfluxd } from '@lfnlab/grafana/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  runEnded,
  SHORT_SPEC,
  type TestServer,
  testServer,
} from '../../test/support/testkit.js';
import type { Run } from '../service/types.js';
import { InfluxClient, literal } from '../storage/influx.js';
import { Storage } from '../storage/runStorage.js';

describe.skipIf(!findInfluxd())('service storage with a real influxd', () => {
  let dir: string;
  let influx: RunningInfluxd;
  let storage: Storage;
  let s: TestServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-serve-influx-'));
    influx = await startInfluxd({ dir: join(dir, 'influxd') });
    storage = await Storage.open({ url: influx.url, spoolDir: join(dir, 'spool'), healthEveryMs: 0 });
    s = await testServer({ storage, fake: { timeScale: 20 } });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await storage?.close();
    await influx?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes every sample at full rate, tagged with run and owner; the socket gets 10 Hz', async () => {
    const admin = await adminClient(s);
    const spec = SHORT_SPEC.replace('name: short', 'name: short\nsampleHz: 40');
    const run = await admin.json<Run>('POST', '/api/runs', { text: spec });
    const live: number[] = [];
    s.services.hub.open(run.id).subscribe((m) => {
      if (m.type === 'sample' && m.sample.kind === 'tcp' && m.sample.flow === 'reno-1') live.push(m.sample.t);
    });
    expect((await runEnded(s, run.id)).status).toBe('completed');
    await storage.flush();
    const client = new InfluxClient({ url: influx.url });
    const rows = await client.query(
      `SELECT count(srtt_ms) FROM lfn_tcp WHERE run = ${literal(run.id)} AND flow = 'reno-1' AND "user" = 'admin'`,
      'lfnlab',
    );
    const stored = Number(rows[0]?.values?.[0]?.[1] ?? 0);
    expect(stored).toBe(4 * 40);
    expect(live.length).toBeLessThanOrEqual(4 * 10 + 1);
    expect(live.length).toBeGreaterThanOrEqual(4 * 10 - 1);
    expect(s.storage.health().influx).toBe('up');
    const h = await s.app.inject({ method: 'GET', url: '/api/health' });
    expect(h.json().influx).toBe('up');
  });
});
