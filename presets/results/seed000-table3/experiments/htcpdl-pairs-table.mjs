// Scores htcpdl-pairs-caltech and htcpdl-pairs-manchester (H-TCP with Delta_L and its time unit
// scaled by k, 161 ms) against their controls, mainline H-TCP (Delta_L 1 s) in the same pairs: the
// reproduction's Caltech runs and buffer-manchester's 0.2 BDP runs. Per partner and path, H-TCP's
// asymmetry both ways and the change; H-TCP's average per path with the preset's exclusions; then
// the finding's two H-TCP pairs (Manchester above Caltech, Manchester above UFL; UFL only has the
// control) with mainline and with the scaled H-TCP, each difference with a 95 % interval
// (bootstrap ∪ jackknife t). Runs judged invalid are left out. Reads only kept records, so it runs on
// a fresh clone after `npm run build`:
//   node presets/results/seed000-table3/experiments/htcpdl-pairs-table.mjs
// Writes htcpdl-pairs-results.csv beside it.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { smallSampleCi } from '@lfnlab/metrics';
import { EXCLUDED, f2, LABELS, leftOutInvalid, mean, pairRows, paperRow, STACKS, writeCsv } from './pairs.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const reproduction = (path) => join(here, '..', 'progress', path, 'runs');
const own = (name) => join(here, `${name}-progress`, 'runs');

/** htcpdl stands in for H-TCP: its rows are H-TCP's, tagged with the Delta_L they ran with. */
const asHtcp = (rows) =>
  rows.map((r) => ({
    ...r,
    stack: r.stack === 'htcpdl' ? 'htcp' : r.stack,
    partner: r.partner === 'htcpdl' ? 'htcp' : r.partner,
  }));
const rows = [
  ...pairRows(reproduction('caltech'), { path: 'caltech', deltaL: '1000ms' }),
  ...pairRows(reproduction('ufl'), { path: 'ufl', deltaL: '1000ms' }),
  ...pairRows(join(here, 'buffer-manchester-progress', 'runs'), { path: 'manchester', deltaL: '1000ms' }),
  ...asHtcp(pairRows(own('htcpdl-pairs-caltech'), { path: 'caltech', deltaL: '161ms' })),
  ...asHtcp(pairRows(own('htcpdl-pairs-manchester'), { path: 'manchester', deltaL: '161ms' })),
];
const htcpRows = rows.filter((r) => r.stack === 'htcp' || r.partner === 'htcp');
writeCsv(
  join(here, 'htcpdl-pairs-results.csv'),
  htcpRows.filter((r) => r.path !== 'ufl'),
  ['path', 'deltaL'],
);

const asymmetries = (path, deltaL, partners) =>
  rows
    .filter((r) => r.path === path && r.deltaL === deltaL && r.stack === 'htcp' && partners(r.partner))
    .map((r) => r.asymmetry);
const describe = (xs) => {
  if (xs.length === 0) return 'no runs'.padEnd(31);
  const ci = smallSampleCi([xs], (g) => mean(g[0]));
  return `${f2(mean(xs))} (n = ${xs.length}, ${ci ? `${f2(ci.low)} to ${f2(ci.high)}` : 'no interval'})`.padEnd(31);
};
const difference = (a, b) => {
  if (a.length === 0 || b.length === 0) return null;
  const ci = smallSampleCi([a, b], (g) => mean(g[0]) - mean(g[1]));
  return { d: mean(a) - mean(b), text: `${f2(mean(a) - mean(b))} (${ci ? `${f2(ci.low)} to ${f2(ci.high)}` : 'no interval'})` };
};

const PATHS = { caltech: 'Caltech, 10 ms, 1 BDP', manchester: 'Manchester, 170 ms, 0.2 BDP' };
for (const [path, title] of Object.entries(PATHS)) {
  console.log(`\n${title}: H-TCP's asymmetry against each partner (mean, n, 95 % interval)`);
  console.log(`  ${'partner'.padEnd(9)}${'Delta_L 1 s'.padEnd(33)}${'Delta_L 161 ms'.padEnd(33)}change`);
  for (const partner of STACKS.filter((s) => s !== 'htcp')) {
    const [a, b] = ['1000ms', '161ms'].map((d) => asymmetries(path, d, (p) => p === partner));
    if (a.length === 0 && b.length === 0) continue;
    console.log(`  ${LABELS[partner].padEnd(9)}${describe(a)}  ${describe(b)}  ${difference(b, a)?.text ?? '-'}`);
  }
  const kept = (p) => !EXCLUDED[path].includes(p);
  const [a, b] = ['1000ms', '161ms'].map((d) => asymmetries(path, d, kept));
  const left = EXCLUDED[path].map((p) => LABELS[p]).join(', ') || 'none';
  console.log(`  ${'average'.padEnd(9)}${describe(a)}  ${describe(b)}  ${difference(b, a)?.text ?? '-'}   (left out: ${left})`);
}

const paper = paperRow;
const at = (path) => paper(path)[STACKS.indexOf('htcp')];
console.log(
  `\nthe finding's H-TCP pairs, first above second (paper: Manchester ${at('manchester')}, Caltech ${at('caltech')}, UFL ${at('ufl')})`,
);
const average = (path, deltaL) => asymmetries(path, deltaL, (p) => !EXCLUDED[path].includes(p));
for (const deltaL of ['1000ms', '161ms']) {
  let agree = 0;
  let judged = 0;
  for (const other of ['caltech', 'ufl']) {
    // UFL was not run with the scaled H-TCP: its control stands in, and the line says so.
    const otherDelta = other === 'ufl' ? '1000ms' : deltaL;
    const diff = difference(average('manchester', deltaL), average(other, otherDelta));
    if (!diff) {
      console.log(`  Delta_L ${deltaL}: Manchester - ${other}: no runs`);
      continue;
    }
    judged += 1;
    if (diff.d > 0) agree += 1;
    console.log(
      `  Delta_L ${deltaL}: Manchester - ${other}${otherDelta === deltaL ? '' : ` (Delta_L ${otherDelta})`} = ${diff.text}`,
    );
  }
  console.log(`  ${agree} of ${judged} pairs in the paper's order with Delta_L ${deltaL}`);
}
console.log(
  `\nleft out as invalid (not a result): ${leftOutInvalid.length ? `${leftOutInvalid.length} runs: ${leftOutInvalid.join(', ')}` : 'none'}`,
);
