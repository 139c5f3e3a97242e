// The HTML report of one run: the fidelity verdict first, then what was run, the papers' tables
// with every metric defined, and the time series as inline SVG.
import type { MetricValue } from '@lfnlab/metrics';
import { formatLimit } from '../run/limitedBy.js';
import type { FlowSummary, PathSummary } from '../run/summary.js';
import {
  esc,
  findMetric,
  fixed,
  int,
  isNum,
  metricCell,
  metricDef,
  metricDisplay,
  metricHeader,
  num,
} from './format.js';
import { type RunData, runStarted, trafficStart } from './load.js';
import { badge, definitionsList, page, table } from './page.js';
import { NEUTRAL } from './palette.js';
import {
  bottleneckQueues,
  type FlowInfo,
  flowsOf,
  goodputPoints,
  intervalMeans,
  pathsOf,
  probeRttPoints,
  queuePoints,
  runLengthS,
  tcpPoints,
} from './series.js';
import { barChart, flowSeriesStyles, type LineSeries, lineChart } from './svg.js';

export interface RunReportOptions {
  /** Cap on points per plotted line (default 2000). */
  maxPointsPerLine?: number;
  /** A link back, e.g. to the campaign report: [href, text]. */
  backLink?: [string, string];
  /** A campaign run's variant label (`reno · 120 ms · rep 2`), shown after the run's name. */
  label?: string;
  now?: Date;
}

const fmtDate = (d: Date | null) =>
  d
    ? `${d
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, '')} UTC`
    : '—';

const VERDICT_TEXT: Record<string, string> = {
  valid: 'VALID: the emulated link did what the spec said',
  suspect: 'SUSPECT: some fidelity checks warned; read the reasons before using these results',
  invalid: 'INVALID RUN: the emulated link did not do what the spec said; do not use these results',
};

function verdictBanner(run: RunData): string {
  const s = run.summary;
  const v = s.verdict ?? s.fidelity?.verdict ?? null;
  const reasons = s.fidelity?.reasons ?? [];
  const cls = v ?? 'unknown';
  const heading =
    v !== null
      ? (VERDICT_TEXT[v] ?? v)
      : 'NO VERDICT: the run stopped before the link could be checked; do not use these results';
  const statusLine =
    s.status !== 'completed'
      ? `<p><strong>Run ${esc(s.status)}</strong>${s.error ? `: ${esc(s.error)}` : ''}</p>`
      : '';
  const list = reasons.length
    ? `<p>${reasons.length === 1 ? 'Reason' : 'Reasons'}:</p><ul class="reasons">${reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>`
    : v === 'valid'
      ? '<p>Every fidelity check passed or was skipped for lack of data.</p>'
      : '';
  return `<section class="verdict ${esc(cls)}" id="verdict" role="${v === 'invalid' || v === null ? 'alert' : 'status'}" aria-label="Fidelity verdict">
<h2>Fidelity verdict: ${esc(heading)}</h2>${statusLine}${list}</section>`;
}

function header(run: RunData, label?: string): string {
  const s = run.summary;
  const env = run.environment;
  const kernel = env?.image?.kernel;
  const started = runStarted(run);
  const t0 = trafficStart(run);
  const items: [string, string][] = [
    ['Run', esc(s.name)],
    ['Date', esc(fmtDate(started))],
    ['Traffic start (t = 0)', esc(fmtDate(t0))],
    ['Status', badge(s.status)],
    ['Seed', esc(s.seed ?? env?.seed ?? '—')],
    [
      'Kernel',
      kernel
        ? `${esc(kernel.abi ?? '—')}${kernel.version ? ` <span class="note">(${esc(kernel.package ?? 'linux-image')} ${esc(kernel.version)}${kernel.hz ? `, HZ=${esc(kernel.hz)}` : ''})</span>` : ''}`
        : '—',
    ],
    [
      'Lab accelerator',
      env?.lab?.accel
        ? `${esc(env.lab.accel.toUpperCase())}${env.lab.accel === 'tcg' ? ' <span class="note">(software emulation, no KVM)</span>' : ''}${env.lab.cpus ? `, ${esc(env.lab.cpus)} vCPU` : ''}${env.lab.memMb ? `, ${esc(env.lab.memMb)} MiB` : ''}`
        : '—',
    ],
    [
      'Lab clock',
      s.clock
        ? `${esc(s.clock.mode)}${s.clock.mode === 'dilated' ? ' <span class="note">(qemu\'s instruction counter drives lab time: timers exact, wall time stretched)</span>' : ''}: ${num(s.clock.guestS, 3)} s of lab time in ${num(s.clock.wallS, 3)} s of wall time${s.clock.dilation ? ` (${num(s.clock.dilation, 3)} lab s per wall s)` : ''}`
        : '—',
    ],
    ['Image id', `<code>${esc(env?.image?.id ?? env?.lab?.imageId ?? '—')}</code>`],
    [
      'Lab CPU',
      esc(env?.cpu?.model ? `${env.cpu.model}${env.cpu.mhz ? ` @ ${num(env.cpu.mhz, 4)} MHz` : ''}` : '—'),
    ],
    ['Samples', esc(s.samples !== undefined ? int(s.samples) : '—')],
    ['Directory', `<code>${esc(run.dir)}</code>`],
  ];
  return `<header>
<h1>Run report: ${esc(s.name)}${label ? `: ${esc(label)}` : ''}</h1>
${verdictBanner(run)}
<dl class="meta">${items.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>
</header>`;
}

/** A check's measured value with the unit its id implies (see run/fidelity.ts). */
export function measuredText(id: string, m: number | null): string {
  if (m === null || !isNum(m)) return '—';
  if (id.startsWith('bottleneck-rate:')) return `${num(m / 1e6, 4)} Mbit/s`;
  if (id.startsWith('idle-rtt:')) return `${fixed(m, 2)} ms`;
  if (id === 'lab-cpu') return `${fixed(m, 1)} %`;
  if (id.startsWith('sampler:')) return `${fixed(m * 100, 1)} % kept`;
  if (id.startsWith('delay-loss:'))
    return Number.isInteger(m) ? `${int(m)} drops` : `${num(m * 100, 3)} % lost`;
  if (id === 'hidden-drops') return `${int(m)} drops`;
  return num(m, 4);
}

function fidelitySection(run: RunData): string {
  const f = run.summary.fidelity;
  if (!f) return '<p>No fidelity report: the run ended before its checks ran.</p>';
  const rows = f.checks.map((c) => [
    `<code>${esc(c.id)}</code>`,
    badge(c.status),
    esc(c.message),
    `<td class="num">${esc(measuredText(c.id, c.measured))}</td>`,
    esc(c.expected),
  ]);
  const counts = ['fail', 'warn', 'pass', 'skip']
    .map((st) => `${f.checks.filter((c) => c.status === st).length} ${st}`)
    .join(', ');
  return `<p>${esc(f.checks.length)} checks: ${esc(counts)}. Any failed check makes a run invalid, any warning suspect.</p>
${table('Fidelity checks: what was measured against what the spec asked for', ['Check', 'Status', 'Finding', 'Measured', 'Expected'], rows)}`;
}

function amountText(a: { packets: number } | { bytes: number } | { bdp: number }): string {
  if ('packets' in a) return `${int(a.packets)} packets`;
  if ('bytes' in a) return `${int(a.bytes)} bytes`;
  return `${num(a.bdp, 3)} × BDP`;
}

function fmtBer(b: number | undefined | null) {
  return isNum(b) ? (b === 0 ? '0' : b.toExponential(1)) : '—';
}

function experimentSection(run: RunData, flows: FlowInfo[]): string {
  const spec = run.spec;
  const out: string[] = [];
  if (spec?.description) out.push(`<p>${esc(spec.description)}</p>`);
  const dur = runLengthS(run);
  out.push(
    `<p>Run length ${esc(num(dur, 4))} s; iperf3 interval ${esc(spec?.sampleInterval !== undefined ? num(spec.sampleInterval / 1000, 3) : '—')} s; fine samplers at ${esc(spec?.sampleHz ?? '—')} Hz; MTU ${esc(spec?.mtu ?? '—')} bytes.</p>`,
  );
  const summaries = new Map<string, PathSummary>((run.summary.paths ?? []).map((p) => [p.name, p]));
  const pathRows = pathsOf(run).map((name) => {
    const sp = spec?.paths?.[name];
    const ps = summaries.get(name);
    const rtt = sp?.rtt ?? ps?.configured.rttMs;
    const rate = sp?.rate !== undefined ? sp.rate / 1e6 : ps?.configured.rateMbps;
    const rrate = sp?.reverse?.rate !== undefined ? sp.reverse.rate / 1e6 : ps?.configured.reverseRateMbps;
    const buf = ps?.configured.bufferPackets;
    const changes = sp?.changes?.length
      ? sp.changes
          .map(
            (c) =>
              `at ${num(c.at / 1000, 4)} s: ${[c.rate !== undefined ? `${num(c.rate / 1e6, 4)} Mbit/s` : '', c.rtt !== undefined ? `${num(c.rtt, 4)} ms` : ''].filter(Boolean).join(', ')}`,
          )
          .join('; ')
      : 'none';
    return [
      `<th scope="row">${esc(name)}</th>`,
      `<td class="num">${esc(num(rtt, 4))} ms</td>`,
      `<td class="num">${esc(num(rate, 4))} Mbit/s</td>`,
      `<td class="num">${esc(num(rrate, 4))} Mbit/s</td>`,
      `<td class="num">${esc(buf ? `${int(buf.forward)} / ${int(buf.reverse)}` : '—')} packets</td>`,
      `<td class="num">${esc(fmtBer(sp?.ber ?? ps?.configured.ber))}</td>`,
      esc(sp?.aqm ?? 'fifo'),
      `<td class="num">${esc(sp?.jitter ? `${num(sp.jitter, 3)} ms (${sp.jitterDistribution ?? 'uniform'})` : '0 ms')}</td>`,
      esc(changes),
    ];
  });
  out.push(
    table(
      'Paths: the emulated long fat network',
      [
        'Path',
        'RTT <span class="unit">(ms)</span>',
        'Rate forward <span class="unit">(Mbit/s)</span>',
        'Rate reverse <span class="unit">(Mbit/s)</span>',
        'Bottleneck buffer forward / reverse <span class="unit">(packets)</span>',
        '<abbr title="Bit error rate applied to both directions">BER</abbr> <span class="unit">(errors/bit)</span>',
        '<abbr title="Queue discipline at the bottleneck">AQM</abbr>',
        'Jitter <span class="unit">(ms)</span>',
        'Changes during the run',
      ],
      pathRows,
    ),
  );
  const specFlows = new Map((spec?.flows ?? []).map((f) => [f.name, f]));
  const summaryFlows = new Map((run.summary.flows ?? []).map((f) => [f.name, f]));
  const flowRows = flows.map((f, i) => {
    const sf = specFlows.get(f.name);
    const sum = summaryFlows.get(f.name);
    const observed = sum?.observedStacks ?? [];
    const mismatch = observed.length > 0 && !observed.every((o) => o === f.stack);
    const extra = [
      sf?.rtt !== undefined ? `own RTT ${num(sf.rtt, 4)} ms` : '',
      sf?.bytes !== undefined ? `${int(sf.bytes)} bytes` : '',
      sf?.window !== undefined ? `window ${amountText(sf.window)}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    return [
      `<th scope="row"><span aria-hidden="true" style="color:${flowSeriesStyles(flows).get(f.name)?.color ?? NEUTRAL.probe}">■</span> ${esc(f.name)}</th>`,
      esc(f.stack),
      observed.length
        ? `${esc(observed.join(', '))}${mismatch ? ' <span class="warn-text">(differs from the spec)</span>' : ''}`
        : '—',
      esc(f.path),
      esc(f.direction),
      `<td class="num">${esc(f.streams)}</td>`,
      `<td class="num">${esc(num(f.startS, 4))} s</td>`,
      `<td class="num">${esc(num(f.durationS, 4))} s</td>`,
      esc(extra || '—'),
    ];
  });
  out.push(
    table(
      'Flows',
      [
        'Flow',
        'Stack',
        '<abbr title="Congestion control the kernel reported for the data sockets (ss -ti)">Observed stack</abbr>',
        'Path',
        'Direction',
        'Streams',
        'Start <span class="unit">(s)</span>',
        'Duration <span class="unit">(s)</span>',
        'Other',
      ],
      flowRows,
    ),
  );
  const idleRows = pathsOf(run).map((name) => {
    const idle = run.idleRtt?.[name] ?? summaries.get(name)?.idleRtt ?? null;
    const cal = run.calibration?.[name];
    const loaded = summaries.get(name)?.loadedRtt;
    return [
      `<th scope="row">${esc(name)}</th>`,
      `<td class="num">${esc(idle ? `${idle.received}/${idle.sent}` : '—')}</td>`,
      `<td class="num">${esc(idle ? `${fixed(idle.minMs, 2)} / ${fixed(idle.avgMs, 2)} / ${fixed(idle.maxMs, 2)} / ${fixed(idle.mdevMs, 2)}` : '—')}</td>`,
      `<td class="num">${esc(cal?.measuredMinMs !== undefined ? fixed(cal.measuredMinMs, 3) : '—')}</td>`,
      `<td class="num">${esc(cal?.excessMs !== undefined ? fixed(cal.excessMs, 3) : '—')}</td>`,
      `<td class="num">${esc(cal?.oneWayDelayMs !== undefined ? fixed(cal.oneWayDelayMs, 3) : '—')}</td>`,
      `<td class="num">${esc(loaded ? `${fixed(loaded.meanMs, 2)} / ${fixed(loaded.maxMs, 2)} (${loaded.samples})` : '—')}</td>`,
    ];
  });
  out.push(
    table(
      'Idle RTT and delay calibration (before traffic), and the RTT probe under load',
      [
        'Path',
        'Idle probe replies',
        'Idle RTT min / avg / max / mdev <span class="unit">(ms)</span>',
        '<abbr title="Minimum RTT measured before calibration, with the configured delay in place">Calibration: measured min</abbr> <span class="unit">(ms)</span>',
        '<abbr title="Delay the lab added on its own (veths, scheduling), removed from the netem delay">Excess removed</abbr> <span class="unit">(ms)</span>',
        '<abbr title="netem delay per direction after calibration">One-way netem delay</abbr> <span class="unit">(ms)</span>',
        'Loaded RTT mean / max <span class="unit">(ms; samples)</span>',
      ],
      idleRows,
    ),
  );
  // A campaign run on an earlier run's dumbbell: its idle RTT is its own, the calibration is not.
  const reusedFrom = [
    ...new Set(
      Object.values(run.calibration ?? {}).flatMap((c) =>
        typeof c.reusedFrom === 'string' ? [c.reusedFrom] : [],
      ),
    ),
  ];
  if (reusedFrom.length)
    out.push(
      `<p>Dumbbell and calibration kept from an earlier run of the campaign (${reusedFrom.map((d) => esc(d)).join(', ')}); the idle RTT above was measured in this run, on that calibration, before traffic.</p>`,
    );
  return out.join('\n');
}

/** Metric ids the report names, for the definitions list. */
const used = new Set<string>();

function mcell(id: string, v: number | null): string {
  used.add(id);
  return metricCell(id, v);
}

function mhead(id: string, override?: string): string {
  used.add(id);
  return metricHeader(id, override);
}

function pmCell(meanId: string, sdId: string, mean: number | null, sd: number | null): string {
  used.add(meanId);
  used.add(sdId);
  const m = metricDisplay(meanId, mean);
  const s = metricDisplay(sdId, sd);
  const d = metricDef(meanId);
  const text = m.text === '—' ? '—' : `${m.text} ± ${s.text}`;
  return `<td class="num" title="${esc(d ? `${d.title} ± ${metricDef(sdId)?.title ?? sdId}: ${d.definition}` : meanId)}">${esc(text)}</td>`;
}

function resultsSection(run: RunData, flows: FlowInfo[]): string {
  const out: string[] = [];
  const m = run.summary.metrics;
  const byFlow = new Map((m?.flows ?? []).map((f) => [f.flow, f]));
  const summaryFlows = new Map<string, FlowSummary>((run.summary.flows ?? []).map((f) => [f.name, f]));
  const anyFailed = (run.summary.flows ?? []).some((f) => f.status === 'failed');
  const flowRows = flows.map((f) => {
    const fm = byFlow.get(f.name)?.metrics ?? [];
    const sf = summaryFlows.get(f.name);
    const mean =
      findMetric(fm, 'throughput.mean') ??
      (isNum(sf?.goodputMbps.mean) ? (sf?.goodputMbps.mean ?? 0) * 1e6 : null);
    const sd =
      findMetric(fm, 'throughput.sd') ?? (isNum(sf?.goodputMbps.sd) ? (sf?.goodputMbps.sd ?? 0) * 1e6 : null);
    const stab = findMetric(fm, 'stability.sigma_over_mu') ?? sf?.stability ?? null;
    const whole = sf?.goodputMbps.wholeRun;
    return [
      `<th scope="row">${esc(f.name)}<br><span class="note">${esc(`${f.path}, ${f.direction}`)}</span></th>`,
      esc(f.stack),
      pmCell('throughput.mean', 'throughput.sd', mean, sd),
      mcell('stability.sigma_over_mu', stab),
      mcell('retransmit.rate', findMetric(fm, 'retransmit.rate')),
      `<td class="num">${esc(isNum(sf?.retransmits) ? int(sf?.retransmits) : '—')}</td>`,
      pmCell('rtt.mean', 'rtt.sd', findMetric(fm, 'rtt.mean'), findMetric(fm, 'rtt.sd')),
      `<td class="num">${esc(isNum(whole) ? num(whole, 4) : '—')}</td>`,
      mcell('recovery.time', findMetric(fm, 'recovery.time')),
      mcell('rampup.time_90', findMetric(fm, 'rampup.time_90')),
      // Only the flow level knows the sender's CPU share (iperf3) next to the lab CPU's clock.
      mcell('cpu.mhz_per_mbps', findMetric(sf?.metrics, 'cpu.mhz_per_mbps')),
      `<td>${esc(formatLimit(sf?.limitedBy))}</td>`,
      ...(anyFailed
        ? [
            sf?.status === 'failed'
              ? `${badge('failed')} ${esc(sf.error ?? '')}`
              : badge(sf ? 'pass' : 'none', sf ? 'ok' : '—'),
          ]
        : []),
    ];
  });
  out.push(
    table(
      'Per flow: throughput, stability, retransmissions and RTT (from the fine samplers, 5 s intervals)',
      [
        'Flow <span class="unit">(path, direction)</span>',
        'Stack',
        `${mhead('throughput.mean', 'Throughput mean')} ± σ`,
        mhead('stability.sigma_over_mu', 'Stability σ/μ'),
        mhead('retransmit.rate'),
        '<abbr title="Segments iperf3 reports as retransmitted over the whole run">Retransmits</abbr> <span class="unit">(segments)</span>',
        `${mhead('rtt.mean', 'RTT (srtt) mean')} ± σ`,
        '<abbr title="Bytes the receiver got over the whole transfer divided by its duration (iperf3)">Whole-run goodput</abbr> <span class="unit">(Mbit/s)</span>',
        mhead('recovery.time', 'Loss recovery, median'),
        mhead('rampup.time_90', 'Ramp-up to 90 %'),
        mhead('cpu.mhz_per_mbps', 'Sender CPU'),
        '<abbr title="What held the flow back, with its share of the time the flow had data in flight: the network (congestion window at a busy bottleneck), the receiver\'s window, the send buffer, or the sender (the lab could not keep up while the bottleneck idled)">Limited by</abbr>',
        ...(anyFailed ? ['Status'] : []),
      ],
      flowRows,
      { id: 'flow-table' },
    ),
  );

  const groups = m?.groups ?? [];
  const pathSummaries = new Map((run.summary.paths ?? []).map((p) => [p.name, p]));
  if (groups.length) {
    const rows = groups.map((g) => {
      const util = pathSummaries.get(g.path)?.utilisation[g.direction] ?? null;
      const conv = g.metrics.filter((x) => x.id === 'convergence.time');
      used.add('convergence.time');
      return [
        `<th scope="row">${esc(`${g.path} ${g.direction}`)}</th>`,
        esc(g.flows.join(', ')),
        mcell('jain.whole', findMetric(g.metrics, 'jain.whole')),
        mcell('jain.second_half', findMetric(g.metrics, 'jain.second_half')),
        mcell('efficiency', findMetric(g.metrics, 'efficiency')),
        mcell('performance.score', findMetric(g.metrics, 'performance.score')),
        mcell('asymmetry', findMetric(g.metrics, 'asymmetry')),
        `<td class="num">${esc(conv.length ? conv.map((c) => (isNum(c.value) ? `${num(c.value, 3)} s` : 'never')).join(', ') : '—')}</td>`,
        `<td class="num">${esc(isNum(util) ? fixed(util, 3) : '—')}</td>`,
      ];
    });
    out.push(
      table(
        'Per bottleneck direction: fairness and efficiency of the flows sharing it',
        [
          'Bottleneck',
          'Flows',
          mhead('jain.whole', 'Jain, whole run'),
          mhead('jain.second_half', 'Jain, second half'),
          mhead('efficiency'),
          mhead('performance.score'),
          mhead('asymmetry'),
          mhead('convergence.time'),
          '<abbr title="Bytes the direction\'s flows delivered over the time any of them sent, against what the configured rate could carry (iperf3 totals)">Utilisation</abbr> <span class="unit">(ratio)</span>',
        ],
        rows,
        { id: 'group-table' },
      ),
    );
    const sets = groups.flatMap((g) => (g.activeSets ?? []).map((a) => ({ g, a })));
    if (sets.length) {
      used.add('jain.active_set');
      out.push(
        table(
          'Per active set: fairness while the set of running flows stays fixed',
          [
            'Bottleneck',
            'From – to <span class="unit">(s)</span>',
            'Flows running',
            mhead('jain.active_set'),
            mhead('efficiency'),
            mhead('performance.score'),
          ],
          sets.map(({ g, a }) => [
            esc(`${g.path} ${g.direction}`),
            `<td class="num">${esc(`${num(a.fromS, 4)} – ${num(a.toS, 4)}`)}</td>`,
            esc(a.flows.join(', ')),
            mcell('jain.active_set', a.jain),
            mcell('efficiency', a.efficiency),
            mcell('performance.score', a.performance),
          ]),
        ),
      );
    }
  } else {
    out.push('<p class="note">No bottleneck-direction metrics: no flow had a goodput series.</p>');
  }

  const theory = m?.theory ?? [];
  if (theory.length) {
    const rows = theory.flatMap((t) =>
      t.metrics.map((x: MetricValue) => {
        used.add(x.id);
        const d = metricDef(x.id);
        const shown = metricDisplay(x.id, x.value);
        return [
          esc(t.path),
          `<th scope="row">${esc(d?.title ?? x.id)}</th>`,
          `<td class="num">${esc(shown.text)}</td>`,
          esc(shown.unit),
          `${esc(d?.definition ?? '')}${d?.source ? ` <span class="note">(${esc(d.source)})</span>` : ''}`,
        ];
      }),
    );
    out.push(
      table(
        'Theory for each path: what the configuration predicts, to set next to the measurements',
        ['Path', 'Quantity', 'Value', 'Unit', 'Definition'],
        rows,
        { id: 'theory-table' },
      ),
    );
  }
  return out.join('\n');
}

function figure(id: string, caption: string, svg: string): string {
  return `<figure id="fig-${esc(id)}">${svg}<figcaption>${caption}</figcaption></figure>`;
}

function plotsSection(run: RunData, flows: FlowInfo[], o: RunReportOptions): string {
  const maxPts = o.maxPointsPerLine ?? 2000;
  const lengthS = runLengthS(run);
  const xDomain: [number, number] | undefined = lengthS > 0 ? [0, lengthS] : undefined;
  const styles = flowSeriesStyles(flows);
  const colour = (i: number) => styles.get(flows[i]?.name ?? '') ?? { color: NEUTRAL.probe, dash: '' };
  // Queues are not flows: black and grey, dashed by direction, never a stack's colour.
  const queueStyle = (i: number) => ({
    color: i % 2 ? NEUTRAL.probe : NEUTRAL.queue,
    dash: i >= 2 ? '6 3' : '',
  });
  const figs: string[] = [];

  const goodput: LineSeries[] = flows.map((f, i) => ({
    name: `${f.name} (${f.stack})`,
    ...colour(i),
    points: goodputPoints(run, f.name).map((p) => ({ t: p.t, v: p.v / 1e6 })),
  }));
  figs.push(
    figure(
      'goodput',
      'Goodput of each flow at its receiver over time (Mbit/s): bytes received per sampling tick, or iperf3’s intervals when the fine sampler has none.',
      lineChart({
        id: 'plot-goodput',
        title: 'Goodput per flow over time',
        desc: `Goodput in Mbit/s of ${flows.length} flows against time in seconds since traffic start.`,
        xLabel: 'Time since traffic start (s)',
        yLabel: 'Goodput (Mbit/s)',
        series: goodput,
        xDomain,
        maxPointsPerLine: maxPts,
      }),
    ),
  );

  const cwnd: LineSeries[] = flows.map((f, i) => ({
    name: `${f.name} (${f.stack})`,
    ...colour(i),
    points: tcpPoints(run, f.name, 'cwndPackets'),
  }));
  figs.push(
    figure(
      'cwnd',
      'Congestion window of each flow’s sender (packets, summed over its streams), from <code>ss -ti</code>.',
      lineChart({
        id: 'plot-cwnd',
        title: 'Congestion window per flow over time',
        desc: 'Sender congestion window in packets against time in seconds.',
        xLabel: 'Time since traffic start (s)',
        yLabel: 'Congestion window (packets)',
        series: cwnd,
        xDomain,
        maxPointsPerLine: maxPts,
      }),
    ),
  );

  const paths = pathsOf(run);
  const rtt: LineSeries[] = [
    ...paths.map((p, i) => ({
      name: `probe RTT, path ${p}`,
      color: i === 0 ? '#000000' : '#4D4D4D',
      dash: i === 0 ? '' : '4 2',
      width: 2,
      points: probeRttPoints(run, p),
    })),
    ...flows.map((f, i) => ({
      name: `srtt ${f.name} (${f.stack})`,
      ...colour(i),
      dash: '5 3',
      points: tcpPoints(run, f.name, 'srttMs'),
    })),
  ];
  figs.push(
    figure(
      'rtt',
      'Round-trip time (ms): the path’s ping probe (solid) and each flow’s smoothed RTT as its sender sees it (dashed). The gap above the configured RTT is queueing.',
      lineChart({
        id: 'plot-rtt',
        title: 'RTT over time: probe and per-flow srtt',
        desc: 'Round-trip time in milliseconds against time in seconds, for the RTT probe of each path and the smoothed RTT of each flow.',
        xLabel: 'Time since traffic start (s)',
        yLabel: 'RTT (ms)',
        series: rtt,
        xDomain,
        maxPointsPerLine: maxPts,
      }),
    ),
  );

  const queues = bottleneckQueues(run);
  const pathSummaries = new Map((run.summary.paths ?? []).map((p) => [p.name, p]));
  const qSeries: LineSeries[] = queues.map((q, i) => ({
    name: `backlog ${q.path} ${q.direction}`,
    ...queueStyle(i),
    points: queuePoints(run, q, 'backlogPackets'),
  }));
  for (const [i, q] of queues.entries()) {
    const limit = pathSummaries.get(q.path)?.configured.bufferPackets[q.direction];
    if (isNum(limit) && lengthS > 0)
      qSeries.push({
        name: `buffer limit ${q.path} ${q.direction} (${limit} packets)`,
        color: NEUTRAL.reference,
        dash: '2 4',
        width: 1,
        points: [
          { t: 0, v: limit },
          { t: lengthS, v: limit },
        ],
      });
  }
  figs.push(
    figure(
      'queue',
      'Backlog of the bottleneck queue (packets) in each direction, with its configured limit dotted. A queue at its limit drops.',
      lineChart({
        id: 'plot-queue',
        title: 'Bottleneck queue backlog over time',
        desc: 'Packets queued at the bottleneck against time in seconds, per path and direction.',
        xLabel: 'Time since traffic start (s)',
        yLabel: 'Bottleneck backlog (packets)',
        series: qSeries,
        xDomain,
        maxPointsPerLine: maxPts,
      }),
    ),
  );

  // Stability: per-interval mean throughput, 5 s (seed 000) unless that makes more than 60 bars.
  const intervalS = Math.max(5, Math.ceil(lengthS / 60 / 5) * 5);
  const nInt = Math.max(1, Math.ceil(lengthS / intervalS - 1e-9));
  const short = (x: number) => String(Number(x.toPrecision(4)));
  const cats = Array.from(
    { length: nInt },
    (_, k) => `${short(k * intervalS)}–${short(Math.min(lengthS, (k + 1) * intervalS))}`,
  );
  figs.push(
    figure(
      'stability',
      `Stability view: each flow’s mean goodput in consecutive ${intervalS} s intervals (Mbit/s). The stability index σ/μ in the flow table is the spread of these bars relative to their mean.`,
      barChart({
        id: 'plot-stability',
        title: `Per-interval throughput (${intervalS} s intervals)`,
        desc: `Mean goodput in Mbit/s of each flow in each ${intervalS}-second interval.`,
        xLabel: `Interval (s since traffic start, ${intervalS} s each)`,
        yLabel: 'Mean goodput (Mbit/s)',
        categories: cats,
        series: flows.map((f, i) => ({
          name: `${f.name} (${f.stack})`,
          color: colour(i).color,
          values: intervalMeans(goodputPoints(run, f.name), intervalS, lengthS).map((v) =>
            v === null ? null : v / 1e6,
          ),
        })),
      }),
    ),
  );

  const cpu = run.samples.cpu.filter((c) => c.t >= 0);
  figs.push(
    figure(
      'cpu',
      'Lab CPU busy (% of all vCPUs). Above about 70 % on average, timers and pacing in the lab go wrong and the fidelity check fails.',
      lineChart({
        id: 'plot-cpu',
        title: 'Lab CPU use over time',
        desc: 'Percent of the lab CPUs busy against time in seconds.',
        xLabel: 'Time since traffic start (s)',
        yLabel: 'Lab CPU busy (%)',
        series: [
          { name: 'busy', color: '#0072B2', points: cpu.map((c) => ({ t: c.t, v: c.busyPct })) },
          {
            name: 'softirq',
            color: '#D55E00',
            dash: '5 3',
            points: cpu.map((c) => ({ t: c.t, v: c.softirqPct })),
          },
          ...(cpu.length && lengthS > 0
            ? [
                {
                  name: '70 % limit',
                  color: '#4D4D4D',
                  dash: '2 4',
                  width: 1,
                  points: [
                    { t: 0, v: 70 },
                    { t: lengthS, v: 70 },
                  ],
                },
              ]
            : []),
        ],
        xDomain,
        maxPointsPerLine: maxPts,
      }),
    ),
  );
  return figs.join('\n');
}

function eventsSection(run: RunData): string {
  if (!run.events.length) return '';
  const rows = run.events.map((e) => {
    const { at, type, ...rest } = e;
    const detail = JSON.stringify(rest);
    return [
      esc(at),
      esc(type),
      `<code>${esc(detail.length > 200 ? `${detail.slice(0, 199)}…` : detail)}</code>`,
    ];
  });
  return `<details><summary>Events (${run.events.length})</summary>${table('Run events in order', ['At (UTC)', 'Event', 'Detail'], rows)}</details>`;
}

/** The whole report of one run as one self-contained HTML page. */
export function renderRunReport(run: RunData, o: RunReportOptions = {}): string {
  used.clear();
  const flows = flowsOf(run);
  const results = resultsSection(run, flows);
  const plots = plotsSection(run, flows, o);
  const back = o.backLink ? `<p><a href="${esc(o.backLink[0])}">← ${esc(o.backLink[1])}</a></p>` : '';
  const skipped = run.skippedLines
    ? `<p class="warn-text">${run.skippedLines} sample or event lines could not be read (a torn write?) and were left out.</p>`
    : '';
  const body = `${back}${header(run, o.label)}
<nav aria-label="Sections"><ul>
<li><a href="#fidelity">Fidelity checks</a></li><li><a href="#experiment">Experiment</a></li>
<li><a href="#results">Results</a></li><li><a href="#plots">Plots</a></li><li><a href="#definitions">Definitions</a></li>
</ul></nav>
<main>
<section id="fidelity" aria-labelledby="h-fidelity"><h2 id="h-fidelity">Fidelity checks</h2>${fidelitySection(run)}</section>
<section id="experiment" aria-labelledby="h-experiment"><h2 id="h-experiment">Experiment</h2>${experimentSection(run, flows)}${eventsSection(run)}</section>
<section id="results" aria-labelledby="h-results"><h2 id="h-results">Results</h2>${skipped}${results}</section>
<section id="plots" aria-labelledby="h-plots"><h2 id="h-plots">Plots</h2>
<p class="note">Long series are reduced to at most ${esc(o.maxPointsPerLine ?? 2000)} points per line, keeping each time bucket’s minimum and maximum, so peaks and dips stay visible.</p>
${plots}</section>
<section id="definitions" aria-labelledby="h-definitions"><h2 id="h-definitions">Definitions</h2>
<p>Every metric in the tables above, with its unit (bit/s metrics are shown in Mbit/s, ratios are plain numbers unless marked %).</p>
${definitionsList([...used].sort())}</section>
</main>
<footer>Generated by <code>lfnlab report</code> on ${esc(fmtDate(o.now ?? new Date()))} from <code>${esc(run.dir)}</code>.</footer>`;
  return page({
    title: `lfnlab run report: ${run.summary.name}${o.label ? `: ${o.label}` : ''} (${run.summary.verdict ?? 'no verdict'})`,
    body,
  });
}
