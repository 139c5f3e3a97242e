// The HTML report of a campaign: every run in one table, means ± σ over repetitions, and the
// papers' matrix (stack × a second parameter) when the campaign varies a stack.
import { variantLabel } from '../campaign/variantLabel.js';
import { esc, findMetric, isNum, meanSd, metricDisplay, metricHeader, num } from './format.js';
import type { CampaignData, CampaignRun } from './load.js';
import { badge, definitionsList, page, table } from './page.js';

export interface CampaignRunMetrics {
  id: string;
  /** The variant's human label (the id where none is known). */
  label: string;
  params: Record<string, unknown>;
  repetition: number;
  status: string;
  verdict: string | null;
  /** Sum of the flows' whole-run goodput, Mbit/s. */
  goodputTotalMbps: number | null;
  flowGoodputMbps: Record<string, number | null>;
  jainWhole: number | null;
  jainSecondHalf: number | null;
  efficiency: number | null;
  performance: number | null;
  utilisation: number | null;
  /** Mean over flows of their mean smoothed RTT, ms. */
  rttMeanMs: number | null;
}

/** The key numbers of one campaign run, from its summary when it has one, else results.json's row. */
export function campaignRunMetrics(r: CampaignRun): CampaignRunMetrics {
  const s = r.summary;
  const fwd = s?.metrics?.groups?.find((g) => g.direction === 'forward') ?? s?.metrics?.groups?.[0];
  const flowGoodputMbps: Record<string, number | null> = s?.flows?.length
    ? Object.fromEntries(s.flows.map((f) => [f.name, f.goodputMbps?.wholeRun ?? null]))
    : (r.row?.goodputMbps ?? {});
  const gp = Object.values(flowGoodputMbps).filter(isNum);
  const rtts = (s?.metrics?.flows ?? []).map((f) => findMetric(f.metrics, 'rtt.mean')).filter(isNum);
  return {
    id: r.id,
    label: r.label,
    params: r.params,
    repetition: r.repetition,
    status: s?.status ?? r.row?.status ?? 'missing',
    verdict: s?.verdict ?? r.row?.verdict ?? null,
    goodputTotalMbps: gp.length ? gp.reduce((a, b) => a + b, 0) : null,
    flowGoodputMbps,
    jainWhole:
      findMetric(fwd?.metrics, 'jain.whole') ?? s?.paths?.[0]?.jain.forward ?? r.row?.jainForward ?? null,
    jainSecondHalf: findMetric(fwd?.metrics, 'jain.second_half'),
    efficiency: findMetric(fwd?.metrics, 'efficiency'),
    performance: findMetric(fwd?.metrics, 'performance.score'),
    utilisation: s?.paths?.[0]?.utilisation.forward ?? r.row?.utilisationForward ?? null,
    rttMeanMs: rtts.length ? rtts.reduce((a, b) => a + b, 0) / rtts.length : null,
  };
}

/** Whether a run's numbers may be used: it completed and its link was not found invalid. */
export const usable = (m: CampaignRunMetrics) => m.status === 'completed' && m.verdict !== 'invalid';

interface Column {
  key: keyof CampaignRunMetrics;
  head: string;
  /** Registry id for formatting and the definition; null for columns shown as they are. */
  metric: string | null;
  unit: string;
}

const COLUMNS: Column[] = [
  {
    key: 'goodputTotalMbps',
    head: '<abbr title="Sum over the flows of their whole-run goodput (iperf3 totals)">Total goodput</abbr> <span class="unit">(Mbit/s)</span>',
    metric: null,
    unit: 'Mbit/s',
  },
  { key: 'jainWhole', head: metricHeader('jain.whole', 'Jain, whole run'), metric: 'jain.whole', unit: '' },
  {
    key: 'jainSecondHalf',
    head: metricHeader('jain.second_half', 'Jain, second half'),
    metric: 'jain.second_half',
    unit: '',
  },
  { key: 'efficiency', head: metricHeader('efficiency'), metric: 'efficiency', unit: '' },
  { key: 'performance', head: metricHeader('performance.score'), metric: 'performance.score', unit: '' },
  {
    key: 'utilisation',
    head: '<abbr title="Forward bottleneck of the first path: bytes delivered against what the configured rate could carry">Utilisation</abbr> <span class="unit">(ratio)</span>',
    metric: null,
    unit: '',
  },
  {
    key: 'rttMeanMs',
    head: '<abbr title="Mean over flows of their mean smoothed RTT (rtt.mean)">RTT mean</abbr> <span class="unit">(ms)</span>',
    metric: null,
    unit: 'ms',
  },
];

/** A parameter's column header: its last field (flows[0].stack → stack) when that is unambiguous. */
export function paramHead(p: string, all: string[]): string {
  const tail = (x: string) => x.split('.').pop() ?? x;
  const short = all.filter((q) => tail(q) === tail(p)).length === 1 ? tail(p) : p;
  return short === p ? `<code>${esc(p)}</code>` : `<abbr title="${esc(p)}"><code>${esc(short)}</code></abbr>`;
}

const paramText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function valueText(c: Column, v: number | null): string {
  if (!isNum(v)) return '—';
  if (c.metric) return metricDisplay(c.metric, v).text;
  return c.unit === '' ? v.toFixed(3) : num(v, 4);
}

function cell(c: Column, v: number | null): string {
  return `<td class="num">${esc(valueText(c, v))}</td>`;
}

function statCell(c: Column, xs: (number | null)[], total?: number): string {
  const m = meanSd(xs);
  if (!m) return '<td class="num">—</td>';
  const mean = valueText(c, m.mean);
  // σ with the mean's precision: ratios to 3 decimals, so a tiny σ reads 0.000, not 2.6e-6.
  const sd = c.unit === '' ? m.sd.toFixed(3) : num(m.sd, 3);
  const n = total !== undefined ? ` (n=${m.n})` : '';
  return `<td class="num" title="mean ± population σ over ${m.n} usable runs">${esc(`${mean} ± ${sd}${n}`)}</td>`;
}

/** The parameter that picks a stack (…stack), and the next varied parameter, for the matrix. */
export function matrixAxes(vary: Record<string, unknown[]>): { stack: string; other: string } | null {
  const keys = Object.keys(vary).filter((k) => (vary[k]?.length ?? 0) > 1);
  const stack = keys.find((k) => /(^|\.)stack$/.test(k));
  const other = keys.find((k) => k !== stack);
  return stack && other ? { stack, other } : null;
}

export interface CampaignReportOptions {
  /** Where a run's report or directory is, relative to the campaign report; null for no link. */
  runHref?: (run: CampaignRun) => string | null;
  now?: Date;
}

export function renderCampaignReport(c: CampaignData, o: CampaignReportOptions = {}): string {
  const runs = c.runs.map((r) => ({ r, m: campaignRunMetrics(r) }));
  const params = Object.keys(c.vary);
  const verdicts = ['valid', 'suspect', 'invalid'].map(
    (v) => [v, runs.filter((x) => x.m.verdict === v).length] as const,
  );
  const noVerdict = runs.filter((x) => x.m.verdict === null).length;
  const notCompleted = runs.filter((x) => x.m.status !== 'completed');
  const invalid = runs.filter((x) => x.m.verdict === 'invalid');
  const unusable = runs.filter((x) => !usable(x.m));
  const out: string[] = [];

  const bannerCls = invalid.length
    ? 'invalid'
    : notCompleted.length || noVerdict
      ? 'suspect'
      : verdicts[1]?.[1]
        ? 'suspect'
        : 'valid';
  const bannerItems = [
    invalid.length
      ? `<li>${invalid.length} run(s) are <strong>invalid</strong>: ${invalid.map((x) => esc(x.m.label)).join(', ')}</li>`
      : '',
    notCompleted.length
      ? `<li>${notCompleted.length} run(s) did not complete: ${notCompleted.map((x) => `${esc(x.m.label)} (${esc(x.m.status)})`).join(', ')}</li>`
      : '',
    verdicts[1]?.[1]
      ? `<li>${verdicts[1][1]} run(s) are suspect; they are kept in the means, check their reasons</li>`
      : '',
  ].filter(Boolean);
  out.push(`<header><h1>Campaign report: ${esc(c.name)}</h1>
${c.description ? `<p>${esc(c.description)}</p>` : ''}
<section class="verdict ${bannerCls}" id="verdict" aria-label="Campaign fidelity"><h2>${runs.length} runs: ${verdicts.map(([v, n]) => `${n} ${v}`).join(', ')}${noVerdict ? `, ${noVerdict} without a verdict` : ''}</h2>
${bannerItems.length ? `<ul>${bannerItems.join('')}</ul><p>Runs that are invalid or did not complete (${unusable.length}) are left out of the means and the matrix.</p>` : '<p>Every run completed with a valid link.</p>'}</section>
<dl class="meta"><dt>Directory</dt><dd><code>${esc(c.dir)}</code></dd><dt>Repetitions</dt><dd>${esc(c.repeat ?? '—')}</dd></dl>
</header>`);

  out.push(
    '<nav aria-label="Sections"><ul><li><a href="#parameters">Parameters</a></li><li><a href="#runs">All runs</a></li><li><a href="#grouped">Means over repetitions</a></li><li><a href="#matrix">Matrix</a></li><li><a href="#definitions">Definitions</a></li></ul></nav><main>',
  );

  out.push(
    `<section id="parameters"><h2>Parameters varied</h2>${
      params.length
        ? table(
            'Spec fields the campaign varies, and their values (cross product)',
            ['Parameter (path in the spec)', 'Values'],
            params.map((p) => [`<code>${esc(p)}</code>`, esc((c.vary[p] ?? []).map(paramText).join(', '))]),
          )
        : '<p>None: every run is a repetition of the base spec.</p>'
    }</section>`,
  );

  const runRows = runs.map(({ r, m }) => {
    const href = o.runHref?.(r) ?? null;
    return [
      // The label names the variant; the id below it is its directory under runs/.
      `<th scope="row"><span class="nowrap">${href ? `<a href="${esc(href)}">${esc(r.label)}</a>` : esc(r.label)}</span>${r.label === r.id ? '' : `<br><code class="note">${esc(r.id)}</code>`}</th>`,
      ...params.map((p) => esc(paramText(r.params[p]))),
      `<td class="num">${esc(r.repetition)}</td>`,
      `${badge(m.verdict ?? 'none', m.verdict ?? 'no verdict')}${m.status === 'completed' ? '' : ` ${badge(m.status)}`}`,
      ...COLUMNS.map((col) => cell(col, m[col.key] as number | null)),
    ];
  });
  out.push(
    `<section id="runs"><h2>All runs</h2>${table(
      'Every run: parameters, verdict and key metrics (forward bottleneck of the first path)',
      [
        'Run',
        ...params.map((p) => paramHead(p, params)),
        '<abbr title="Repetition">Rep.</abbr>',
        '<abbr title="Fidelity verdict; the status too when the run did not complete">Verdict</abbr>',
        ...COLUMNS.map((x) => x.head),
      ],
      runRows,
      { id: 'runs-table' },
    )}</section>`,
  );

  // Means ± σ over repetitions of the same parameters.
  const groups = new Map<string, { params: Record<string, unknown>; ms: CampaignRunMetrics[] }>();
  for (const { m } of runs) {
    const key = JSON.stringify(params.map((p) => m.params[p] ?? null));
    const g = groups.get(key) ?? { params: m.params, ms: [] };
    g.ms.push(m);
    groups.set(key, g);
  }
  const groupRows = [...groups.values()].map((g) => {
    const ok = g.ms.filter(usable);
    return [
      `<th scope="row">${esc(variantLabel({ params: g.params, repetition: 1 }, { vary: c.vary, repeat: 1 }))}</th>`,
      ...params.map((p) => esc(paramText(g.params[p]))),
      `<td class="num">${ok.length} / ${g.ms.length}</td>`,
      ...COLUMNS.map((col) =>
        statCell(
          col,
          ok.map((m) => m[col.key] as number | null),
        ),
      ),
    ];
  });
  out.push(
    `<section id="grouped"><h2>Means over repetitions</h2>${table(
      'Mean ± σ (population) over the usable repetitions of each parameter combination',
      [
        'Variant',
        ...params.map((p) => paramHead(p, params)),
        '<abbr title="usable runs / runs">Runs used</abbr>',
        ...COLUMNS.map((x) => x.head),
      ],
      groupRows,
      { id: 'grouped-table' },
    )}</section>`,
  );

  const axes = matrixAxes(c.vary);
  if (axes) {
    const stacks = c.vary[axes.stack] ?? [];
    const others = c.vary[axes.other] ?? [];
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const mats = COLUMNS.filter((x) => ['jainWhole', 'goodputTotalMbps', 'efficiency'].includes(x.key)).map(
      (col) => {
        const rows = stacks.map((s) => [
          `<th scope="row">${esc(paramText(s))}</th>`,
          ...others.map((v) =>
            statCell(
              col,
              runs
                .filter(
                  ({ m }) => usable(m) && same(m.params[axes.stack], s) && same(m.params[axes.other], v),
                )
                .map(({ m }) => m[col.key] as number | null),
              1,
            ),
          ),
        ]);
        return table(
          `${col.head}: <code>${esc(axes.stack)}</code> (rows) × <code>${esc(axes.other)}</code> (columns), mean ± σ over usable runs`,
          [
            `<code>${esc(axes.stack)}</code> \\ <code>${esc(axes.other)}</code>`,
            ...others.map((v) => esc(paramText(v))),
          ],
          rows,
        );
      },
    );
    const rest = params.filter((p) => p !== axes.stack && p !== axes.other);
    out.push(
      `<section id="matrix"><h2>Matrix: stack × ${esc(axes.other)}</h2>${rest.length ? `<p class="note">Pooled over ${rest.map((p) => `<code>${esc(p)}</code>`).join(', ')}.</p>` : ''}${mats.join('\n')}</section>`,
    );
  } else {
    out.push(
      '<section id="matrix"><h2>Matrix</h2><p class="note">No matrix: it needs a varied stack parameter (a field ending in <code>stack</code>) and a second varied parameter.</p></section>',
    );
  }
  out.push(
    `<section id="definitions"><h2>Definitions</h2>${definitionsList(['jain.whole', 'jain.second_half', 'efficiency', 'performance.score', 'rtt.mean'])}</section></main>`,
  );
  out.push(
    `<footer>Generated by <code>lfnlab report</code> on ${esc((o.now ?? new Date()).toISOString())} from <code>${esc(c.dir)}</code>.</footer>`,
  );
  const worst = invalid.length ? 'has invalid runs' : `${runs.length} runs`;
  return page({ title: `lfnlab campaign report: ${c.name} (${worst})`, body: out.join('\n') });
}
