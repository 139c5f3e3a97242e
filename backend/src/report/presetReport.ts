// A preset's comparison as a page: what the paper did and found, the scaling rule, its published
// numbers beside ours with the ratio, and each finding in words: holds / fails / inconclusive, the
// test that decided it and the runs behind it (n). The badge says the verdict in words, so colour
// is never the only cue.
import { fmt, type PresetComparison } from '../presets/compare.js';
import { MIN_RUNS, nText, verdictOf } from '../presets/verdict.js';
import { esc } from './format.js';
import { badge, page, table } from './page.js';

const badgeClass = { holds: 'pass', fails: 'fail', inconclusive: 'skip' } as const;

export function renderPresetComparison(c: PresetComparison, o: { campaignLinks?: string[] } = {}): string {
  const cells = c.cells.map((x) => [
    esc(x.label),
    esc(x.ref),
    `${esc(fmt(x.published.value))}${x.published.sd !== null ? ` ± ${esc(fmt(x.published.sd))}` : ''} <span class="unit">${esc(x.unit)}</span>`,
    `${esc(fmt(x.published.scaled))}${x.published.scaledSd !== null ? ` ± ${esc(fmt(x.published.scaledSd))}` : ''}`,
    x.measured
      ? `${esc(fmt(x.measured.value))}${x.measured.sd !== null ? ` ± ${esc(fmt(x.measured.sd))}` : ''} <span class="unit">(n = ${x.measured.n})</span>`
      : '<span class="unit">not measured by this preset</span>',
    esc(fmt(x.ratio)),
  ]);
  const findings = c.findings.map((f) => {
    const v = verdictOf(f);
    // comparison.json files written before verdicts carry no test.
    const t = f.test as (typeof f)['test'] | undefined;
    const test = t
      ? `<br><span class="unit">Test: ${esc(t.name)}; ${esc(nText(t))} runs per cell${t.deterministic ? ' (closed-form value: one run decides)' : ''}.</span>`
      : '';
    return `<li>${badge(badgeClass[v], v)} ${esc(f.sentence)} <span class="unit">(${esc(f.ref)})</span>${test}</li>`;
  });
  const links = (o.campaignLinks ?? []).map((l) => `<li><a href="${esc(l)}">${esc(l)}</a></li>`).join('');
  const body = [
    `<h1>${esc(c.preset)}</h1>`,
    `<p><strong>${esc(c.paper)}</strong>. ${esc(c.experiment)}</p>`,
    `<p><strong>What the paper found:</strong> ${esc(c.finding)}</p>`,
    `<p><strong>Scaling rule:</strong> ${esc(c.scaling)}</p>`,
    `<p>${esc(c.summary)}</p>`,
    '<h2>Findings, checked here</h2>',
    `<p class="unit">Each finding holds or fails only when its test decides at 95 % confidence (a seeded bootstrap interval, or Kendall's τ-b at p &lt; 0.05 for orderings), with at least ${MIN_RUNS} runs per cell; otherwise it is inconclusive.</p>`,
    `<ul>${findings.join('') || '<li>This preset states no finding to check.</li>'}</ul>`,
    '<h2>Published numbers beside ours</h2>',
    table(
      'Each published number, scaled by the rule above, and what this lab measured (mean ± σ over runs)',
      ['number', 'reference', 'paper', 'paper, scaled', 'here', 'here / scaled'],
      cells,
    ),
    links ? `<h2>Campaigns</h2><ul>${links}</ul>` : '',
  ].join('\n');
  return page({ title: `${c.preset}: paper vs lfnlab`, body });
}
