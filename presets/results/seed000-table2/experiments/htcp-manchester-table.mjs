// Scores htcp-manchester-buffer (two H-TCP flows on the Manchester path with a 0.2 BDP buffer)
// against its control, the reproduction's H-TCP Manchester runs (1 BDP): Jain's index of the two
// flows as the preset reads it (whole-run goodputs), per window, with a 95 % interval (bootstrap ∪
// jackknife t, bounded to [0.5, 1]), each flow's goodput, the retransmits and what held the flows
// back. Reads only kept records (summary and spec), so it runs on a fresh clone after `npm run build`:
//   node presets/results/seed000-table2/experiments/htcp-manchester-table.mjs
// Writes htcp-manchester-results.csv beside it and prints the answer's numbers.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mean } from '@lfnlab/metrics';
import { keptCompletedRuns } from '../../../../backend/dist/campaign/progress.js';
import { jainText, writeResults } from './pairScore.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const sources = [
  join(here, 'htcp-manchester-buffer-progress', 'runs'), // the experiment
  join(here, '..', 'progress', 'manchester', 'runs'), // the reproduction: its H-TCP runs
];

const runs = [];
for (const { id, summary, spec } of sources.flatMap(keptCompletedRuns)) {
  if (spec.flows[0]?.stack !== 'htcp') continue;
  const [a, b] = [...summary.flows].sort((x, y) => y.goodputMbps.wholeRun - x.goodputMbps.wholeRun);
  const held = summary.flows.map((f) => f.limitedBy?.limitedBy ?? 'unknown');
  runs.push({
    id,
    bufferBdp: spec.paths.main?.buffer?.bdp,
    window: spec.flows[0].window?.bdp, // in BDPs
    seed: summary.seed,
    verdict: typeof summary.verdict === 'string' ? summary.verdict : summary.verdict?.verdict,
    jain: summary.paths[0].jain.forward,
    fasterMbps: a.goodputMbps.wholeRun,
    slowerMbps: b.goodputMbps.wholeRun,
    retransmits: summary.flows.reduce((s, f) => s + (f.retransmits ?? 0), 0),
    heldBy: [...new Set(held)].join('+'),
  });
}

writeResults(join(here, 'htcp-manchester-results.csv'), runs);

const describe = (rs) => {
  if (rs.length === 0) return 'no runs';
  const avg = (k) => mean(rs.map((r) => r[k])).toFixed(1);
  return `${jainText(rs)}, flows ${avg('fasterMbps')} and ${avg('slowerMbps')} Mbit/s, retransmits ${rs
    .map((r) => r.retransmits)
    .join(', ')}, held by ${rs.map((r) => r.heldBy).join(', ')}, ${rs.map((r) => r.verdict).join('/')}`;
};

for (const buffer of [1, 0.2]) {
  console.log(`\nbuffer ${buffer} BDP${buffer === 1 ? ' (the reproduction)' : ''}`);
  const mine = runs.filter((r) => r.bufferBdp === buffer);
  for (const w of [0.8, 1.2]) console.log(`  window ${w} BDP ${describe(mine.filter((r) => r.window === w))}`);
}
