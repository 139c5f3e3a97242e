// The suite's HTML report: self-contained (the report's page and table helpers, no scripts), a
// pass/fail matrix condition × stack with each bounded metric's value, interval and bound, then the
// runs. Outcome is always a word and a symbol; colour (Okabe-Ito blue / vermillion, grey) repeats it.

import { esc } from '../report/format.js';
import { definitionsList, page, table } from '../report/page.js';
import { VERDICT_COLORS } from '../report/palette.js';
import type { CaseResult, MetricJudgement, SuiteResult } from './judge.js';
import { formatRange, formatValue, metricTitle, QUALIFY_METRICS } from './metrics.js';

const OUTCOME = {
  pass: { word: 'pass', mark: '✓', color: VERDICT_COLORS.holds },
  failure: { word: 'fail', mark: '✗', color: VERDICT_COLORS.fails },
  error: { word: 'error', mark: '!', color: '#333333' },
} as const;

const CSS = `<style>
td.cell { min-width: 12rem; }
td.cell .outcome { font-weight: 700; }
td.pass { border-left: 6px solid ${OUTCOME.pass.color}; }
td.failure { border-left: 6px dashed ${OUTCOME.failure.color}; }
td.error { border-left: 6px dotted ${OUTCOME.error.color}; background: #f3f3f3; }
td.cell ul { margin: .2rem 0 0; padding-left: 1rem; }
li.miss { color: #8a1020; font-weight: 600; }
</style>`;

/** "goodput share of the link (ratio): 0.82 (95 % CI 0.80–0.84), n=3; bound ≥ 0.75". */
function metricLine(m: MetricJudgement): string {
  const bound = [
    m.min !== undefined ? `≥ ${formatValue(m.metric, m.min)}` : '',
    m.max !== undefined ? `≤ ${formatValue(m.metric, m.max)}` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  const value =
    m.mean === null
      ? 'not measured'
      : `${formatValue(m.metric, m.mean)}${m.ci ? ` (95 % CI ${formatRange(m.metric, m.ci.low, m.ci.high)})` : ''}, n=${m.n}`;
  const title = `${metricTitle(m.metric)} (${m.unit === 'ratio' ? 'ratio' : m.unit})`;
  return `<li${m.pass === false ? ' class="miss"' : ''}>${esc(title)}: ${esc(value)}; bound ${esc(bound)}${m.pass === false ? ' — <strong>missed</strong>' : ''}</li>`;
}

function cell(c: CaseResult | undefined): string {
  if (!c) return '<td>-</td>';
  const o = OUTCOME[c.outcome];
  const why = c.outcome === 'error' ? `<p class="note">${esc(c.message)}</p>` : '';
  return `<td class="cell ${c.outcome}"><span class="outcome" style="color:${o.color}">${o.mark} ${o.word}</span><ul>${c.metrics.map(metricLine).join('')}</ul>${why}</td>`;
}

export function qualifyHtml(r: SuiteResult): string {
  const matrix = table(
    'Outcome per condition (rows) and stack (columns): mean over repetitions against each bound',
    ['condition', ...r.stacks.map(esc)],
    r.conditions.map((cond) => [
      `<th scope="row">${esc(cond)}</th>`,
      ...r.stacks.map((s) => cell(r.cases.find((c) => c.condition === cond && c.stack === s))),
    ]),
    { id: 'matrix' },
  );
  const runs = table(
    'Runs',
    ['condition', 'stack', 'run', 'status', 'verdict', 'reasons'],
    r.cases.flatMap((c) =>
      c.runs.map((run) => [
        esc(c.condition),
        esc(c.stack),
        `<code>${esc(run.id)}</code>`,
        esc(run.status),
        esc(run.verdict ?? '-'),
        esc(run.reasons.join('; ')),
      ]),
    ),
  );
  const { tests, passed, failures, errors } = r.counts;
  const ids = new Set(r.cases.flatMap((c) => c.metrics.map((m) => QUALIFY_METRICS[m.metric].id)));
  const body = `${CSS}
<h1>Qualification: ${esc(r.suite)}</h1>
${r.description ? `<p>${esc(r.description)}</p>` : ''}
<dl class="meta">
<dt>Result</dt><dd><strong>${passed} of ${tests} passed</strong>, ${failures} failed, ${errors} errors</dd>
<dt>Lab</dt><dd>${esc(r.lab)} (image ${esc(r.imageId ?? 'unknown')}, kernel ${esc(r.kernel ?? 'unknown')})</dd>
<dt>Runs</dt><dd>${r.repetitions} per condition × stack${r.seconds !== null ? `, ${r.seconds} s each` : ''}, seed ${r.seed}</dd>
</dl>
<p class="note">A case passes when every run completed with a valid fidelity verdict and each bounded metric's mean over the runs lies within its bound; an invalid run or an unmeasured metric is an error. Intervals are 95 % intervals of the mean (n ≥ 2): the percentile bootstrap, widened to the Student t interval where that is wider, as it is at a few runs. Ratios are unitless.</p>
${matrix}
<h2>Runs</h2>
${runs}
<h2>Metrics</h2>
${definitionsList(ids)}`;
  return page({ title: `Qualification ${r.suite}`, body });
}
