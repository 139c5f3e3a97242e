// Where each stack's Table 3 average comes from: the reproduction's asymmetry of every stack against
// every partner, per path, then each stack's average over the three paths with the preset's
// exclusions (P-TCP on Caltech, HSTCP-LP on UFL and Manchester), and again with the two
// delay-sensitive stacks (FAST, HSTCP-LP) also left out as partners, with the signs the finding
// reads beside the paper's. Reads only kept records, so it runs on a fresh clone after
// `npm run build`:
//   node presets/results/seed000-table3/experiments/pairs-table.mjs
// Writes reproduction-pairs.csv beside it.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXCLUDED, PAPER_AVG, pairRows, printAverages, printMatrix, writeCsv } from './pairs.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const PATHS = ['caltech', 'ufl', 'manchester'];

const rows = PATHS.flatMap((path) => pairRows(join(here, '..', 'progress', path, 'runs'), { path }));
writeCsv(join(here, 'reproduction-pairs.csv'), rows, ['path']);
for (const path of PATHS) printMatrix(path, rows.filter((r) => r.path === path));
printAverages("each stack's average, the preset's exclusions", rows, (r) => EXCLUDED[r.path].includes(r.partner), PAPER_AVG);
printAverages(
  'the same with FAST and HSTCP-LP also left out as partners',
  rows,
  (r) => EXCLUDED[r.path].includes(r.partner) || r.partner === 'fast' || r.partner === 'hstcplp',
  PAPER_AVG,
);
