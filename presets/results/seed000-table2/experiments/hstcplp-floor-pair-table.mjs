// Scores hstcplp-floor-pair, hstcplp-newest-pair and hstcplp-quickack-pair against their
// control, the reproduction's HSTCP-LP Caltech runs (floor 0, TSecr timing, delayed ACKs): Jain's
// index of the two flows as the preset reads it (whole-run goodputs), per window, with a 95 % interval (bootstrap ∪ jackknife t, bounded to
// [0.5, 1]), and each flow's goodput and mean smoothed RTT (faster flow first). Reads only kept
// records (summary and spec), so it runs on a fresh clone after `npm run build`:
//   node presets/results/seed000-table2/experiments/hstcplp-floor-pair-table.mjs
// Writes hstcplp-floor-pair-results.csv beside it and prints the answer's numbers.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mean } from '@lfnlab/metrics';
import { keptCompletedRuns } from '../../../../backend/dist/campaign/progress.js';
import { jainText, pairRow, writeResults } from './pairScore.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const sources = [
  join(here, 'hstcplp-floor-pair-progress', 'runs'), // the experiments
  join(here, 'hstcplp-newest-pair-progress', 'runs'),
  join(here, 'hstcplp-quickack-pair-progress', 'runs'),
  join(here, '..', 'progress', 'caltech', 'runs'), // the reproduction: its HSTCP-LP runs
];

const runs = [];
for (const kept of sources.flatMap(keptCompletedRuns)) {
  const { spec } = kept;
  if (spec.flows[0]?.stack !== 'hstcplp') continue;
  const { row, faster, slower } = pairRow(kept, {
    floorUs: spec.stackParams?.hstcplp?.min_threshold_us ?? 0,
    owdNewest: spec.stackParams?.hstcplp?.owd_newest ?? 0,
    quickack: spec.paths.main?.quickack === true ? 1 : 0,
  });
  runs.push({ ...row, fasterSrttMs: faster.rttMs.mean, slowerSrttMs: slower.rttMs.mean });
}

writeResults(join(here, 'hstcplp-floor-pair-results.csv'), runs);

const describe = (rs) => {
  if (rs.length === 0) return 'no runs';
  const avg = (k) => mean(rs.map((r) => r[k])).toFixed(1);
  return `${jainText(rs)}, flows ${avg('fasterMbps')} and ${avg('slowerMbps')} Mbit/s, srtt ${avg('fasterSrttMs')} and ${avg('slowerSrttMs')} ms, ${rs
    .map((r) => r.verdict)
    .join('/')}`;
};

for (const [floor, newest, quickack] of [
  [0, 0, 0],
  [2000, 0, 0],
  [2000, 1, 0],
  [2000, 0, 1],
]) {
  console.log(
    `\nmin_threshold_us ${floor}, owd_newest ${newest}, ${quickack ? 'quickack' : 'delayed ACKs'}${floor ? '' : ' (the reproduction)'}`,
  );
  const mine = runs.filter((r) => r.floorUs === floor && r.owdNewest === newest && r.quickack === quickack);
  for (const w of [0.51, 1.02, 2.05])
    console.log(`  window ${w} BDP ${describe(mine.filter((r) => r.window === w))}`);
  console.log(`  all           ${describe(mine)}`);
}
