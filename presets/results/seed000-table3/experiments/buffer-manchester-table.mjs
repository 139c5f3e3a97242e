// Scores the buffer-manchester experiment against its control, the reproduction's Manchester runs
// (1 BDP): S-TCP's and H-TCP's asymmetry against each partner at both buffers, their Manchester
// averages (HSTCP-LP left out as a partner, as the preset does there), and the finding's three
// pairs (Caltech S-TCP above Manchester S-TCP; Manchester H-TCP above Caltech and UFL H-TCP) with
// Manchester read at each buffer and Caltech and UFL from the reproduction, each difference with a
// 95 % interval (bootstrap ∪ jackknife t). Runs judged invalid are left out. Reads only kept records, so it runs on
// a fresh clone after `npm run build`:
//   node presets/results/seed000-table3/experiments/buffer-manchester-table.mjs
// Writes buffer-manchester-results.csv beside it.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { smallSampleCi } from '@lfnlab/metrics';
import { EXCLUDED, f2, LABELS, leftOutInvalid, mean, pairRows, paperRow, printMatrix, STACKS, writeCsv } from './pairs.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const progress = (path) => join(here, '..', 'progress', path, 'runs');
const rows = [
  ...pairRows(progress('caltech'), { path: 'caltech', buffer: '1bdp' }),
  ...pairRows(progress('ufl'), { path: 'ufl', buffer: '1bdp' }),
  ...pairRows(progress('manchester'), { path: 'manchester', buffer: '1bdp' }),
  ...pairRows(join(here, 'buffer-manchester-progress', 'runs'), { path: 'manchester', buffer: '0.2bdp' }),
];
writeCsv(
  join(here, 'buffer-manchester-results.csv'),
  rows.filter((r) => r.path === 'manchester'),
  ['path', 'buffer'],
);

const cell = (path, buffer, stack) =>
  rows
    .filter((r) => r.path === path && r.buffer === buffer && r.stack === stack && !EXCLUDED[path].includes(r.partner))
    .map((r) => r.asymmetry);
const describe = (xs) => {
  if (xs.length === 0) return 'no runs';
  const ci = smallSampleCi([xs], (g) => mean(g[0]));
  return `${f2(mean(xs))} (n = ${xs.length}, ${ci ? `${f2(ci.low)} to ${f2(ci.high)}` : 'no interval'})`;
};

for (const buffer of ['1bdp', '0.2bdp'])
  printMatrix(`Manchester, buffer ${buffer}`, rows.filter((r) => r.path === 'manchester' && r.buffer === buffer));

const paperManchester = paperRow('manchester');
console.log(
  `\nManchester averages (paper: S-TCP ${paperManchester[STACKS.indexOf('scalable')]}, H-TCP ${paperManchester[STACKS.indexOf('htcp')]})`,
);
for (const stack of ['scalable', 'htcp'])
  for (const buffer of ['1bdp', '0.2bdp'])
    console.log(`  ${LABELS[stack].padEnd(7)} ${buffer.padEnd(7)} ${describe(cell('manchester', buffer, stack))}`);

console.log("\nthe finding's pairs (first above second), Caltech and UFL from the reproduction (1 BDP)");
const PAIRS = [
  [['caltech', 'scalable'], ['manchester', 'scalable']],
  [['manchester', 'htcp'], ['caltech', 'htcp']],
  [['manchester', 'htcp'], ['ufl', 'htcp']],
];
for (const buffer of ['1bdp', '0.2bdp']) {
  let agree = 0;
  for (const [[p1, s1], [p2, s2]] of PAIRS) {
    const a = cell(p1, p1 === 'manchester' ? buffer : '1bdp', s1);
    const b = cell(p2, p2 === 'manchester' ? buffer : '1bdp', s2);
    if (a.length === 0 || b.length === 0) continue;
    const d = mean(a) - mean(b);
    const ci = smallSampleCi([a, b], (g) => mean(g[0]) - mean(g[1]));
    if (d > 0) agree += 1;
    console.log(
      `  Manchester at ${buffer}: ${p1} ${LABELS[s1]} ${f2(mean(a))} - ${p2} ${LABELS[s2]} ${f2(mean(b))} = ${f2(d)} (${ci ? `${f2(ci.low)} to ${f2(ci.high)}` : 'no interval'})`,
    );
  }
  console.log(`  ${agree} of ${PAIRS.length} pairs in the paper's order with Manchester at ${buffer}`);
}
console.log(
  `\nleft out as invalid (not a result): ${leftOutInvalid.length ? `${leftOutInvalid.length} runs: ${leftOutInvalid.join(', ')}` : 'none'}`,
);
