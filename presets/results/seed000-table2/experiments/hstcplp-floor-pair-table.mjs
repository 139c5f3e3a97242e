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
import { jainText, writeResults } from './pairScore.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const sources = [
  join(here, 'hstcplp-floor-pair-progress', 'runs'), // the experiments
  join(here, 'hstcplp-newest-pair-progress', 'runs'),
  join(here, 'hstcplp-quickack-pair-progress', 'runs'),
  join(here, '..', 'progress', 'caltech', 'runs'), // the reproduction: its HSTCP-LP runs
];

const runs = [];
for (const { id, summary, spec } of sources.flatMap(keptCompletedRuns)) {
  if (spec.flows[0]?.stack !== 'hstcplp') continue;
  const [a, b] = [...summary.flows].sort((x, y) => y.goodputMbps.wholeRun - x.goodputMbps.wholeRun);
  runs.push({
    id,
    floorUs: spec.stackParams?.hstcplp?.min_threshold_us ?? 0,
    owdNewest: spec.stackParams?.hstcplp?.owd_newest ?? 0,
    quickack: spec.paths.main?.quickack === true ? 1 : 0,
    window: spec.flows[0].window?.bdp, // in BDPs
    seed: summary.seed,
    verdict: typeof summary.verdict === 'string' ? summary.verdict : summary.verdict?.verdict,
    jain: summary.paths[0].jain.forward,
    fasterMbps: a.goodputMbps.wholeRun,
    slowerMbps: b.goodputMbps.wholeRun,
    fasterSrttMs: a.rttMs.mean,
    slowerSrttMs: b.rttMs.mean,
  });
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
