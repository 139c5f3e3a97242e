// The run report's results: the papers' per-flow, per-bottleneck and theory tables. It records each
// metric it names in `usedMetricIds`, so the report can define exactly those metrics and no others.
import type { MetricValue } from '@lfnlab/metrics';
import { formatLimit } from '../run/limitedBy.js';
import type { FlowSummary } from '../run/summary.js';
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
import type { RunData } from './load.js';
import { badge, table } from './page.js';
import type { FlowInfo } from './series.js';

/** Metric ids the report names, for the definitions list. */
export const usedMetricIds = new Set<string>();

function mcell(id: string, v: number | null): string {
  usedMetricIds.add(id);
  return metricCell(id, v);
}

function mhead(id: string, override?: string): string {
  usedMetricIds.add(id);
  return metricHeader(id, override);
}

function pmCell(meanId: string, sdId: string, mean: number | null, sd: number | null): string {
  usedMetricIds.add(meanId);
  usedMetricIds.add(sdId);
  const m = metricDisplay(meanId, mean);
  const s = metricDisplay(sdId, sd);
  const d = metricDef(meanId);
  const text = m.text === '—' ? '—' : `${m.text} ± ${s.text}`;
  return `<td class="num" title="${esc(d ? `${d.title} ± ${metricDef(sdId)?.title ?? sdId}: ${d.definition}` : meanId)}">${esc(text)}</td>`;
}

export function resultsSection(run: RunData, flows: FlowInfo[]): string {
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
      usedMetricIds.add('convergence.time');
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
      usedMetricIds.add('jain.active_set');
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
        usedMetricIds.add(x.id);
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
