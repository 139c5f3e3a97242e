import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromCsv, toCsv } from './resultsCsv.js';
import type { CampaignRow } from './runCampaign.js';

const row = (over: Partial<CampaignRow>): CampaignRow => ({
  id: '001-reno-r1',
  label: 'reno · CBR 10 % · rep 1',
  repetition: 1,
  params: { 'flows[0].stack': 'reno', 'paths.main.cross': [{ pattern: 'cbr', rate: '10%' }] },
  status: 'completed',
  verdict: 'valid',
  goodputMbps: { test: 47.1, 'n-1': null },
  jainForward: null,
  utilisationForward: 0.471,
  ...over,
});

describe('results.csv read back', () => {
  it('gives back the rows toCsv wrote: quoted JSON values, empty measures, labels with commas', () => {
    const rows = [
      row({}),
      row({
        id: '002-scalable-r2',
        label: 'scalable, tuned · rep 2',
        repetition: 2,
        params: { 'flows[0].stack': 'scalable', 'paths.main.cross': [{ pattern: 'cbr', rate: '50%' }] },
        verdict: 'suspect',
        goodputMbps: { test: 45.5, 'n-1': 3.25 },
        jainForward: 0.93,
      }),
      row({
        id: '003-x-r1',
        status: 'failed',
        verdict: null,
        goodputMbps: { test: null, 'n-1': null },
        utilisationForward: null,
      }),
    ];
    expect(fromCsv(toCsv(rows))).toEqual(rows);
  });

  it('reads a table without the label column, as written before labels', () => {
    const text =
      'id,repetition,flows[0].count,status,verdict,jain_forward,utilisation_forward,goodput_mbps_n\n001-1-r3,3,1,completed,valid,,0.649,12.99\n';
    expect(fromCsv(text)).toEqual([
      {
        id: '001-1-r3',
        repetition: 3,
        params: { 'flows[0].count': 1 },
        status: 'completed',
        verdict: 'valid',
        goodputMbps: { n: 12.99 },
        jainForward: null,
        utilisationForward: 0.649,
      },
    ]);
  });

  it('reads a table saved with CRLF line ends as the same rows', () => {
    const text = toCsv([row({})]);
    expect(fromCsv(text.replace(/\n/g, '\r\n'))).toEqual(fromCsv(text));
  });

  it('refuses a CSV that is not a campaign table, naming the missing columns', () => {
    expect(() => fromCsv('a,b\n1,2\n')).toThrow(/no column id, repetition, status, verdict/);
  });

  it('reads every committed experiment table', () => {
    const text = readFileSync(
      new URL('../../../presets/results/seed002-cbr/experiments/cbr-buffer-results.csv', import.meta.url),
      'utf8',
    );
    const rows = fromCsv(text);
    expect(rows).toHaveLength(18);
    expect(new Set(rows.map((r) => JSON.stringify(r.params['paths.main.cross'])))).toEqual(
      new Set(['[{"pattern":"cbr","rate":"10%"}]', '[{"pattern":"cbr","rate":"50%"}]']),
    );
    expect(rows.every((r) => typeof r.goodputMbps.test === 'number')).toBe(true);
  });
});
