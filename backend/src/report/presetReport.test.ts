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
});
