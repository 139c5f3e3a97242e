// The presets not reproduced yet: every preset with a reproduction length that is not published,
// the runs kept in its progress directory counted, the wall time left at their pace, and the
// summary's section and header that list them.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandCampaign } from '../campaign/expand.js';
import { renderResultsSummaryHtml, renderResultsSummaryMarkdown } from '../report/presetSummary.js';
import { presetForReproduction } from './ci.js';
import { loadPresets } from './load.js';
import { pendingPresets, progressDirOf } from './pending.js';

const presets = loadPresets();
const preset = presets.find((p) => p.name === 'seed002-selfsimilar');
const first = preset ? presetForReproduction(preset)[0] : undefined;
if (!first) throw new Error('seed002-selfsimilar or its reproduction campaign is missing');
const { part, campaign } = first;

/**
 * Runs of the preset kept as a reproduction keeps them, 60 s of traffic in 600 s of wall each: one
 * after another on one lab, or with `labs: 2` two at a time.
 */
function keepRuns(resultsDir: string, o: { runs?: number; labs?: 1 | 2; plan?: boolean } = {}): void {
  const labs = o.labs ?? 1;
  // A reproduction writes its plan first (campaign.json: every variant), then each run as it ends.
  if (o.plan) {
    const dir = join(progressDirOf(resultsDir, 'seed002-selfsimilar'), part);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'campaign.json'), JSON.stringify({ variants: expandCampaign(campaign) }));
  }
  for (const [i, v] of expandCampaign(campaign)
    .slice(0, o.runs ?? 2)
    .entries()) {
    const d = join(progressDirOf(resultsDir, 'seed002-selfsimilar'), part, 'runs', v.id);
    mkdirSync(d, { recursive: true });
    const start = Date.UTC(2026, 10, 27, 6, 0, 0) + Math.floor(i / labs) * 610_000 + (i % labs) * 300_000;
    writeFileSync(join(d, 'spec.json'), JSON.stringify(v.spec));
    writeFileSync(
      join(d, 'summary.json'),
      JSON.stringify({
        status: 'completed',
        verdict: 'valid',
        startedAt: new Date(start).toISOString(),
        finishedAt: new Date(start + 600_000).toISOString(),
        clock: { mode: 'dilated', guestS: 60, wallS: 590, dilation: 0.1 },
        flows: [],
        paths: [],
      }),
    );
  }
}

describe('presets not reproduced yet', () => {
  it('lists each unpublished preset with its runs kept and the wall time left at their pace', () => {
    const results = mkdtempSync(join(tmpdir(), 'lfnlab-pending-'));
    keepRuns(results);
    const pending = pendingPresets(presets, new Set(['seed003-ber']), results);
    expect(pending.map((p) => p.preset)).not.toContain('seed003-ber');
    expect(pending).toHaveLength(presets.filter((p) => p.meta.reproduce).length - 1);
    const kept = pending.find((p) => p.preset === 'seed002-selfsimilar');
    expect(kept).toMatchObject({ runs: 36, seconds: 60, repeat: 3, done: 2, paceMeasured: true });
    // 34 runs of 60 s at the kept runs' pace (60 lab s in 590 wall s: 0.1), each with its set-up.
    expect(kept?.wallLeftS).toBeGreaterThan(34 * 590);
    expect(kept?.wallLeftS).toBeLessThan(34 * 700);
    const untouched = pending.find((p) => p.preset === 'seed000-table4');
    expect(untouched).toMatchObject({ done: 0, paceMeasured: false, runs: 21, seconds: 120 });
  });

  it('expects the rest on as many labs at once as the kept runs lately ran on, and says so', () => {
    const results = mkdtempSync(join(tmpdir(), 'lfnlab-pending-'));
    keepRuns(results, { runs: 6, labs: 2 });
    const kept = pendingPresets(presets, new Set(), results).find((p) => p.preset === 'seed002-selfsimilar');
    expect(kept).toMatchObject({ done: 6, labs: 2 });
    // 30 runs at 0.1 lab s per wall s, two at a time.
    expect(kept?.wallLeftS).toBeGreaterThan((30 * 590) / 2);
    expect(kept?.wallLeftS).toBeLessThan((30 * 700) / 2);
    const md = renderResultsSummaryMarkdown([], kept ? [kept] : []);
    expect(md).toContain("at its kept runs' pace on 2 labs at once");
  });

  it('says how many are left in the summary header and lists them in a table of their own', () => {
    const results = mkdtempSync(join(tmpdir(), 'lfnlab-pending-'));
    keepRuns(results);
    const pending = pendingPresets(presets, new Set(), results);
    const md = renderResultsSummaryMarkdown([], pending);
    expect(md).toMatch(
      new RegExp(
        `0 presets published; .* ${pending.length} not reproduced yet \\(about [\\d.]+ h of lab wall time left on one lab, [\\d.]+ h on two at once\\)`,
      ),
    );
    expect(md).toContain('## Not reproduced yet');
    expect(md).toMatch(
      /\| seed002-selfsimilar \| Li \(UCL\) 2003 \(seed 002\) \| 1 \| 36 runs \(60 s × 3 repetitions per cell\) \| 2 of 36 \| ~[\d.]+ h at its kept runs' pace \|/,
    );
    expect(md).toMatch(
      /\| seed000-table4 \| .* \| 0 of 21 \| ~[\d.]+ (h|min) at the pace a dilated lab keeps at its rates, on one lab \|/,
    );
    const html = renderResultsSummaryHtml([], pending);
    expect(html).toContain('<h2>Not reproduced yet</h2>');
    expect(html).toContain('<code>scripts/reproduce-presets.sh PRESET</code>');
    // Nothing pending: neither the section nor the clause.
    expect(renderResultsSummaryMarkdown([], [])).not.toMatch(/not reproduced yet/i);
  });

  it('judges a reproduction under way provisionally on its kept runs only, and lists those verdicts apart', () => {
    const results = mkdtempSync(join(tmpdir(), 'lfnlab-pending-'));
    keepRuns(results, { runs: 4, plan: true });
    const pending = pendingPresets(presets, new Set(), results);
    const kept = pending.find((p) => p.preset === 'seed002-selfsimilar');
    // The 32 planned runs not run yet are not rows: only the 4 kept are judged.
    expect(kept?.provisional?.rows).toEqual({ total: 4, used: 4, excluded: 0 });
    expect(kept?.provisional?.findings.map((f) => f.verdict)).toEqual(['inconclusive']);
    expect(pending.find((p) => p.preset === 'seed000-table4')?.provisional).toBeNull();
    // Not asked to judge (the service judges once per count of kept runs, itself).
    const unjudged = pendingPresets(presets, new Set(), results, false).find(
      (p) => p.preset === 'seed002-selfsimilar',
    );
    expect(unjudged).toMatchObject({ done: 4, provisional: null });
    const md = renderResultsSummaryMarkdown([], pending);
    expect(md).toMatch(/\| 4 of 36 \| ~[\d.]+ h at its kept runs' pace \| 0 hold, 0 fail, 1 inconclusive \|/);
    expect(md).toMatch(/\| seed000-table4 \| .* \| none yet \|/);
    expect(md).toContain('### seed002-selfsimilar, provisionally');
    expect(md).toContain("Judged by the published comparison's tests on the 4 runs kept so far of 36.");
    expect(md).toMatch(/\| \*inconclusive\* \| .* \| .*; n = \d/);
    expect(md).not.toContain('### seed000-table4, provisionally');
    const html = renderResultsSummaryHtml([], pending);
    expect(html).toContain('<h3>seed002-selfsimilar, provisionally</h3>');
    expect(html).toContain('<span class="badge skip">inconclusive</span>');
  });
});
