// Every dashboard query, its variables and macros substituted the way Grafana does, run against a
// real influxd 1.x (Debian's 1.6.7) loaded with run-shaped data made by the backend's samplePoint()
// and lineProtocol(): each must parse, and each must return data.

import { DASHBOARDS, type Dashboard, generateDashboards } from '@lfnlab/grafana';
import {
  ensureInfluxd,
  type InfluxResult,
  type RunningInfluxd,
  resolveVariables,
  runAllQueries,
  type Selection,
  startInfluxd,
} from '@lfnlab/grafana/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAMPAIGN, DB, HOST, labLines, labRuns, runEndMs } from '../../test/support/dashboardLabData.js';

const influxd = ensureInfluxd((s) => console.log(s));
const title = influxd.ok
  ? `dashboard queries against real influxd (${influxd.version})`
  : `dashboard queries against real influxd — SKIPPED: ${influxd.reason}`;

const dashboards = new Map(generateDashboards().map((g) => [g.dashboard.uid, g.dashboard]));
const dashboard = (uid: string): Dashboard => {
  const d = dashboards.get(uid);
  if (!d) throw new Error(`no dashboard ${uid}`);
  return d;
};

// Data ends 40 s before the test starts, so relative ranges (now-10m → now) cover it too.
const base = Math.floor((Date.now() - 150_000) / 1000) * 1000;
const runs = labRuns(base);
const sampled = runs.filter((r) => !r.summaryOnly);
const [runA, runB, runC] = sampled;
if (!runA || !runB || !runC) throw new Error('labRuns: three sampled runs expected');
const fromAll = base - 60_000;
const toAll = runEndMs(runC);

describe.skipIf(!influxd.ok)(title, () => {
  let influx: RunningInfluxd;

  beforeAll(async () => {
    if (!influxd.ok) return;
    influx = await startInfluxd({ bin: influxd.bin });
    const created = await influx.query(`CREATE DATABASE "${DB}"`);
    expect(created.error).toBeUndefined();
    const lines = labLines(runs, fromAll, toAll);
    expect(lines.length).toBeGreaterThan(8_000);
    await influx.write(DB, lines);
  }, 120_000);

  afterAll(async () => {
    await influx?.stop();
  });

  async function run(query: string): Promise<InfluxResult> {
    return influx.query(query, DB);
  }

  const resolve = (d: Dashboard, choose: Record<string, string[] | 'all'>) =>
    resolveVariables(run, d, choose);
  const runAll = (
    d: Dashboard,
    vars: Record<string, Selection>,
    fromMs: number,
    toMs: number,
    mayBeEmpty: string[] = [],
  ) => runAllQueries(run, d, vars, fromMs, toMs, mayBeEmpty);

  const result = (results: Map<string, InfluxResult>, prefix: string): InfluxResult => {
    const hit = [...results.entries()].find(([k]) => k.startsWith(prefix));
    if (!hit) throw new Error(`no query ${prefix}; have ${[...results.keys()].join(', ')}`);
    return hit[1];
  };
  const panel = (d: Dashboard, title: string) => {
    const p = d.panels.find((x) => x.title === title);
    if (!p) throw new Error(`${d.uid}: no panel ${title}`);
    return `panel ${p.id} "${title}"`;
  };

  it('Run: variables chain on the run, every panel and annotation returns data', async () => {
    const d = dashboard(DASHBOARDS.run.uid);
    const vars = await resolve(d, { run: [runA.id], flow: 'all', stack: 'all' });
    expect(vars.run?.options.sort()).toEqual(sampled.map((r) => r.id).sort());
    expect(vars.flow?.options.sort()).toEqual(runA.flows.map((f) => f.name).sort());
    expect(vars.stack?.options.sort()).toEqual([...new Set(runA.flows.map((f) => f.stack))].sort());
    const { results, ran } = await runAll(d, vars, runA.t0Ms, runEndMs(runA));
    expect(ran).toBeGreaterThan(60);

    const goodput = result(results, `${panel(d, 'Goodput')} A`);
    expect(goodput.series?.map((s) => s.tags?.flow).sort()).toEqual(runA.flows.map((f) => f.name).sort());
    const starts = result(results, 'annotation Flow starts');
    expect(starts.series?.[0]?.columns).toEqual(['time', 'text', 'flow']);
    expect(starts.series?.[0]?.values.map((v) => v[0])).toEqual(
      runA.flows.map((f) => runA.t0Ms + f.startS * 1000),
    );
    const verdict = result(results, 'annotation Verdict');
    expect(verdict.series?.[0]?.values[0]?.[1]).toBe('verdict: valid "quoted", back\\slash');
    const stat = result(results, `${panel(d, 'Verdict')} A`);
    expect(stat.series?.[0]?.values[0]?.[1]).toBe(0);
    // Jain per path and direction: runA's flows all share main forward, nothing runs reverse
    const jain = result(results, `${panel(d, 'Jain fairness per path and direction')} A`);
    expect(jain.series?.map((s) => [s.tags?.path, s.tags?.direction])).toEqual([['main', 'forward']]);
    expect(jain.series?.[0]?.values[0]?.[1]).toBeGreaterThan(0.9);
  });

  it('Run: a subset of flows (multi-value, regex-escaped) narrows every flow panel', async () => {
    const d = dashboard(DASHBOARDS.run.uid);
    const vars = await resolve(d, { run: [runB.id], flow: ['cubic-1'], stack: ['cubic'] });
    // cubic does not pace: no pacing_bps, the one series that may be empty here
    const { results } = await runAll(d, vars, runB.t0Ms, runEndMs(runB), [
      `${panel(d, 'Delivery and pacing rate')} B`,
    ]);
    for (const t of ['Goodput', 'Congestion window', 'Retransmissions']) {
      expect(result(results, `${panel(d, t)} A`).series?.map((s) => s.tags?.flow)).toEqual(['cubic-1']);
    }
  });

  it('Compare: several runs overlaid, per-stack aggregates', async () => {
    const d = dashboard(DASHBOARDS.compare.uid);
    const vars = await resolve(d, { run: [runA.id, runB.id] });
    const { results } = await runAll(d, vars, runA.t0Ms, runEndMs(runB));
    const perRun = result(results, `${panel(d, 'Goodput per run and flow')} A`);
    expect(new Set(perRun.series?.map((s) => s.tags?.run))).toEqual(new Set([runA.id, runB.id]));
    const perStack = result(results, `${panel(d, 'Mean goodput per stack')} A`);
    expect(perStack.series?.map((s) => s.tags?.stack).sort()).toEqual(['bbr', 'cubic', 'reno']);
    const retrans = result(results, `${panel(d, 'Retransmitted segments per stack')} A`);
    expect(retrans.series?.map((s) => s.tags?.stack).sort()).toEqual(['bbr', 'cubic', 'reno']);
  });

  it('Campaign: progress counts each run once, the table lists every result', async () => {
    const d = dashboard(DASHBOARDS.campaign.uid);
    const vars = await resolve(d, { campaign: [CAMPAIGN], stack: 'all', path: 'all' });
    expect(vars.campaign?.options.sort()).toEqual(['sweep-0', CAMPAIGN]);
    const { results } = await runAll(d, vars, fromAll, toAll);
    expect(result(results, `${panel(d, 'Runs finished')} A`).series?.[0]?.values[0]?.[1]).toBe(3);
    for (const ref of ['A', 'B', 'C'])
      expect(result(results, `${panel(d, 'Runs by verdict')} ${ref}`).series?.[0]?.values[0]?.[1]).toBe(1);
    const progress = result(results, `${panel(d, 'Runs finished over time')} A`);
    expect(progress.series?.[0]?.values.map((v) => v[1])).toEqual([1, 2, 3]);
    const rows = result(results, `${panel(d, 'Runs')} A`).series?.[0]?.values ?? [];
    // one row per (run, stack, path) of the campaign's three runs: 2 + 2 + 2
    expect(rows).toHaveLength(6);
    // Jain once per run and (path, direction), not per stack: main forward in the two runs that put
    // two flows there; the two-path run has one flow per path, so no index (all flows mixed would give one)
    const jain = result(results, `${panel(d, 'Jain fairness per path and direction')} A`);
    expect(jain.series?.map((s) => [s.tags?.path, s.tags?.direction])).toEqual([['main', 'forward']]);
    expect(jain.series?.[0]?.columns).toEqual(['time', 'jain', 'runs']);
    expect(jain.series?.[0]?.values[0]?.[2]).toBe(2);
  });

  it('Lab health: sample rates per measurement in points/s, CPU, spool', async () => {
    const d = dashboard(DASHBOARDS.health.uid);
    const vars = await resolve(d, { run: 'all', host: 'all' });
    expect(vars.host?.options).toEqual([HOST]);
    const { results } = await runAll(d, vars, fromAll, toAll);
    const rates = result(results, `${panel(d, 'Sample rate per measurement')} A`);
    // lfn_tcp: two flows at 10 Hz → 20 points/s once both flows run
    expect(Math.max(...(rates.series?.[0]?.values.map((v) => Number(v[1])) ?? []))).toBe(20);
  });
});
