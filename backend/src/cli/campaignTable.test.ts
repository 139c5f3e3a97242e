// `lfnlab campaign table`: a committed results.csv or a campaign's results.json as cells with means
// and intervals; a wrong source is a plain error and exit code 2.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { captureConsole } from '../../test/support/consoleCapture.js';
import { fromCsv } from '../campaign/resultsCsv.js';
import { main } from './main.js';

const committed = new URL(
  '../../../presets/results/seed002-cbr/experiments/cbr-buffer-results.csv',
  import.meta.url,
).pathname;

let out: string[];
let err: string[];
beforeEach(() => {
  ({ out, err } = captureConsole());
});
afterEach(() => vi.restoreAllMocks());

describe('lfnlab campaign table', () => {
  it('gives each cell of a committed experiment its n, mean and t interval at three runs', async () => {
    expect(await main(['campaign', 'table', committed])).toBe(0);
    const text = out.join('\n');
    expect(text).toMatch(/scalable · CBR 10 %\s+3 \(3 valid\)\s+goodput_mbps_test\s+3\s+69.7 Mbit\/s/);
    expect(text).toMatch(/reno · CBR 50 %.*goodput_mbps_test.*t on 2 df/);
    expect(text.split('\n').filter((l) => l.includes('goodput_mbps_test'))).toHaveLength(6);
  });

  it('prints CSV with full precision, and reads a campaign directory through its results.json', async () => {
    expect(await main(['campaign', 'table', committed, '--csv'])).toBe(0);
    const [head, ...lines] = out.join('\n').trim().split('\n');
    expect(head).toBe(
      'variant,measure,unit,n,mean,sd,ci_low,ci_high,t_df,verdicts,invalid_left_out,unfinished',
    );
    expect(lines).toHaveLength(12);
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-table-'));
    writeFileSync(join(dir, 'results.json'), JSON.stringify(fromCsv(readFileSync(committed, 'utf8'))));
    out.length = 0;
    expect(await main(['campaign', 'table', dir, '--csv'])).toBe(0);
    expect(out.join('\n').trim().split('\n').slice(1)).toEqual(lines);
  });

  it('says what is wrong with the source, exit code 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-table-'));
    expect(await main(['campaign', 'table', dir])).toBe(2);
    expect(err.join('\n')).toContain('no results.json (run the campaign first)');
    expect(await main(['campaign', 'table', join(dir, 'none.csv')])).toBe(2);
    expect(err.join('\n')).toContain('none.csv: no such file or directory');
    writeFileSync(join(dir, 'x.csv'), 'a,b\n1,2\n');
    expect(await main(['campaign', 'table', join(dir, 'x.csv')])).toBe(2);
    expect(err.join('\n')).toContain('not a campaign results table');
  });
});
