import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { makeFakeCampaign, makeFakeRun } from '../../test/support/testFixtures.js';
import { main } from '../cli/main.js';
import { downsampleMinMax, resample, splitAtGaps } from './downsample.js';
import { CSV_COLUMNS, type FlentData, flentData, JSON_EXPORT_FORMAT } from './exports.js';
import { exportRun, writeReport } from './index.js';
import { loadCampaign, loadRun } from './load.js';
import { renderRunReport } from './runReport.js';
import { lineChart, niceTicks } from './svg.js';

const made: string[] = [];
const tmp = (p: string) => {
  const d = mkdtempSync(join(tmpdir(), `lfnlab-report-${p}-`));
  made.push(d);
  return d;
};
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** The SVG element with this id. */
function svgById(html: string, id: string): string {
  const i = html.indexOf(`id="${id}"`);
  if (i < 0) return '';
  const start = html.lastIndexOf('<svg', i);
  return html.slice(start, html.indexOf('</svg>', i) + 6);
}

/** Points of every <polyline> in an SVG, per series (data-series). */
function pointsPerSeries(svg: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const g of svg.matchAll(/<g class="series" data-series="([^"]*)"[^>]*>(.*?)<\/g>/gs)) {
    let n = 0;
    for (const p of (g[2] ?? '').matchAll(/<polyline points="([^"]*)"/g))
      n += (p[1] ?? '').trim().split(/\s+/).length;
    n += ((g[2] ?? '').match(/<circle/g) ?? []).length;
    out.set(g[1] ?? '', n);
  }
  return out;
}

const PLOTS = ['plot-goodput', 'plot-cwnd', 'plot-rtt', 'plot-queue', 'plot-stability', 'plot-cpu'];

describe('run report', () => {
  const dir = tmp('run');
  makeFakeRun(dir);
  const html = renderRunReport(loadRun(dir), { now: new Date('2026-01-03T00:00:00Z') });

  it('leads with the verdict and the run facts', () => {
    const head = html.slice(0, html.indexOf('id="h-fidelity"'));
    expect(head).toContain('Fidelity verdict: VALID');
    expect(head).toContain('class="verdict valid"');
    for (const s of [
      'fake-run',
      '2026-01-02 03:04:05 UTC',
      '6.1.0-99-amd64',
      'KVM',
      'abc123def4567890',
      '<dt>Seed</dt><dd>42</dd>',
      '<dt>lfnlab</dt><dd>0.1.0 <code>0123456789ab</code> <span class="note">(with uncommitted changes)</span></dd>',
    ])
      expect(head).toContain(s);
    expect(html).toMatch(/<title>lfnlab run report: fake-run \(valid\)<\/title>/);
  });

  it('names every flow with its stack, and shows the spec', () => {
    for (const [flow, stack] of [
      ['cubic-1', 'cubic'],
      ['bbr-2', 'bbr'],
      ['reno-3', 'reno'],
    ]) {
      expect(html).toContain(flow);
      expect(html).toContain(`${flow} (${stack})`); // plot legends
      expect(html).toMatch(
        new RegExp(
          `<th scope="row">${flow}<br><span class="note">main, forward</span></th><td>${stack}</td>`,
        ),
      ); // flow table
    }
    expect(html).toContain('50.00 ms'); // RTT
    expect(html).toContain('100.0 Mbit/s'); // rate
    expect(html).toContain('413 / 413'); // buffer in packets
    expect(html).toContain('1.0e-8'); // BER
    expect(html).toContain('fifo');
    expect(html).toContain('42.16'.slice(0, 0)); // (idle RTT table below)
    expect(html).toContain('50.10 / 50.40 / 51.00 / 0.20');
    expect(html).toContain('1.200'); // calibration excess
    expect(html).not.toContain('kept from an earlier run');
  });

  it("says when a flow's data began a second or more after its planned start", () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-report-late-'));
    makeFakeRun(dir, {
      flows: [
        { name: 'cdg-1', stack: 'cdg', dataStartS: 7.41 },
        { name: 'reno-2', stack: 'reno', dataStartS: 0.21 },
      ],
    });
    const page = renderRunReport(loadRun(dir));
    expect(page).toContain('0 s <span class="warn-text">(data from 7.41 s)</span>');
    expect(page.match(/data from/g)).toHaveLength(1);
  });

  it('says when the calibration was kept from an earlier run of the campaign', () => {
    const kept = tmp('kept-run');
    makeFakeRun(kept);
    writeFileSync(
      join(kept, 'calibration.json'),
      JSON.stringify({
        main: { measuredMinMs: 51.2, excessMs: 1.2, oneWayDelayMs: 24.4, reusedFrom: 'runs/001-reno-r1' },
      }),
    );
    const page = renderRunReport(loadRun(kept), { now: new Date('2026-01-03T00:00:00Z') });
    expect(page).toContain(
      'Dumbbell and calibration kept from an earlier run of the campaign (runs/001-reno-r1)',
    );
    expect(page).toContain('1.200'); // the calibration's own numbers still shown
  });

  it('gives metric values with their units and definitions', () => {
    const flowTable = html.slice(
      html.indexOf('id="flow-table"'),
      html.indexOf('</table>', html.indexOf('id="flow-table"')),
    );
    expect(flowTable).toContain('Throughput mean</abbr> <span class="unit">(Mbit/s)</span>');
    expect(flowTable).toContain('40.00 ± 5.600'); // cubic-1: 40 Mbit/s ± 14 %
    expect(flowTable).toContain('0.500'); // retransmit rate 0.5 %
    expect(flowTable).toContain('<span class="unit">(%)</span>');
    expect(flowTable).toContain('51.25 ± 3.500');
    expect(flowTable).toContain('<span class="unit">(ms)</span>');
    // The sender's CPU per Mbit/s (seed 000), from the flow's own metrics.
    expect(flowTable).toContain('Sender CPU</abbr> <span class="unit">(MHz/(Mbit/s))</span>');
    expect(flowTable).toMatch(/<td class="num"[^>]*>12\.50?</);
    expect(flowTable).toContain('Limited by</abbr>');
    expect(flowTable).toContain('<td>network 90 %</td>');
    const groups = html.slice(
      html.indexOf('id="group-table"'),
      html.indexOf('</table>', html.indexOf('id="group-table"')),
    );
    expect(groups).toContain('Jain, whole run');
    expect(groups).toContain('0.931'); // Jain of 40, 30, 20
    expect(groups).toContain('0.900'); // efficiency
    const theory = html.slice(
      html.indexOf('id="theory-table"'),
      html.indexOf('</table>', html.indexOf('id="theory-table"')),
    );
    expect(theory).toContain('625\u202f000</td><td>bytes');
    expect(theory).toContain('55.00</td><td>Mbit/s');
    expect(theory).toContain('Chance that a packet');
    // Every metric shown has a definition with its unit.
    expect(html).toContain('id="def-jain-whole"');
    expect(html).toMatch(/<abbr title="Stability index: Spread of interval throughputs/);
  });

  it('draws one SVG per plot with labelled axes, a title and a description', () => {
    for (const id of PLOTS) {
      const svg = svgById(html, id);
      expect(svg, id).toMatch(/^<svg /);
      expect(svg).toContain('<title id=');
      expect(svg).toContain('<desc id=');
      expect(svg).toMatch(
        /class="axis-label"[^>]*>[^<]*\([^)]+\)<\/text>.*class="axis-label"[^>]*>[^<]*\([^)]+\)<\/text>/s,
      );
    }
    expect(svgById(html, 'plot-goodput')).toContain('Goodput (Mbit/s)');
    expect(svgById(html, 'plot-goodput')).toContain('Time since traffic start (s)');
    expect(svgById(html, 'plot-cwnd')).toContain('Congestion window (packets)');
    expect(svgById(html, 'plot-rtt')).toContain('RTT (ms)');
    expect(svgById(html, 'plot-rtt')).toContain('probe RTT, path main');
    expect(svgById(html, 'plot-queue')).toContain('Bottleneck backlog (packets)');
    expect(svgById(html, 'plot-stability')).toContain('Mean goodput (Mbit/s)');
    // 20 s at 10 Hz: 200 points per flow line, all kept.
    expect(pointsPerSeries(svgById(html, 'plot-goodput')).get('cubic-1 (cubic)')).toBe(200);
  });

  it('is self-contained: no scripts, no external resources', () => {
    expect(html).not.toMatch(/<script|<link|<img|src=|url\(http/i);
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<caption>');
  });

  it('makes an invalid run impossible to miss, with its reasons in the header', () => {
    const bad = tmp('invalid');
    makeFakeRun(bad, {
      verdict: 'invalid',
      reasons: ['lab CPU 97.8 % busy on average', 'main forward: bottleneck sent 80 % of its rate'],
    });
    const h = renderRunReport(loadRun(bad));
    const head = h.slice(0, h.indexOf('id="h-fidelity"'));
    expect(head).toContain('class="verdict invalid"');
    expect(head).toContain('role="alert"');
    expect(head).toContain('INVALID RUN');
    expect(head).toContain('lab CPU 97.8 % busy on average');
    expect(head).toContain('main forward: bottleneck sent 80 % of its rate');
    expect(h).toMatch(/<title>[^<]*\(invalid\)<\/title>/);
  });

  it('reports a run that failed before its samples, from summary.json alone', () => {
    const d = tmp('bare');
    makeFakeRun(d, { status: 'failed' });
    for (const f of ['spec.json', 'environment.json', 'events.jsonl', 'idle-rtt.json', 'calibration.json'])
      execFileSync('rm', ['-f', join(d, f)]);
    execFileSync('rm', ['-rf', join(d, 'samples')]);
    const h = renderRunReport(loadRun(d));
    expect(h).toContain('Run failed');
    expect(h).toContain('the lab went away');
    for (const id of PLOTS) expect(svgById(h, id), id).toMatch(/^<svg /);
    expect(h).toContain('No samples recorded');
  });
});

describe('downsampling', () => {
  const pts = Array.from({ length: 100_000 }, (_, i) => ({
    t: i / 100,
    v: Math.sin(i / 50) + (i === 77_777 ? 10 : 0),
  }));

  it('keeps at most maxPoints, with the extremes', () => {
    const d = downsampleMinMax(pts, 2000);
    expect(d.length).toBeLessThanOrEqual(2000);
    expect(d.length).toBeGreaterThan(1900);
    expect(Math.max(...d.map((p) => p.v))).toBe(Math.max(...pts.map((p) => p.v))); // the spike survives
    expect(d.some((p) => p.t === 777.77)).toBe(true);
    expect(Math.min(...d.map((p) => p.v))).toBeCloseTo(Math.min(...pts.map((p) => p.v)), 6);
    for (let i = 1; i < d.length; i++) expect((d[i]?.t ?? 0) >= (d[i - 1]?.t ?? 0)).toBe(true);
    expect(downsampleMinMax(pts.slice(0, 10), 2000)).toHaveLength(10);
  });

  it('caps the points of a drawn line at 2000 for 100 000 samples', () => {
    const svg = lineChart({
      id: 'big',
      title: 't',
      desc: 'd',
      xLabel: 'Time (s)',
      yLabel: 'Value (units)',
      series: [{ name: 'a', points: pts }],
    });
    const n = pointsPerSeries(svg).get('a') ?? 0;
    expect(n).toBeLessThanOrEqual(2000);
    expect(n).toBeGreaterThan(1000);
    expect(svg.length).toBeLessThan(60_000);
  });

  it('caps the points per line in a run report with 100 000 goodput samples per flow', () => {
    const d = tmp('long');
    makeFakeRun(d, { durationS: 3600, hz: 1, goodputPoints: 100_000 });
    const h = renderRunReport(loadRun(d));
    const per = pointsPerSeries(svgById(h, 'plot-goodput'));
    expect(per.size).toBe(3);
    for (const [name, n] of per) {
      expect(n, name).toBeLessThanOrEqual(2000);
      expect(n, name).toBeGreaterThan(1000);
    }
    expect(Buffer.byteLength(h)).toBeLessThan(2_000_000);
  });

  it('shares a point budget between many lines', () => {
    const series = Array.from({ length: 64 }, (_, k) => ({ name: `f${k}`, points: pts.slice(0, 5000) }));
    const per = pointsPerSeries(
      lineChart({ id: 'many', title: 't', desc: 'd', xLabel: 'Time (s)', yLabel: 'V (u)', series }),
    );
    expect(per.size).toBe(64);
    for (const n of per.values()) expect(n).toBeLessThanOrEqual(625);
  });

  it('splits at gaps and resamples without inventing data', () => {
    const a = [
      { t: 0, v: 1 },
      { t: 1, v: 2 },
      { t: 10, v: 3 },
    ];
    expect(splitAtGaps(a, 2).map((s) => s.length)).toEqual([2, 1]);
    expect(resample(a, [0, 0.5, 1, 5, 10, 20], 1)).toEqual([1, 1.5, 2, null, 3, null]);
  });

  it('picks round ticks', () => {
    expect(niceTicks(0, 97).ticks).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(0, 0).ticks.length).toBeGreaterThan(1);
  });
});

describe('exports', () => {
  const dir = tmp('export');
  const written = makeFakeRun(dir);

  it('CSV: one file per kind, headers with units, one row per sample', () => {
    const files = exportRun(dir, 'csv');
    expect(files.map((f) => f.split('/').pop()).sort()).toEqual([
      'cpu.csv',
      'goodput.csv',
      'interval.csv',
      'queue.csv',
      'rtt.csv',
      'tcp.csv',
      'udp.csv',
      'wireflow.csv',
    ]);
    for (const [kind, cols] of Object.entries(CSV_COLUMNS)) {
      const lines = readFileSync(join(dir, 'export-csv', `${kind}.csv`), 'utf8')
        .trimEnd()
        .split('\n');
      expect(lines[0]).toBe(cols.map((c) => c[0]).join(','));
      expect(lines.length - 1, kind).toBe(written[kind]?.length ?? 0);
    }
    const tcp = readFileSync(join(dir, 'export-csv', 'tcp.csv'), 'utf8').split('\n');
    expect(tcp[0]).toContain('t_s,flow,streams,cc,cwnd_packets');
    expect(tcp[0]).toContain('srtt_ms');
    expect(readFileSync(join(dir, 'export-csv', 'goodput.csv'), 'utf8')).toMatch(
      /^t_s,flow,goodput_bps,bytes_received\n0\.1,cubic-1,/,
    );
    expect(tcp[1]?.split(',')[3]).toBe('cubic');
    expect(readFileSync(join(dir, 'export-csv', 'tcp.csv'), 'utf8')).toContain(',,'); // null ssthresh is empty
  });

  it('JSON: summary and samples round-trip', () => {
    const [file] = exportRun(dir, 'json', join(dir, 'out', 'run.json'));
    const back = JSON.parse(readFileSync(file as string, 'utf8'));
    const run = loadRun(dir);
    expect(back.format).toBe(JSON_EXPORT_FORMAT);
    expect(back.summary).toEqual(run.summary);
    expect(back.spec).toEqual(run.spec);
    expect(back.samples).toEqual(JSON.parse(JSON.stringify(run.samples)));
    for (const [kind, xs] of Object.entries(written)) expect(back.samples[kind]).toHaveLength(xs.length);
    expect(back.events).toHaveLength(3);
  });

  it('Flent: gzip JSON with the keys its loader needs and its test series names', () => {
    const [file] = exportRun(dir, 'flent');
    expect(file).toMatch(/fake-run\.flent\.gz$/);
    const d = JSON.parse(gunzipSync(readFileSync(file as string)).toString('utf8')) as FlentData;
    // flent/resultset.py: unserialise needs version, metadata (NAME; TIME, T0 parse as dates),
    // x_values, results (each as long as x_values), raw_values.
    expect(d.version).toBe(3);
    expect(Object.keys(d).sort()).toEqual(['metadata', 'raw_values', 'results', 'version', 'x_values']);
    expect(d.metadata.NAME).toBe('tcp_nup');
    expect(d.metadata.TITLE).toBe('fake-run');
    expect(d.metadata.TIME).toBe('2026-01-02T03:04:05.000000Z');
    expect(d.metadata.T0).toBe('2026-01-02T03:04:15.500000Z');
    expect(d.metadata.LENGTH).toBe(20);
    expect(d.metadata.STEP_SIZE).toBeCloseTo(0.1);
    expect(d.metadata.HOSTS).toEqual(['receiver']);
    expect(d.metadata.KERNEL_RELEASE).toBe('6.1.0-99-amd64');
    expect(d.metadata.TEST_PARAMETERS).toMatchObject({
      upload_streams: 3,
      qdisc_stats_hosts: 'main-forward,main-reverse',
    });
    expect(d.x_values).toHaveLength(201);
    expect(d.x_values[1]).toBeCloseTo(0.1);
    for (const [name, values] of Object.entries(d.results))
      expect(values, name).toHaveLength(d.x_values.length);
    for (const name of [
      'TCP upload::1',
      'TCP upload::2',
      'TCP upload::3',
      'TCP upload sum',
      'TCP upload avg',
      'Ping (ms) ICMP',
      'qdisc_stats_main-forward::backlog_pkts',
      'cpu_stats_lab::load',
    ])
      expect(d.results, name).toHaveProperty([name]);
    // Flent's tests number duplicated series; which flow is which is kept in the metadata.
    expect(d.metadata.SERIES_META).toMatchObject({
      'TCP upload::1': { LFNLAB_FLOW: 'cubic-1', LFNLAB_STACK: 'cubic', UNITS: 'Mbits/s' },
    });
    expect((d.metadata.LFNLAB as { series: unknown }).series).toEqual({
      'TCP upload::1': 'cubic-1',
      'TCP upload::2': 'bbr-2',
      'TCP upload::3': 'reno-3',
    });
    const cubic = d.results['TCP upload::1'] ?? [];
    const mid = cubic[100] as number;
    expect(mid).toBeGreaterThan(30);
    expect(mid).toBeLessThan(50); // Mbit/s
    expect(cubic[0]).toBeNull(); // no sample yet at t = 0
    expect(d.results['TCP upload sum']?.[100]).toBeCloseTo(
      (d.results['TCP upload::1']?.[100] ?? 0) +
        (d.results['TCP upload::2']?.[100] ?? 0) +
        (d.results['TCP upload::3']?.[100] ?? 0),
      3,
    );
    const raw = d.raw_values['TCP upload::1'] ?? [];
    expect(raw.some((r) => 'val' in r)).toBe(true);
    expect(raw.some((r) => 'tcp_cwnd' in r && 'tcp_rtt' in r)).toBe(true);
    // Flent 2's qdisc and CPU mixins read these raw keys.
    expect(d.raw_values['qdisc_stats_main-forward']?.[5]).toMatchObject({
      backlog_pkts: 6,
      backlog_bytes: 6 * 1514,
      dropped: 0,
    });
    expect(d.raw_values.cpu_stats_lab?.[0]).toHaveProperty('load');
    expect(raw[0]?.t).toBeCloseTo(Date.parse('2026-01-02T03:04:15.500Z') / 1000 + 0.1, 3);
  });

  it('Flent: python reads it the way Flent does', () => {
    const py = spawnSync('python3', ['--version']);
    if (py.status !== 0) return;
    const file = join(dir, 'fake-run.flent.gz');
    const script = `
import gzip, json, sys
from datetime import datetime
d = json.load(gzip.open(sys.argv[1], 'rt'))
assert int(d['version']) == 3
m = d['metadata']
assert m['NAME'] and 'x_values' in d and 'results' in d and 'raw_values' in d
for k in ('TIME', 'T0'):
    datetime.strptime(m[k], '%Y-%m-%dT%H:%M:%S.%fZ')
for k, v in d['results'].items():
    assert len(v) == len(d['x_values']), k
print(len(d['results']), max(d['x_values']))
`;
    const out = execFileSync('python3', ['-c', script, file], { encoding: 'utf8' });
    expect(out.trim()).toMatch(/^\d+ 20(\.0)?$/);
  });

  it('Flent: reverse flows are downloads, a mix follows rrul_be_nflows', () => {
    const d2 = tmp('mixed');
    makeFakeRun(d2, {
      flows: [
        { name: 'up', stack: 'cubic' },
        { name: 'down', stack: 'bbr', direction: 'reverse' },
      ],
    });
    const f = flentData(loadRun(d2));
    expect(f.metadata.NAME).toBe('rrul_be_nflows');
    expect(Object.keys(f.results)).toEqual(
      expect.arrayContaining(['TCP upload BE::1', 'TCP download BE::1', 'TCP totals']),
    );
    const d3 = tmp('down');
    makeFakeRun(d3, { flows: [{ name: 'down', stack: 'bbr', direction: 'reverse' }] });
    const g = flentData(loadRun(d3));
    expect(g.metadata.NAME).toBe('tcp_ndown');
    expect(g.results).toHaveProperty(['TCP download::1']);
    expect(g.metadata.TEST_PARAMETERS).toMatchObject({ download_streams: 1, tcp_cong_control: 'bbr' });
  });
});

describe('campaign report', () => {
  const dir = tmp('campaign');
  const ids = makeFakeCampaign(dir, { invalidId: '003-bbr-2-r1' });

  it('collects every run, links each run report, and flags the invalid one', () => {
    const w = writeReport(dir);
    expect(w.kind).toBe('campaign');
    expect(w.file).toBe(join(dir, 'report.html'));
    expect(w.runReports).toHaveLength(8);
    const html = readFileSync(w.file, 'utf8');
    for (const id of ids) {
      // Linked by the variant's label (made from the plan's vary lists: this plan predates
      // labels), with the id, the run's directory, beneath it.
      expect(html).toMatch(
        new RegExp(
          `<a href="runs/${id}/report.html">[^<]+ · rep [12]</a></span><br><code class="note">${id}</code>`,
        ),
      );
      expect(existsSync(join(dir, 'runs', id, 'report.html'))).toBe(true);
    }
    expect(html).toContain('<a href="runs/001-cubic-2-r1/report.html">cubic · 2 flows · rep 1</a>');
    expect(html).toContain('<a href="runs/004-bbr-4-r2/report.html">bbr · 4 flows · rep 2</a>');
    const head = html.slice(0, html.indexOf('<nav'));
    expect(head).toContain('class="verdict invalid"');
    expect(head).toContain('7 valid, 0 suspect, 1 invalid');
    expect(head).toContain('invalid</strong>: bbr · 2 flows · rep 1');
    const runReport = readFileSync(join(dir, 'runs', '003-bbr-2-r1', 'report.html'), 'utf8');
    expect(runReport).toContain('href="../../report.html"'); // back to the campaign
    expect(runReport).toContain('INVALID RUN');
    expect(runReport).toContain('<h1>Run report: sweep: bbr · 2 flows · rep 1</h1>');
  });

  it('gives means ± σ over repetitions and the stack × count matrix', () => {
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    const grouped = html.slice(
      html.indexOf('id="grouped-table"'),
      html.indexOf('</table>', html.indexOf('id="grouped-table"')),
    );
    expect((grouped.match(/<tr>/g) ?? []).length).toBe(5); // header + 4 combinations
    expect(grouped).toContain('<th scope="row">bbr · 4 flows</th>'); // each named, without a repetition
    expect(grouped).toContain('<td class="num">1 / 2</td>'); // bbr×2 lost its invalid run
    expect(grouped).toContain('<td class="num">2 / 2</td>');
    expect(grouped).toContain('Total goodput</abbr> <span class="unit">(Mbit/s)</span>');
    expect(grouped).toMatch(/<td class="num"[^>]*>\d+\.\d+ ± \d+\.\d+<\/td>/);
    const matrix = html.slice(html.indexOf('id="matrix"'));
    expect(matrix).toContain('Matrix: stack × flows[0].count');
    expect(matrix).toContain('<th scope="row">cubic</th>');
    expect(matrix).toContain('<th scope="row">bbr</th>');
    expect(matrix).toContain('Jain, whole run');
    expect(matrix).toContain('(n=1)');
    expect(matrix).toContain('(n=2)');
  });

  it('loads a campaign whose runs hold only summary.json', () => {
    const c = loadCampaign(dir);
    expect(c.runs).toHaveLength(8);
    expect(c.vary['flows[0].stack']).toEqual(['cubic', 'bbr']);
  });

  it("takes a variant's label from the plan file; without a plan or labels, the id", () => {
    const labelled = tmp('labelled');
    makeFakeCampaign(labelled);
    const plan = JSON.parse(readFileSync(join(labelled, 'campaign.json'), 'utf8'));
    plan.variants[0].label = 'as written';
    writeFileSync(join(labelled, 'campaign.json'), JSON.stringify(plan));
    expect(loadCampaign(labelled).runs[0]?.label).toBe('as written');
    expect(loadCampaign(labelled).runs[1]?.label).toBe('cubic · 2 flows · rep 2');
    rmSync(join(labelled, 'campaign.json'));
    rmSync(join(labelled, 'results.json'));
    expect(loadCampaign(labelled).runs.map((r) => r.label)).toEqual(ids);
  });
});

describe('lfnlab report command', () => {
  it('writes a report and each export', async () => {
    const dir = tmp('cli');
    makeFakeRun(dir);
    const log = console.log;
    console.log = () => undefined;
    try {
      expect(await main(['report', dir])).toBe(0);
      expect(await main(['report', dir, '--out', join(dir, 'x', 'r.html'), '--max-points', '50'])).toBe(0);
      for (const f of ['csv', 'json', 'flent']) expect(await main(['report', dir, '--export', f])).toBe(0);
      expect(await main(['report', dir, '--export', 'xml'])).toBe(64);
      expect(await main(['report', tmpdir()])).toBe(2);
    } finally {
      console.log = log;
    }
    expect(statSync(join(dir, 'report.html')).size).toBeGreaterThan(10_000);
    const small = readFileSync(join(dir, 'x', 'r.html'), 'utf8');
    for (const n of pointsPerSeries(svgById(small, 'plot-goodput')).values())
      expect(n).toBeLessThanOrEqual(50);
    expect(existsSync(join(dir, 'export-csv', 'tcp.csv'))).toBe(true);
    expect(existsSync(join(dir, 'export.json'))).toBe(true);
    expect(existsSync(join(dir, 'fake-run.flent.gz'))).toBe(true);
  });
});
