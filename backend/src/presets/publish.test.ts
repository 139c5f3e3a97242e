// Publishing a preset's results and the summary over every published preset, from a hand-made
// campaign directory: what ran (runs, verdicts, lab clock, wall time from the records) and the
// findings' verdicts in words on the page and in Markdown.
import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  codeText,
  flaggedText,
  heldText,
  renderResultsSummaryHtml,
  renderResultsSummaryMarkdown,
  verdictCounts,
} from '../report/presetSummary.js';
import { comparePreset } from './compare.js';
import { loadPresets } from './load.js';
import { publishPreset, readPublished, regroupPublished, runsInfo } from './publish.js';

const preset = loadPresets().find((p) => p.name === 'seed003-responsiveness');
if (!preset) throw new Error('preset missing');

function run(
  dir: string,
  id: string,
  s: {
    status: string;
    verdict: string | null;
    clock: string;
    checks?: unknown[];
    lfnlab?: { version: string; commit: string | null; modified: boolean | null };
    rejudgedBy?: string;
    /** Each flow's largest limit. */
    limits?: (string | null)[];
  },
  wallS: number,
) {
  const d = join(dir, 'runs', id);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, 'spec.json'), '{}');
  if (s.lfnlab) writeFileSync(join(d, 'environment.json'), JSON.stringify({ lfnlab: s.lfnlab }));
  writeFileSync(
    join(d, 'summary.json'),
    JSON.stringify({
      status: s.status,
      verdict: s.verdict,
      clock: { mode: s.clock, guestS: 60, wallS: 80, dilation: 0.75 },
      fidelity: { checks: s.checks ?? [] },
      ...(s.limits
        ? {
            flows: s.limits.map((l, i) => ({
              name: `f${i}`,
              limitedBy: l === null ? null : { limitedBy: l, shares: {}, busyS: 30 },
            })),
          }
        : {}),
      ...(s.rejudgedBy
        ? {
            rejudged: [
              { at: '2026-11-28T00:00:00Z', by: s.rejudgedBy, previousVerdict: 'invalid', changed: [] },
            ],
          }
        : {}),
    }),
  );
  const t0 = 1_800_000_000;
  utimesSync(join(d, 'spec.json'), t0, t0);
  utimesSync(join(d, 'summary.json'), t0 + wallS, t0 + wallS);
}

describe('publishing a preset', () => {
  it('counts runs, verdicts and clocks, sums wall time from the records, and writes the summary', () => {
    const root = mkdtempSync(join(tmpdir(), 'lfnlab-publish-'));
    const dir = join(root, 'campaign');
    const part = join(dir, 'main');
    mkdirSync(part, { recursive: true });
    writeFileSync(join(part, 'campaign.json'), JSON.stringify({ variants: [1, 2, 3, 4] }));
    run(part, 'a', { status: 'completed', verdict: 'valid', clock: 'dilated' }, 100);
    run(part, 'b', { status: 'completed', verdict: 'suspect', clock: 'dilated' }, 90);
    run(part, 'c', { status: 'failed', verdict: null, clock: 'dilated' }, 5);
    // Two tries the lab could not carry, set aside by --retry-invalid: counted apart.
    mkdirSync(join(part, 'invalid', 'a~1'), { recursive: true });
    mkdirSync(join(part, 'invalid', 'b~1'));
    const info = runsInfo(preset, dir, { kind: 'reproduction', seconds: 60, repeat: 3 });
    expect(info.runs).toEqual({ planned: 4, completed: 2, valid: 1, suspect: 1, invalid: 0 });
    expect(info.invalidTries).toBe(2);
    expect(info.clock).toEqual({ dilated: 2 });
    expect(info.wallS).toBeCloseTo(190, 0);
    expect(info.labS).toBe(120);

    const c = comparePreset(preset, []);
    writeFileSync(join(dir, 'comparison.json'), JSON.stringify(c));
    writeFileSync(join(dir, 'comparison.html'), '<p>page</p>');
    const results = join(root, 'results');
    publishPreset(preset, dir, results, info);
    const all = readPublished(results);
    expect(all.map((p) => p.comparison.preset)).toEqual(['seed003-responsiveness']);
    expect(readFileSync(join(results, preset.name, 'comparison.html'), 'utf8')).toBe('<p>page</p>');
    // No rows: every finding is inconclusive, and the summary says so in words with n.
    expect(verdictCounts(all)).toEqual({ holds: 0, fails: 0, inconclusive: c.findings.length });
    const html = renderResultsSummaryHtml(all);
    expect(html).toContain('reproduction length: 60 s runs × 3 repetitions');
    expect(html).toContain(
      '2 of 4 runs (1 valid, 1 suspect, 0 invalid); 2 more tries the lab could not carry, run again',
    );
    expect(html).toContain('lab clock: dilated 2');
    expect(html).toContain('n = 0');
    const md = renderResultsSummaryMarkdown(all);
    expect(md).toContain(`| **inconclusive** | ${c.findings[0]?.text.split('|')[0]}`);
    expect(md).toContain('wall time 3 min');
    // Where the meta asked for more repetitions of some cells, the length says so.
    const more = { ...info, length: { ...info.length, mostRepeat: 10 } };
    expect(renderResultsSummaryMarkdown([{ ...(all[0] as (typeof all)[number]), runs: more }])).toContain(
      'reproduction length: 60 s runs × 3 repetitions (up to 10 where a finding needed more)',
    );

    // An inconclusive finding's projection is priced at this preset's pace: 95 s a run on one lab.
    const first = all[0] as (typeof all)[number];
    const f = c.findings[0] as (typeof c.findings)[number];
    const test = { ...f.test, repetitionsToDecide: 15, runsToDecide: 144, variants: 12, runs: 36 };
    const priced = { ...first, comparison: { ...c, findings: [{ ...f, test }] } };
    expect(renderResultsSummaryMarkdown([priced])).toContain(
      'n = 0 (12 variants, 36 runs); about 144 more runs would decide it (~3.8 h on one lab)',
    );

    // A targeted experiment's answer sits beside its finding; a malformed file names the field.
    const f0 = c.findings[0]?.id as string;
    writeFileSync(
      join(results, preset.name, 'explanations.yaml'),
      `- finding: ${f0}\n  hypothesis: the 5 % buffer is too shallow\n  experiment: vary buffer 0.05bdp, 1bdp\n  answer: the same order with 1 BDP, so not the buffer\n`,
    );
    const [withAnswer] = readPublished(results);
    expect(renderResultsSummaryHtml(withAnswer ? [withAnswer] : [])).toContain(
      '<strong>Answer:</strong> the same order with 1 BDP, so not the buffer',
    );
    writeFileSync(join(results, preset.name, 'explanations.yaml'), `- finding: ${f0}\n  hypothesis: x\n`);
    expect(() => readPublished(results)).toThrow(/explanations.yaml: 0.hypothesis: .*; 0.experiment/);
  });

  it('says why runs were not valid: each kind of check that warned or failed, its runs and the range measured', () => {
    const root = mkdtempSync(join(tmpdir(), 'lfnlab-publish-'));
    const part = join(root, 'main');
    mkdirSync(part, { recursive: true });
    writeFileSync(join(part, 'campaign.json'), JSON.stringify({ variants: [1, 2, 3] }));
    const spacing = (direction: string, measured: number, status: string) => ({
      id: `packet-spacing:main:${direction}`,
      status,
      measured,
      expected: '>= 90 % of busy bottleneck dequeue gaps within 10 % of one frame time',
      message: '',
    });
    const jitter = {
      id: 'delay-jitter:main:forward',
      status: 'warn',
      measured: 0.45,
      expected: '<= 0.25 ms',
      message: '',
    };
    // Both directions warned in one run: one run, not two.
    run(
      part,
      'a',
      {
        status: 'completed',
        verdict: 'suspect',
        clock: 'dilated',
        checks: [spacing('forward', 0.86, 'warn'), spacing('reverse', 0.8, 'warn'), jitter],
      },
      60,
    );
    run(
      part,
      'b',
      {
        status: 'completed',
        verdict: 'invalid',
        clock: 'dilated',
        checks: [spacing('forward', 0.5, 'fail')],
      },
      60,
    );
    run(
      part,
      'c',
      { status: 'completed', verdict: 'valid', clock: 'dilated', checks: [spacing('forward', 0.95, 'pass')] },
      60,
    );
    const info = runsInfo(preset, root, { kind: 'reproduction', seconds: 60, repeat: 3 });
    expect(info.flagged).toEqual([
      {
        check: 'packet-spacing',
        expected: spacing('forward', 0, 'warn').expected,
        warn: 1,
        fail: 1,
        min: 0.5,
        max: 0.86,
      },
      { check: 'delay-jitter', expected: '<= 0.25 ms', warn: 1, fail: 0, min: 0.45, max: 0.45 },
    ]);
    expect(flaggedText(info)).toBe(
      'packet spacing in 2 runs (1 failed, 1 warned) (measured 50 % to 86 %; expected >= 90 % of busy bottleneck dequeue gaps within 10 % of one frame time); delay jitter in 1 run (measured 0.45 ms; expected <= 0.25 ms)',
    );
    const cross = {
      check: 'cross-traffic',
      expected: 'the pattern',
      warn: 2,
      fail: 0,
      min: 0.9862,
      max: 0.99,
    };
    expect(flaggedText({ ...info, flagged: [cross] })).toBe(
      'cross traffic in 2 runs (measured 98.6 % to 99 %; expected the pattern)',
    );
    // Every run valid, or a runs.json from before the tally: nothing to say.
    expect(flaggedText({ ...info, flagged: [] })).toBe('');
    expect(flaggedText({ ...info, flagged: undefined })).toBe('');
  });

  it('says which flows something other than the network held back, per part', () => {
    const root = mkdtempSync(join(tmpdir(), 'lfnlab-publish-'));
    const part = join(root, 'main');
    const ok = { status: 'completed', verdict: 'valid', clock: 'dilated' };
    run(part, 'a', { ...ok, limits: ['receiver-window', 'receiver-window'] }, 60);
    run(part, 'b', { ...ok, limits: ['network', 'sender'] }, 60);
    // Not counted: a flow recorded before limits were measured, and a run that did not complete.
    run(part, 'c', { ...ok, limits: ['network', null] }, 60);
    run(part, 'd', { ...ok, status: 'failed', limits: ['sender', 'sender'] }, 60);
    const info = runsInfo(preset, root, { kind: 'reproduction', seconds: 60, repeat: 3 });
    expect(info.limits).toEqual({ main: { 'receiver-window': 2, network: 2, sender: 1 } });
    expect(heldText(info)).toBe('2 of 5 flows by their window, 1 of 5 flows by the lab (sender)');
    // Several parts are named; a part whose flows were all network-limited says nothing.
    expect(
      heldText({
        ...info,
        limits: { caltech: { network: 126 }, manchester: { network: 40, 'receiver-window': 86 } },
      }),
    ).toBe('manchester: 86 of 126 flows by their window');
    expect(heldText({ ...info, limits: { main: { network: 4 } } })).toBe('');
    expect(heldText({ ...info, limits: undefined })).toBe('');
  });

  it('says which lfnlab made the runs and which judged the verdicts they carry', () => {
    const root = mkdtempSync(join(tmpdir(), 'lfnlab-publish-'));
    const part = join(root, 'main');
    mkdirSync(part, { recursive: true });
    writeFileSync(join(part, 'campaign.json'), JSON.stringify({ variants: [1, 2, 3] }));
    const made = { version: '0.1.0', commit: '05c13796ec3b', modified: false };
    run(part, 'a', { status: 'completed', verdict: 'valid', clock: 'dilated', lfnlab: made }, 60);
    run(
      part,
      'b',
      {
        status: 'completed',
        verdict: 'suspect',
        clock: 'dilated',
        lfnlab: made,
        rejudgedBy: 'lfnlab 0.1.0 (ac6a57726fc6)',
      },
      60,
    );
    // A run from before runs noted their lfnlab.
    run(part, 'c', { status: 'completed', verdict: 'valid', clock: 'dilated' }, 60);
    const info = runsInfo(preset, root, { kind: 'reproduction', seconds: 60, repeat: 3 });
    expect(info.code).toEqual({
      ranBy: { 'lfnlab 0.1.0 (05c13796ec3b)': 2, 'lfnlab (version not recorded)': 1 },
      judgedBy: {
        'lfnlab 0.1.0 (05c13796ec3b)': 1,
        'lfnlab 0.1.0 (ac6a57726fc6)': 1,
        'lfnlab (version not recorded)': 1,
      },
    });
    expect(codeText(info)).toBe(
      'run by lfnlab 0.1.0 (05c13796ec3b) ×2, lfnlab (version not recorded) ×1; verdicts as judged by lfnlab 0.1.0 (05c13796ec3b) ×1, lfnlab 0.1.0 (ac6a57726fc6) ×1, lfnlab (version not recorded) ×1',
    );
    expect(codeText({ ...info, code: undefined })).toBe('');
  });

  it("recomputes a published comparison's groups at the length its runs had, leaving its findings", () => {
    const ber = loadPresets().find((p) => p.name === 'seed003-ber');
    if (!ber) throw new Error('seed003-ber missing');
    const out = join(mkdtempSync(join(tmpdir(), 'lfnlab-regroup-')), ber.name);
    mkdirSync(out, { recursive: true });
    // Published before the groups followed the run length: the full-length groups beside 60 s runs.
    const old = comparePreset(ber, [], null);
    writeFileSync(join(out, 'comparison.json'), JSON.stringify(old));
    const info = runsInfo(ber, out, { kind: 'reproduction', seconds: 60, repeat: 3 });
    writeFileSync(join(out, 'runs.json'), JSON.stringify(info));
    const greedy = (c: typeof old | null) => c?.groups?.groups.find((g) => g.id === 'grid.greedy_ms/run');
    expect(greedy(old)?.preserved).toBe(true);
    const next = regroupPublished(ber, out);
    expect(next?.groups?.at.runS).toBe(60);
    expect(greedy(next)?.preserved).toBe(false);
    expect(next?.findings).toEqual(old.findings);
    expect(JSON.parse(readFileSync(join(out, 'comparison.json'), 'utf8')).groups.at.runS).toBe(60);
    expect(regroupPublished(ber, out)).toBeNull();
  });

  it('refuses to publish what was never compared', () => {
    const root = mkdtempSync(join(tmpdir(), 'lfnlab-publish-'));
    const info = runsInfo(preset, root, { kind: 'ci', seconds: 5, repeat: 1 });
    expect(() => publishPreset(preset, root, join(root, 'results'), info)).toThrow(
      /comparison.json does not exist/,
    );
  });
});
