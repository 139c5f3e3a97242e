// seed001-sst's findings judged as the preset judges them, with the reproduction's 18 H-TCP runs
// replaced by htcpdl-sst's (H-TCP with Delta_L and alpha's time unit at 161 ms, the group kept).
// Each htcpdl run takes the place of the H-TCP run of the same flow count and repetition: its
// summary (the measured flows) goes in, the spec stays the reproduction's, so the claims' `where`
// still finds it as H-TCP. Reads only kept records (no lab), so it runs on a fresh clone after
// `npm run build`:
//   node presets/results/seed001-sst/experiments/overall-with-htcpdl.mjs
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readRunSummary } from '../../../../backend/dist/report/load.js';
import { rowOf } from '../../../../backend/dist/campaign/runCampaign.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', '..', '..', '..', 'backend', 'bin', 'lfnlab.js');
const reproduction = join(here, '..', 'progress', 'main');
const htcpdlRuns = join(here, 'htcpdl-sst-progress', 'runs');

const tmp = mkdtempSync(join(tmpdir(), 'sst-htcpdl-'));
try {
  const main = join(tmp, 'main');
  cpSync(reproduction, main, { recursive: true });
  const reproIds = readdirSync(join(main, 'runs'));
  let swapped = 0;
  for (const id of readdirSync(htcpdlRuns)) {
    // htcpdl-sst ids: NNN-COUNT-rR; the reproduction's H-TCP ids: NNN-htcp-COUNT-rR.
    const m = /^\d+-(\d+)-r(\d+)$/.exec(id);
    const summary = join(htcpdlRuns, id, 'summary.json');
    if (!m || !existsSync(summary)) continue;
    const target = reproIds.find((r) => r.endsWith(`-htcp-${m[1]}-r${m[2]}`));
    if (!target) throw new Error(`no reproduction H-TCP run for ${id}`);
    cpSync(summary, join(main, 'runs', target, 'summary.json'));
    swapped++;
  }
  // The rows compare reads, as the campaign writes them at its end.
  const { variants } = JSON.parse(readFileSync(join(main, 'campaign.json'), 'utf8'));
  const rows = variants.map((v) => rowOf(v, readRunSummary(join(main, 'runs', v.id))));
  writeFileSync(join(main, 'results.json'), JSON.stringify(rows));
  console.log(`seed001-sst with ${swapped} of its 18 H-TCP runs replaced by htcpdl-sst's (Delta_L 161 ms):`);
  const out = execFileSync(process.execPath, [cli, 'preset', 'compare', 'seed001-sst', '--reproduce', '--out', tmp], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const lines = out.split('\n');
  const at = lines.findIndex((l) => /^\[(holds|fails|inconclusive)\]/.test(l));
  console.log(lines.slice(Math.max(at, 0)).join('\n'));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
