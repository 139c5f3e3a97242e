import { bootstrapCi, fastMean } from '@lfnlab/metrics';
import { describe, expect, it } from 'vitest';
import { cellLabel, cellMeasure, cellsOf } from './cellTable.js';
import type { CampaignRow } from './runCampaign.js';

const run = (
  stack: string,
  rep: number,
  goodput: number,
  verdict: CampaignRow['verdict'] = 'valid',
): CampaignRow => ({
  id: `${stack}-r${rep}`,
  label: `${stack} · 100 Mbit/s · rep ${rep}`,
  repetition: rep,
  params: { 'flows[0].stack': stack },
  status: 'completed',
  verdict,
  goodputMbps: { test: goodput },
  jainForward: null,
  utilisationForward: goodput / 100,
});

describe('cellsOf', () => {
  it('gathers repetitions into one cell per setting, labelled without the repetition, in label order', () => {
    const cells = cellsOf([run('reno', 1, 47), run('cubic', 1, 60), run('reno', 2, 48), run('reno', 3, 46)]);
    expect(cells.map((c) => [c.label, c.measures.goodput_mbps_test?.n])).toEqual([
      ['cubic · 100 Mbit/s', 1],
      ['reno · 100 Mbit/s', 3],
    ]);
    expect(cells[1]?.measures.goodput_mbps_test?.mean).toBeCloseTo(47, 12);
    expect(cells[1]?.measures.goodput_mbps_test?.sd).toBeCloseTo(1, 12);
  });

  it('leaves invalid runs out and counts them, and counts runs that did not finish', () => {
    const failed: CampaignRow = { ...run('reno', 4, 0), status: 'failed', verdict: null };
    const [cell] = cellsOf([
      run('reno', 1, 47),
      run('reno', 2, 48, 'suspect'),
      run('reno', 3, 5, 'invalid'),
      failed,
    ]);
    expect(cell?.verdicts).toEqual({ valid: 1, suspect: 1 });
    expect(cell?.left).toEqual({ invalid: 1, unfinished: 1 });
    expect(cell?.measures.goodput_mbps_test?.mean).toBeCloseTo(47.5, 12);
    const [all] = cellsOf([run('reno', 1, 47), run('reno', 3, 5, 'invalid')], { withInvalid: true });
    expect(all?.measures.goodput_mbps_test?.n).toBe(2);
  });

  it('gives a measure that no run of the cell carried no entry', () => {
    const [cell] = cellsOf([{ ...run('reno', 1, 47), goodputMbps: { test: 47, rev: null } }]);
    expect(Object.keys(cell?.measures ?? {})).toEqual(['utilisation_forward', 'goodput_mbps_test']);
  });

  it('names a base-spec campaign that only repeats', () => {
    expect(cellLabel({ ...run('reno', 2, 1), label: 'rep 2' })).toBe('base spec');
  });

  it('labels the cells of a table written before labels by the values their runs vary', () => {
    const unlabelled = (stack: string, rep: number, count: number): CampaignRow => {
      const { label: _, ...r } = run(stack, rep, 10);
      return { ...r, params: { 'flows[0].stack': stack, 'flows[0].count': count } };
    };
    const cells = cellsOf([unlabelled('reno', 1, 2), unlabelled('reno', 2, 2), unlabelled('reno', 1, 5)]);
    expect(cells.map((c) => c.label)).toEqual(['2 flows', '5 flows']);
  });
});

describe('cellMeasure', () => {
  it('at three runs is wider than the bootstrap alone: the t interval on 2 df', () => {
    const xs = [69.4, 69.7, 70.1];
    const m = cellMeasure(xs, 'cell', 'goodput_mbps_test');
    const boot = bootstrapCi([xs], (g) => fastMean(g[0] as number[]), {});
    // t(0.975, 2) = 4.303; the jackknife error of a mean is s/√n.
    const half = (4.303 * 0.3512) / Math.sqrt(3);
    expect(m.ci?.low).toBeCloseTo(69.733 - half, 2);
    expect(m.ci?.high).toBeCloseTo(69.733 + half, 2);
    expect(m.ci?.t?.df).toBe(2);
    expect((m.ci?.high ?? 0) - (m.ci?.low ?? 0)).toBeGreaterThan(2 * ((boot?.high ?? 0) - (boot?.low ?? 0)));
  });

  it('gives one run no interval, and keeps a share of the link at or above 0', () => {
    expect(cellMeasure([0.5], 'c', 'utilisation_forward').ci).toBeNull();
    expect(cellMeasure([0.001, 0.002, 0.09], 'c', 'utilisation_forward').ci?.low).toBeGreaterThanOrEqual(0);
  });

  it('reprints alike: the same cell and measure give the same interval', () => {
    const xs = [1, 2, 4, 8, 3];
    expect(cellMeasure(xs, 'a', 'x')).toEqual(cellMeasure(xs, 'a', 'x'));
  });
});
