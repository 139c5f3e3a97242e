// `lfnlab preset summary`: rewrites the results summary without publishing anything, and the
// presets not reproduced yet are in it.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { captureConsole } from '../../test/support/consoleCapture.js';
import { loadPresets } from '../presets/load.js';
import { main } from './main.js';

let out: string[];
let err: string[];
beforeEach(() => {
  ({ out, err } = captureConsole());
});
afterEach(() => vi.restoreAllMocks());

describe('lfnlab preset summary', () => {
  // Every preset's campaigns are expanded and costed: 1.7 s on an idle host, 7 s beside two busy labs.
  it('writes the page and the Markdown into a new results directory, every preset listed as not reproduced', {
    timeout: 30_000,
  }, async () => {
    const results = join(mkdtempSync(join(tmpdir(), 'lfnlab-summary-')), 'results');
    expect(await main(['preset', 'summary', '--results', results])).toBe(0);
    expect(out.join('\n')).toContain(`summary: ${join(results, 'index.html')}`);
    expect(existsSync(join(results, 'index.html'))).toBe(true);
    const md = readFileSync(join(results, 'README.md'), 'utf8');
    const withLength = loadPresets().filter((p) => p.meta.reproduce);
    expect(md).toContain(
      `0 presets published; findings: 0 hold, 0 fail, 0 inconclusive. ${withLength.length} not reproduced yet`,
    );
    for (const p of withLength) expect(md).toContain(`| ${p.name} |`);
  });

  it('refuses a preset name: it rewrites the summary of all of them', async () => {
    expect(await main(['preset', 'summary', 'seed003-ber'])).toBe(64); // EX_USAGE, as every usage error
    expect(err.join('\n')).toMatch(/'preset summary' takes no preset name \(got 'seed003-ber'\)/);
  });
});
