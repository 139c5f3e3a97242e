// Scores the buffer-ufl experiment against its control, the reproduction's UFL runs (1 BDP): each
// stack's asymmetry against each partner at both buffers, each stack's UFL average (HSTCP-LP left
// out as a partner, as the preset does on UFL) with its sign beside the paper's UFL row, and the
// change in each average from 1 BDP to 0.2 BDP with a 95 % interval (bootstrap ∪ jackknife t), and the finding's
// three-path averages with UFL read at each buffer (Caltech and Manchester from the reproduction).
// Reads only kept records, so it runs on a fresh clone after `npm run build`:
//   node presets/results/seed000-table3/experiments/buffer-ufl-table.mjs
// Writes buffer-ufl-results.csv beside it.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { smallSampleCi } from '@lfnlab/metrics';
import {
  EXCLUDED,
  f2,
  LABELS,
  mean,
  PAPER_AVG,
  pairRows,
  paperRow,
  printAverages,
  printMatrix,
  STACKS,
  writeCsv,
} from './pairs.mjs';

const here = dirname(fileURLToPath(import.meta.url));
// Table 3's UFL row; HSTCP-LP's 0 is left unjudged (the paper leaves it out of the others' UFL
// averages and gives no pairs for it).
const PAPER_UFL = paperRow('ufl').map((v, i) => (EXCLUDED.ufl.includes(STACKS[i]) ? null : v));

const rows = [
  ...pairRows(join(here, '..', 'progress', 'ufl', 'runs'), { buffer: '1bdp' }),
  ...pairRows(join(here, 'buffer-ufl-progress', 'runs'), { buffer: '0.2bdp' }),
];
writeCsv(join(here, 'buffer-ufl-results.csv'), rows, ['buffer']);
const out = (r) => r.partner === 'hstcplp';
for (const buffer of ['1bdp', '0.2bdp']) {
  const mine = rows.filter((r) => r.buffer === buffer);
  printMatrix(`UFL, buffer ${buffer}`, mine);
  printAverages(`UFL averages, buffer ${buffer}`, mine, out, PAPER_UFL);
}

console.log('\nchange in each UFL average, 0.2 BDP minus 1 BDP (95 % interval (bootstrap ∪ jackknife t), runs resampled per buffer)');
for (const stack of STACKS) {
  const at = (buffer) =>
    rows.filter((r) => r.buffer === buffer && r.stack === stack && !out(r)).map((r) => r.asymmetry);
  const [small, big] = [at('0.2bdp'), at('1bdp')];
  if (small.length === 0 || big.length === 0) continue;
  const ci = smallSampleCi([small, big], (g) => mean(g[0]) - mean(g[1]));
  const goodput = (buffer) =>
    mean(rows.filter((r) => r.buffer === buffer && r.stack === stack && !out(r)).map((r) => r.mbps)).toFixed(1);
  console.log(
    `  ${LABELS[stack].padEnd(9)} ${f2(mean(small) - mean(big))} (${ci ? `${f2(ci.low)} to ${f2(ci.high)}` : 'no interval'}); goodput ${goodput('1bdp')} -> ${goodput('0.2bdp')} Mbit/s`,
  );
}

// The finding itself: the three-path averages with UFL at each buffer.
const others = ['caltech', 'manchester'].flatMap((path) =>
  pairRows(join(here, '..', 'progress', path, 'runs'), { path, buffer: '1bdp' }),
);
for (const buffer of ['1bdp', '0.2bdp']) {
  const ufl = rows.filter((r) => r.buffer === buffer).map((r) => ({ ...r, path: 'ufl' }));
  printAverages(
    `three-path averages (signs.avg), UFL at ${buffer}`,
    [...others, ...ufl],
    (r) => EXCLUDED[r.path].includes(r.partner),
    PAPER_AVG,
  );
}
