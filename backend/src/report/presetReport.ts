// A preset's comparison as a page: what the paper did and found, the scaling rule, its published
// numbers beside ours with the ratio, and each finding in words: holds / fails / inconclusive, the
// test that decided it and the runs behind it (n). The badge says the verdict in words, so colour
// is never the only cue.
import { fmt, type PresetComparison } from '../presets/compare.js';
import { groupValue, preservedText } from '../presets/groupText.js';
import { basisText, MIN_RUNS, nText, runsToDecideText, verdictOf } from '../presets/verdict.js';
import { esc } from './format.js';
import { page, table, verdictBadge } from './page.js';

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
      ? `<br><span class="unit">Test: ${esc(t.name)}; ${esc(nText(t))} runs per cell${basisText(t) ? ` (${esc(basisText(t))})` : ''}${t.deterministic ? ' (closed-form value: one run decides)' : ''}${runsToDecideText(t) ? `; ${esc(runsToDecideText(t))}` : ''}.</span>`
      : '';
    return `<li>${verdictBadge(v)} ${esc(f.sentence)} <span class="unit">(${esc(f.ref)})</span>${test}</li>`;
  });
  const links = (o.campaignLinks ?? []).map((l) => `<li><a href="${esc(l)}">${esc(l)}</a></li>`).join('');
  const body = [
    `<h1>${esc(c.preset)}</h1>`,
    `<p><strong>${esc(c.paper)}</strong>. ${esc(c.experiment)}</p>`,
    `<p><strong>What the paper found:</strong> ${esc(c.finding)}</p>`,
    `<p><strong>Scaling rule:</strong> ${esc(c.scaling)}</p>`,
    `<p>${esc(c.summary)}</p>`,
    '<h2>Findings, checked here</h2>',
    `<p class="unit">Each finding holds or fails only when its test decides at 95 % confidence (a seeded bootstrap interval, widened for a value to the Student t interval where that is wider, as it is at a few runs; a share of pairs or cells judged unit by unit, each undecided one counted every way it could go; and Kendall's τ-b at p &lt; 0.05 for orderings), with at least ${MIN_RUNS} runs per cell; otherwise it is inconclusive. A variant the lab could not carry (every repetition ran, fewer than ${MIN_RUNS} usable) is left out of averages over several variants, and the finding names it.</p>`,
    `<ul>${findings.join('') || '<li>This preset states no finding to check.</li>'}</ul>`,
    '<h2>Published numbers beside ours</h2>',
    table(
      'Each published number, scaled by the rule above, and what this lab measured (mean ± σ over runs)',
      ['number', 'reference', 'paper', 'paper, scaled', 'here', 'here / scaled'],
      cells,
    ),
    scalingSection(c),
    links ? `<h2>Campaigns</h2><ul>${links}</ul>` : '',
  ].join('\n');
  return page({ title: `${c.preset}: paper vs lfnlab`, body });
}

/** The dimensionless groups, paper against ours, and what the ones not kept likely do. */
function scalingSection(c: PresetComparison): string {
  // comparison.json files written before groups carry none.
  const g = c.groups as PresetComparison['groups'] | undefined;
  if (!g) return '';
  const rows = g.groups.map((x) => [
    esc(x.label),
    esc(groupValue(x.paper)),
    esc(groupValue(x.ours)),
    `${esc(preservedText(x))}${x.note ? ` <span class="unit">(${esc(x.note)})</span>` : ''}`,
  ]);
  const caveats = g.caveats
    .map(
      (cv) =>
        `<li><strong>${esc(cv.groups.join(', '))}</strong> (findings ${esc(cv.claims.join(', '))}): ${esc(cv.effect)}</li>`,
    )
    .join('');
  return [
    '<h2>Scaling: dimensionless groups</h2>',
    `<p class="unit">At ${esc(String(g.at.rateMbps))} Mbit/s, ${esc(String(g.at.rttMs))} ms${g.at.runS ? `, ${esc(String(g.at.runS))} s runs` : ''} (rate × ${esc(String(g.rateFactor))}, RTT × ${esc(String(g.rttFactor))}${g.at.runS ? `, time × ${esc(fmt(g.timeFactor))}` : ''})${g.bdpRange ? `; the BDP over all runs is ${esc(groupValue(g.bdpRange.min))}–${esc(groupValue(g.bdpRange.max))} packets here` : ''}. A stack constant counted in packets keeps its meaning only if it is scaled with the window; time constants keep theirs against the RTT but not against a congestion epoch.</p>`,
    table(
      'Each group in the paper and here, and whether the scaling keeps it',
      ['group', 'paper', 'here', 'preserved'],
      rows,
    ),
    caveats ? `<h3>Not preserved, and what it likely does</h3><ul>${caveats}</ul>` : '',
  ].join('\n');
}
