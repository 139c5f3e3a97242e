// The dashboards against a real run: an experiment in the TCG lab (two stacks, UDP cross traffic),
// its directory loaded into a real influxd by `reindex` (samples, events, summary), then every
// Run, Compare and Campaign query, variables resolved from the data, must return data.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DASHBOARDS, type Dashboard, generateDashboards } from '@lfnlab/grafana';
import {
  ensureInfluxd,
  type RunningInfluxd,
  resolveVariables,
  runAllQueries,
  startInfluxd,
} from '@lfnlab/grafana/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootTestLab, runSpec } from '../../test/support/lab.js';
import { InfluxClient } from './influx.js';
import { reindexRun, runContext } from './reindex.js';
import { SampleWriter } from './writer.js';

const DB = 'lfnlab';
const influxd = ensureInfluxd((s) => console.log(s));
const dashboards = new Map(generateDashboards().map((g) => [g.dashboard.uid, g.dashboard]));
const dashboard = (uid: string) => dashboards.get(uid) as Dashboard;

describe.skipIf(!influxd.ok)('dashboards on a real lab run', () => {
  let influx: RunningInfluxd;
  let tmp: string;
  let runId: string;
  let t0: number;
  let endMs: number;
  const run = (q: string) => influx.query(q, DB);

  beforeAll(async () => {
    if (!influxd.ok) return;
    await bootTestLab();
    const out = await runSpec({
      name: 'grafana-real',
      duration: '6s',
      sampleHz: 10,
      paths: {
        main: { rtt: '20ms', rate: '20Mbit', cross: [{ pattern: 'cbr', rate: '2Mbit' }] },
      },
      flows: [{ stack: 'cubic' }, { stack: 'bbr', start: '1s' }],
    });
    expect(out.summary.status).toBe('completed');
    tmp = mkdtempSync(join(tmpdir(), 'lfnlab-grafana-real-'));
    influx = await startInfluxd({ bin: influxd.bin });
    const writer = await SampleWriter.open({
      client: new InfluxClient({ url: influx.url }),
      database: DB,
      retentionPolicy: { name: 'lfnlab', duration: '30d' },
      spoolDir: join(tmp, 'spool'),
    });
    const r = await reindexRun(out.dir, writer, { user: 'ada', campaign: 'real-sweep' });
    await writer.close();
    expect(writer.stats()).toMatchObject({ rejected: 0 });
    runId = r.runId;
    // Grafana's range is whole ms; the lab clock is not.
    t0 = Math.floor(runContext(out.dir).t0EpochMs);
    endMs = t0 + 8000;
  }, 900_000);

  afterAll(async () => {
    await influx?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('Run: every panel and annotation query returns the run’s data', async () => {
    const d = dashboard(DASHBOARDS.run.uid);
    const vars = await resolveVariables(run, d, { run: [runId], flow: 'all', stack: 'all' });
    expect(vars.stack?.options.sort()).toEqual(['bbr', 'cubic']);
    // A dumbbell run: the wire panel's measurement has nothing of it (the unit test's synthetic run does).
    const wire = d.panels.find((p) => p.title === 'Wire: flows as the lab saw them');
    const empty = ['A', 'B'].map((ref) => `panel ${wire?.id} "${wire?.title}" ${ref}`);
    const { ran } = await runAllQueries(run, d, vars, t0 - 2000, endMs, empty, '30m');
    expect(ran).toBeGreaterThan(60);
  });

  it('Compare and Campaign: the run overlaid and its summary in the sweep table', async () => {
    const compare = dashboard(DASHBOARDS.compare.uid);
    await runAllQueries(
      run,
      compare,
      await resolveVariables(run, compare, { run: [runId] }),
      t0 - 2000,
      endMs,
      [],
      '30m',
    );
    const campaign = dashboard(DASHBOARDS.campaign.uid);
    const vars = await resolveVariables(run, campaign, {
      campaign: ['real-sweep'],
      stack: 'all',
      path: 'all',
    });
    // One run has one verdict: the other verdicts' counts are empty.
    const byVerdict = campaign.panels.find((p) => p.title === 'Runs by verdict');
    const { results } = await runAllQueries(
      run,
      campaign,
      vars,
      t0 - 2000,
      endMs,
      [`panel ${byVerdict?.id} "Runs by verdict"`],
      '30m',
    );
    const counted = [...results.entries()]
      .filter(([k]) => k.startsWith(`panel ${byVerdict?.id} `))
      .flatMap(([, r]) => r.series?.flatMap((x) => x.values.map((v) => v[1])) ?? []);
    expect(counted).toEqual([1]);
  });
});
