// Scores the ptcp-streams experiment against its control, the reproduction's Caltech runs against
// P-TCP (16 streams, Bic-TCP's step scaled to 3): each stack's asymmetry against P-TCP,
// A = (x − p)/(x + p) on whole-run goodputs as the preset reads them, with a 95 % interval (bootstrap ∪ jackknife t)
// (runs resampled within the cell). Reads only kept records (summary and spec), so it runs on a
// fresh clone after `npm run build`:
//   node presets/results/seed000-table3/experiments/ptcp-streams-table.mjs
// Writes ptcp-streams-results.csv beside it and prints the answer's numbers.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asymmetry, smallSampleCi } from '@lfnlab/metrics';
import { keptCompletedRuns } from '../../../../backend/dist/campaign/progress.js';
import { keyOf, LABELS, mean } from './pairs.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const sources = [
  join(here, 'ptcp-streams-progress', 'runs'), // the experiment
  join(here, '..', 'progress', 'caltech', 'runs'), // the reproduction: its runs against P-TCP
];
// Bic-TCP first: the finding reads every other stack against it.
const SUBJECTS = ['bic', 'scalable', 'fast', 'highspeed', 'htcp', 'hstcplp'];
const isPtcp = (f) => keyOf(f) === 'ptcp';

const runs = [];
for (const { id, summary, spec } of sources.flatMap(keptCompletedRuns)) {
  const ptcp = spec.flows.find(isPtcp);
  const subject = spec.flows.find((f) => !isPtcp(f));
  if (!ptcp || !subject) continue; // the reproduction's runs without P-TCP
  const goodput = (name) => summary.flows.find((f) => f.name === name)?.goodputMbps.wholeRun;
  const [x, p] = [goodput(subject.name), goodput(ptcp.name)];
  runs.push({
    id,
    stack: subject.stack,
    ptcpStreams: ptcp.streams,
    bicMaxIncrement: spec.stackParams?.bic?.max_increment ?? 16,
    seed: summary.seed,
    verdict: typeof summary.verdict === 'string' ? summary.verdict : summary.verdict?.verdict,
    subjectMbps: x,
    ptcpMbps: p,
    asymmetry: asymmetry(x, p),
  });
}

const header = ['id', 'stack', 'ptcpStreams', 'bicMaxIncrement', 'seed', 'verdict', 'subjectMbps', 'ptcpMbps', 'asymmetry'];
const fmt = (v) => (typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(4) : v);
writeFileSync(
  join(here, 'ptcp-streams-results.csv'),
  `${[header.join(','), ...runs.map((r) => header.map((h) => fmt(r[h])).join(','))].join('\n')}\n`,
);

const f3 = (x) => x.toFixed(3);
const cell = (stack, streams, mi) =>
  runs.filter((r) => r.stack === stack && r.ptcpStreams === streams && (stack !== 'bic' || r.bicMaxIncrement === mi));
const describe = (rs) => {
  if (rs.length === 0) return 'no runs';
  const ci = smallSampleCi([rs.map((r) => r.asymmetry)], (g) => mean(g[0]));
  const mbps = (k) => mean(rs.map((r) => r[k])).toFixed(1);
  const verdicts = rs.map((r) => r.verdict).join('/');
  return `A ${f3(mean(rs.map((r) => r.asymmetry)))} (n = ${rs.length}, ${ci ? `${f3(ci.low)} to ${f3(ci.high)}` : 'no interval'}), ${mbps('subjectMbps')} against ${mbps('ptcpMbps')} Mbit/s, ${verdicts}`;
};

for (const [streams, mi, title] of [
  [16, 3, 'reproduction: P-TCP 16 streams, Bic-TCP max_increment 3'],
  [16, 16, 'Bic-TCP max_increment 16 against P-TCP 16 streams'],
  [3, 3, 'P-TCP 3 streams (16 x 0.1608), every stack as in the reproduction'],
]) {
  console.log(`\n${title}`);
  for (const stack of SUBJECTS) {
    const rs = cell(stack, streams, mi);
    if (streams === 16 && mi === 16 && stack !== 'bic') continue;
    console.log(`  ${LABELS[stack].padEnd(9)} ${describe(rs)}`);
  }
}

// The finding's five pairs (Bic-TCP against P-TCP above each other stack against P-TCP), with P-TCP
// scaled: how many hold on the means, and the interval of each difference.
console.log('\nbic.vs.ptcp with P-TCP at 3 streams: Bic-TCP minus each stack (asymmetry against P-TCP)');
const bic = cell('bic', 3, 3);
let agree = 0;
let pairs = 0;
for (const stack of ['scalable', 'fast', 'highspeed', 'htcp', 'hstcplp']) {
  const other = cell(stack, 3, 3);
  if (bic.length === 0 || other.length === 0) continue;
  const ci = smallSampleCi([bic.map((r) => r.asymmetry), other.map((r) => r.asymmetry)], (g) => mean(g[0]) - mean(g[1]));
  const d = mean(bic.map((r) => r.asymmetry)) - mean(other.map((r) => r.asymmetry));
  pairs += 1;
  if (d > 0) agree += 1;
  console.log(`  vs ${LABELS[stack].padEnd(9)} ${f3(d)} (${ci ? `${f3(ci.low)} to ${f3(ci.high)}` : 'no interval'})`);
}
console.log(`  ${agree} of ${pairs} pairs in the paper's order`);
