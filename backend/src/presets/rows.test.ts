import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasPresetRows, readPresetRows } from './rows.js';

const variant = (id: string, stack: string) => ({
  id,
  label: `${stack} · rep 1`,
  params: { 'flows[0].stack': stack },
  repetition: 1,
  spec: {},
});

const summary = (goodput: number) => ({
  status: 'completed',
  verdict: 'valid',
  flows: [{ name: 'test', goodputMbps: { wholeRun: goodput } }],
  paths: [{ name: 'main', jain: { forward: null }, utilisation: { forward: goodput / 100 } }],
});

describe('readPresetRows', () => {
  it("reads a campaign still running from its plan and the runs done so far, not a sitting's stale results.json", () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-rows-'));
    writeFileSync(
      join(dir, 'campaign.json'),
      JSON.stringify({
        campaign: {},
        variants: [variant('001-reno-r1', 'reno'), variant('002-cubic-r1', 'cubic')],
      }),
    );
    // Written when an earlier sitting ended, before either run finished.
    writeFileSync(join(dir, 'results.json'), '[]');
    mkdirSync(join(dir, 'runs', '001-reno-r1'), { recursive: true });
    writeFileSync(join(dir, 'runs', '001-reno-r1', 'summary.json'), JSON.stringify(summary(91.5)));
    const rows = readPresetRows(dir, 'main');
    expect(
      rows.map((r) => [r.id, r.part, r.status, r.utilisationForward, r.goodputMbps.test ?? null]),
    ).toEqual([
      ['001-reno-r1', 'main', 'completed', 0.915, 91.5],
      ['002-cubic-r1', 'main', 'missing', null, null],
    ]);
    expect(rows[0]?.summary?.flows[0]?.goodputMbps.wholeRun).toBe(91.5);
    expect(rows[0]?.params).toEqual({ 'flows[0].stack': 'reno' });
  });

  it('reads an older directory without a plan from its results.json, and says when there is nothing to read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-rows-'));
    expect(hasPresetRows(dir)).toBe(false);
    const row = {
      id: '001-reno-r1',
      label: 'reno · rep 1',
      repetition: 1,
      params: {},
      status: 'completed',
      verdict: 'valid',
      goodputMbps: { test: 50 },
      jainForward: null,
      utilisationForward: 0.5,
    };
    writeFileSync(join(dir, 'results.json'), JSON.stringify([row]));
    expect(hasPresetRows(dir)).toBe(true);
    expect(readPresetRows(dir).map((r) => [r.id, r.status, r.summary])).toEqual([
      ['001-reno-r1', 'completed', null],
    ]);
  });
});
