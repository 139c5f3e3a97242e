// The preset page says each verdict in words (not colour alone), with its test and n, and still
// renders a comparison.json written before verdicts existed.
import { describe, expect, it } from 'vitest';
import type { PresetComparison } from '../presets/compare.js';
import { renderPresetComparison } from './presetReport.js';

const base: Omit<PresetComparison, 'findings'> = {
  preset: 'toy',
  paper: 'Toy (seed 000)',
  experiment: 'Three stacks.',
  finding: 'BIC is fastest.',
  scaling: 'Nothing is scaled.',
  rows: { total: 3, used: 3, excluded: 0 },
  cells: [],
  groups: null,
  summary: 'toy: of 2 findings, 1 hold, 0 do not, 1 inconclusive.',
};

describe('renderPresetComparison', () => {
  it('shows holds / fails / inconclusive with the test and n', () => {
    const c: PresetComparison = {
      ...base,
      findings: [
        {
          id: 'a',
          kind: 'threshold',
          text: 'x',
          ref: 'Table 1',
          verdict: 'holds',
          holds: true,
          sentence: 'CUBIC above 15.',
          test: { name: 'bootstrap 95 % CI of the mean against > 15', n: 5, nMax: 5, items: 1, measured: 1 },
        },
        {
          id: 'b',
          kind: 'ordering',
          text: 'y',
          ref: 'Table 2',
          verdict: 'inconclusive',
          holds: null,
          sentence: 'Stacks by goodput.',
          test: { name: 'Kendall τ-b', n: 1, nMax: 3, items: 3, measured: 3 },
        },
      ],
    };
    const html = renderPresetComparison(c);
    expect(html).toContain('<span class="badge pass">holds</span>');
    expect(html).toContain('<span class="badge skip">inconclusive</span>');
    expect(html).toContain('Test: bootstrap 95 % CI of the mean against &gt; 15; n = 5 runs per cell');
    expect(html).toContain('Test: Kendall τ-b; n = 1–3 runs per cell');
  });

  it('renders an older comparison.json that has only holds', () => {
    const old = {
      ...base,
      findings: [{ id: 'a', kind: 'threshold', text: 'x', ref: 'T', holds: false, sentence: 'Old.' }],
    } as unknown as PresetComparison;
    const html = renderPresetComparison(old);
    expect(html).toContain('<span class="badge fail">fails</span> Old.');
    expect(html).not.toContain('Test:');
  });

  it('shows the dimensionless groups, paper against ours, and what the ones not kept do', () => {
    const c: PresetComparison = {
      ...base,
      findings: [],
      groups: {
        rateFactor: 0.1606,
        rttFactor: 1,
        timeFactor: 0.25,
        at: { part: 'main', variant: 'fast', rateMbps: 75, rttMs: 70, mtu: 1500 },
        bdpRange: { min: 433.45, max: 433.45 },
        stacks: ['fast', 'scalable'],
        groups: [
          {
            id: 'fast.alpha',
            label: 'fast alpha / BDP',
            against: 'window',
            paper: 0.03705,
            ours: 0.03691,
            preserved: true,
            note: 'set to 16',
          },
          {
            id: 'scalable.ai_cnt',
            label: 'scalable ai_cnt / BDP',
            against: 'window',
            paper: 0.0371,
            ours: 0.2307,
            preserved: false,
          },
        ],
        caveats: [
          {
            groups: ['scalable.ai_cnt'],
            claims: ['order.with'],
            effect: 'Scalable grows like Reno for longer.',
          },
        ],
      },
    };
    const html = renderPresetComparison(c);
    expect(html).toContain('<h2>Scaling: dimensionless groups</h2>');
    expect(html).toMatch(
      /scalable ai_cnt \/ BDP<\/td><td[^>]*>0\.0371<\/td><td[^>]*>0\.231<\/td><td[^>]*>no/,
    );
    expect(html).toContain('(set to 16)');
    expect(html).toContain(
      '<strong>scalable.ai_cnt</strong> (findings order.with): Scalable grows like Reno for longer.',
    );
  });
});
