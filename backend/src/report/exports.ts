// Exports of a run's samples for other tools.
//
//   CSV   one file per sample kind (tcp.csv, goodput.csv, queue.csv, cpu.csv, rtt.csv, interval.csv, udp.csv)
//         in a directory, one row per sample, snake_case headers that carry their unit
//         (t_s, goodput_bps, srtt_ms, cwnd_packets...). Kinds keep their own columns, so no file is
//         mostly empty cells; every file has its header even when the run has no such samples.
//   JSON  one file: { format, version, summary, spec, environment, idleRtt, calibration, sampling,
//         events, samples: { tcp: [...], ... } }, the samples exactly as the run directory holds them.
//   Flent a .flent.gz: gzip of Flent's data format (version 3, which Flent 2.x still reads): metadata,
//         x_values on a regular grid at the fine samplers' interval, results per series resampled
//         onto it (linear interpolation, null where no sample is near, as Flent's aggregator does),
//         raw_values as sampled. Series follow Flent's own tests so its plots work, and its tests
//         name duplicated series by number: tcp_nup ("TCP upload::1" ... "TCP upload::N" in the
//         spec's flow order, "TCP upload sum", "TCP upload avg", "Ping (ms) ICMP") when every flow
//         is forward, tcp_ndown ("TCP download::N") when every flow is reverse, rrul_be_nflows
//         ("TCP upload BE::N", "TCP download BE::N", "TCP totals") for a mix. Which flow a series is
//         stays in SERIES_META (LFNLAB_FLOW, LFNLAB_STACK) and metadata.LFNLAB.series. TCP state rides
//         in each flow's raw values under tcp_cwnd / tcp_rtt / tcp_pacing_rate / tcp_delivery_rate
//         (Flent's tcp_stats plots); the bottleneck queue is qdisc_stats_<path>-<direction> (raw
//         keys backlog_pkts, backlog_bytes, dropped; aligned as ::backlog_pkts etc.) and lab CPU
//         cpu_stats_lab (raw key load; aligned as ::load), with the test parameters Flent's mixins
//         need to offer those plots (qdisc_stats_hosts, qdisc_stats_interfaces, cpu_stats_hosts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { SAMPLE_COLUMNS_BY_KIND, type SampleColumnOf } from '../run/sampleColumns.js';
import type { SampleKind } from '../run/samples.js';
import { csvCell } from './csv.js';
import { medianStep, type Point, resample } from './downsample.js';
import { type RunData, runStarted, type SamplesByKind, trafficStart } from './load.js';
import {
  bottleneckQueues,
  flowsOf,
  goodputPoints,
  pathsOf,
  probeRttPoints,
  queuePoints,
  runLengthS,
  tcpSamples,
} from './series.js';

type Col<T> = [header: string, get: (s: T) => unknown];
type Columns = { [K in SampleKind]: Col<SamplesByKind[K][number]>[] };

/** CSV cells that are not the JSON value as it is: a report's streams are a list, the CSV counts them. */
const CSV_CELL: Partial<Record<string, (v: unknown) => unknown>> = {
  stream_count: (v) => (Array.isArray(v) ? v.length : null),
};

function csvColumns<K extends SampleKind>(kind: K): Col<SamplesByKind[K][number]>[] {
  const cols: readonly SampleColumnOf<K>[] = SAMPLE_COLUMNS_BY_KIND[kind];
  return cols.flatMap((c) => {
    if (!c.csv) return [];
    const cell = CSV_CELL[c.csv] ?? ((v: unknown) => v);
    return [
      [c.csv, (s: SamplesByKind[K][number]) => cell((s as unknown as Record<string, unknown>)[c.json])],
    ];
  });
}

/** The CSV columns of each sample kind, from the contract's one table of sample names; headers name their unit. */
export const CSV_COLUMNS = Object.fromEntries(
  (Object.keys(SAMPLE_COLUMNS_BY_KIND) as SampleKind[]).map((k) => [k, csvColumns(k)]),
) as Columns;

/** One kind's samples as CSV text. */
export function samplesCsv<K extends SampleKind>(kind: K, samples: SamplesByKind[K]): string {
  const cols = CSV_COLUMNS[kind] as Col<SamplesByKind[K][number]>[];
  const lines = [cols.map((c) => c[0]).join(',')];
  for (const s of samples) lines.push(cols.map((c) => csvCell(c[1](s))).join(','));
  return `${lines.join('\n')}\n`;
}

/** Writes <outDir>/<kind>.csv for every sample kind; returns the files written. */
export function exportCsv(run: RunData, outDir: string): string[] {
  mkdirSync(outDir, { recursive: true });
  const files: string[] = [];
  for (const kind of Object.keys(CSV_COLUMNS) as SampleKind[]) {
    const f = join(outDir, `${kind}.csv`);
    writeFileSync(f, samplesCsv(kind, run.samples[kind]));
    files.push(f);
  }
  return files;
}

export const JSON_EXPORT_FORMAT = 'lfnlab-run-export';

export function runJson(run: RunData) {
  return {
    format: JSON_EXPORT_FORMAT,
    version: 1,
    dir: run.dir,
    summary: run.summary,
    spec: run.spec,
    environment: run.environment,
    idleRtt: run.idleRtt,
    calibration: run.calibration,
    sampling: run.sampling,
    events: run.events,
    samples: run.samples,
  };
}

export function exportJson(run: RunData, file: string): string {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(runJson(run))}\n`);
  return file;
}

/** What Flent's loader and plotters read: see flent/resultset.py (version 3). */
export interface FlentData {
  version: 3;
  metadata: Record<string, unknown>;
  x_values: number[];
  results: Record<string, (number | null)[]>;
  raw_values: Record<string, Record<string, number>[]>;
}

/** Flent's time format: UTC with microseconds and a Z. */
const flentTime = (d: Date) => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

const round = (x: number | null, digits = 6) =>
  x === null || !Number.isFinite(x) ? null : Number(x.toPrecision(digits));

export function flentData(run: RunData): FlentData {
  const flows = flowsOf(run);
  const lengthS = runLengthS(run);
  const hz = run.spec?.sampleHz ?? 10;
  const step = 1 / hz;
  const n = Math.floor(lengthS / step + 1e-9) + 1;
  const grid = Array.from({ length: n }, (_, i) => Number((i * step).toFixed(6)));
  const t0 = trafficStart(run) ?? runStarted(run) ?? new Date(0);
  const t0s = t0.getTime() / 1000;
  const abs = (t: number) => Number((t0s + t).toFixed(6));
  const fit = (pts: Point[]) =>
    resample(pts, grid, Math.max(5 * step, 1.5 * (medianStep(pts) ?? step)), step / 2);

  const up = flows.filter((f) => f.direction === 'forward');
  const down = flows.filter((f) => f.direction === 'reverse');
  const mixed = up.length > 0 && down.length > 0;
  const test = mixed ? 'rrul_be_nflows' : down.length && !up.length ? 'tcp_ndown' : 'tcp_nup';
  const seriesName = (dir: 'forward' | 'reverse', k: number) =>
    `TCP ${dir === 'forward' ? 'upload' : 'download'}${mixed ? ' BE' : ''}::${k}`;
  const seriesOfFlow: Record<string, string> = {};

  const results: Record<string, (number | null)[]> = {};
  const raw: Record<string, Record<string, number>[]> = {};
  const meta: Record<string, Record<string, unknown>> = {};
  const mean = (xs: (number | null)[]) => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
  };
  const put = (
    name: string,
    values: (number | null)[],
    units: string,
    rawValues: Record<string, number>[],
  ) => {
    results[name] = values.map((v) => round(v));
    raw[name] = rawValues;
    meta[name] = { UNITS: units, MEAN_VALUE: round(mean(values)), RUNNER: 'lfnlab' };
  };
  // Derived series (sums, averages) get their grid values as raw values too, so Flent plots every
  // series from the same kind of data.
  const gridRaw = (values: (number | null)[]) =>
    values.flatMap((v, i) => (v === null ? [] : [{ t: abs(grid[i] as number), val: v }]));

  for (const dir of ['forward', 'reverse'] as const) {
    const group = flows.filter((f) => f.direction === dir);
    if (!group.length) continue;
    const perFlow: (number | null)[][] = [];
    for (const [k, f] of group.entries()) {
      const name = seriesName(dir, k + 1);
      seriesOfFlow[name] = f.name;
      const gp = goodputPoints(run, f.name).map((p) => ({ t: p.t, v: p.v / 1e6 }));
      const values = fit(gp);
      perFlow.push(values);
      const rawValues: Record<string, number>[] = gp.map((p) => ({ t: abs(p.t), val: p.v }));
      for (const s of tcpSamples(run, f.name)) {
        const r: Record<string, number> = { t: abs(s.t), tcp_cwnd: s.cwndPackets, tcp_rtt: s.srttMs };
        if (s.pacingBps !== null) r.tcp_pacing_rate = s.pacingBps / 1e6;
        if (Number.isFinite(s.deliveryBps)) r.tcp_delivery_rate = s.deliveryBps / 1e6;
        rawValues.push(r);
      }
      rawValues.sort((a, b) => (a.t ?? 0) - (b.t ?? 0));
      put(name, values, 'Mbits/s', rawValues);
      Object.assign(meta[name] as Record<string, unknown>, { LFNLAB_FLOW: f.name, LFNLAB_STACK: f.stack });
    }
    const word = dir === 'forward' ? 'upload' : 'download';
    const at = (i: number) => perFlow.map((v) => v[i] ?? null).filter((x): x is number => x !== null);
    const sum = grid.map((_, i) => (at(i).length ? at(i).reduce((a, b) => a + b, 0) : null));
    const avg = grid.map((_, i) => (at(i).length ? at(i).reduce((a, b) => a + b, 0) / at(i).length : null));
    put(`TCP ${word} sum`, sum, 'Mbits/s', gridRaw(sum));
    put(`TCP ${word} avg`, avg, 'Mbits/s', gridRaw(avg));
  }
  if (mixed) {
    const up = results['TCP upload sum'] ?? [];
    const dn = results['TCP download sum'] ?? [];
    const totals = grid.map((_, i) =>
      up[i] === null && dn[i] === null ? null : (up[i] ?? 0) + (dn[i] ?? 0),
    );
    put('TCP totals', totals, 'Mbits/s', gridRaw(totals));
  }

  const paths = pathsOf(run);
  paths.forEach((p, i) => {
    const pts = probeRttPoints(run, p);
    if (!pts.length) return;
    const name = i === 0 ? 'Ping (ms) ICMP' : `Ping (ms) ICMP ${p}`;
    put(
      name,
      fit(pts),
      'ms',
      run.samples.rtt
        .filter((s) => s.path === p && s.t >= 0)
        .map((s) => ({ t: abs(s.t), val: s.rttMs, seq: s.seq })),
    );
  });
  const ping = results['Ping (ms) ICMP'];
  if (mixed && ping) put('Ping (ms) avg', ping, 'ms', gridRaw(ping));

  const qHosts: string[] = [];
  const qIfaces: string[] = [];
  for (const q of bottleneckQueues(run)) {
    const host = `${q.path}-${q.direction}`;
    qHosts.push(host);
    qIfaces.push(
      run.samples.queue.find(
        (s) => s.stage === 'bottleneck' && s.path === q.path && s.direction === q.direction,
      )?.dev ?? host,
    );
    const pk = queuePoints(run, q, 'backlogPackets');
    const by = queuePoints(run, q, 'backlogBytes');
    const dr = queuePoints(run, q, 'drops');
    put(
      `qdisc_stats_${host}::backlog_pkts`,
      fit(pk),
      'packets',
      pk.map((p) => ({ t: abs(p.t), val: p.v })),
    );
    put(
      `qdisc_stats_${host}::backlog_bytes`,
      fit(by),
      'bytes',
      by.map((p) => ({ t: abs(p.t), val: p.v })),
    );
    // Flent 2 reads qdisc stats from the raw values of qdisc_stats_<host>, keyed by field; older
    // Flent plots the ::backlog_pkts / ::backlog_bytes series. Both are here. Drops stay a counter
    // in the raw values (version 3 files; Flent 2 turns them into events when it loads them) and
    // are events per step in the aligned results, as Flent's tc runner writes them.
    raw[`qdisc_stats_${host}`] = pk.map((p, i) => ({
      t: abs(p.t),
      backlog_pkts: p.v,
      backlog_bytes: by[i]?.v ?? 0,
      dropped: dr[i]?.v ?? 0,
    }));
    meta[`qdisc_stats_${host}`] = { UNITS: 'misc', RUNNER: 'lfnlab' };
    const cum = fit(dr);
    const events = cum.map((v, i) => {
      const prev = i > 0 ? cum[i - 1] : null;
      return v === null || prev === null || prev === undefined ? null : Math.max(0, v - prev);
    });
    put(
      `qdisc_stats_${host}::dropped`,
      events,
      'packets',
      dr.map((p) => ({ t: abs(p.t), val: p.v })),
    );
  }
  const cpu = run.samples.cpu.filter((c) => c.t >= 0).map((c) => ({ t: c.t, v: c.busyPct / 100 }));
  if (cpu.length) {
    put(
      'cpu_stats_lab::load',
      fit(cpu),
      'fraction',
      cpu.map((p) => ({ t: abs(p.t), val: p.v })),
    );
    raw.cpu_stats_lab = cpu.map((p) => ({ t: abs(p.t), load: p.v }));
    meta.cpu_stats_lab = { UNITS: 'misc', RUNNER: 'lfnlab' };
  }

  const env = run.environment;
  const s = run.summary;
  const started = runStarted(run) ?? t0;
  const testParameters: Record<string, string | number> = {};
  if (test === 'tcp_nup') testParameters.upload_streams = up.length;
  else if (test === 'tcp_ndown') testParameters.download_streams = down.length;
  else {
    testParameters.upload_streams = up.length;
    testParameters.download_streams = down.length;
  }
  if (qHosts.length) {
    testParameters.qdisc_stats_hosts = qHosts.join(',');
    testParameters.qdisc_stats_interfaces = qIfaces.join(',');
  }
  if (cpu.length) testParameters.cpu_stats_hosts = 'lab';
  const stacks = [...new Set(flows.map((f) => f.stack))];
  if (stacks.length === 1) testParameters.tcp_cong_control = stacks[0] as string;
  const verdict = s.verdict ?? 'none';
  const note = `lfnlab run ${s.name}: verdict ${verdict}${s.fidelity?.reasons.length ? ` (${s.fidelity.reasons.join('; ')})` : ''}; stacks ${flows.map((f) => `${f.name}=${f.stack}`).join(', ')}`;
  const length = Math.round(lengthS);
  const metadata: Record<string, unknown> = {
    NAME: test,
    TITLE: s.name,
    NOTE: note,
    TIME: flentTime(started),
    T0: flentTime(t0),
    LENGTH: length,
    TOTAL_LENGTH: Number(lengthS.toFixed(6)),
    STEP_SIZE: step,
    HOST: 'receiver',
    HOSTS: ['receiver'],
    LOCAL_HOST: 'sender',
    IP_VERSION: 4,
    TEST_PARAMETERS: testParameters,
    FLENT_VERSION: null,
    BATCH_NAME: null,
    BATCH_TIME: null,
    BATCH_TITLE: null,
    BATCH_UUID: null,
    DATA_FILENAME: `${s.name}.flent.gz`,
    HTTP_GETTER_URLLIST: null,
    HTTP_GETTER_DNS: null,
    HTTP_GETTER_WORKERS: null,
    KERNEL_NAME: 'Linux',
    KERNEL_RELEASE: env?.image?.kernel?.abi ?? null,
    MODULE_VERSIONS: null,
    SYSCTLS: null,
    EGRESS_INFO: null,
    REMOTE_METADATA: {},
    SERIES_META: meta,
    FAILED_RUNNERS: 0,
    LFNLAB: {
      verdict: s.verdict,
      reasons: s.fidelity?.reasons ?? [],
      status: s.status,
      seed: s.seed,
      flows: flows.map((f) => ({ name: f.name, stack: f.stack, path: f.path, direction: f.direction })),
      /** Flent series name → lfnlab flow name. */
      series: seriesOfFlow,
      spec: run.spec,
      lab: env?.lab ? { accel: env.lab.accel, imageId: env.image?.id ?? env.lab.imageId } : null,
    },
  };
  return { version: 3, metadata, x_values: grid, results, raw_values: raw };
}

export function exportFlent(run: RunData, file: string): string {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, gzipSync(JSON.stringify(flentData(run))));
  return file;
}
