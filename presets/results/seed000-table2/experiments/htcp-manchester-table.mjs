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
import { jainText, pairRow, writeResults } from './pairScore.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const sources = [
  join(here, 'htcp-manchester-buffer-progress', 'runs'), // the experiment
  join(here, '..', 'progress', 'manchester', 'runs'), // the reproduction: its H-TCP runs
];

const runs = [];
for (const kept of sources.flatMap(keptCompletedRuns)) {
  const { summary, spec } = kept;
  if (spec.flows[0]?.stack !== 'htcp') continue;
  const held = summary.flows.map((f) => f.limitedBy?.limitedBy ?? 'unknown');
  const { row } = pairRow(kept, { bufferBdp: spec.paths.main?.buffer?.bdp });
  runs.push({
    ...row,
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
