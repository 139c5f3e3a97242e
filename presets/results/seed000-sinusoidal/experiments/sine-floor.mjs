// How much of a flow's stability index the UDP sine alone sets. A flow that takes exactly the
// capacity the stream leaves swings as the stream does, so its σ/μ over 5 s intervals is at least
// σ(the sine's 5 s means) / μ(the flow): the floor, worked out from each run's spec (mean, amplitude,
// period, the flow's `omit` and length). What a stack adds of its own is what lies above it,
// √(σ² − σ_floor²)/μ when the two are independent. Beside them: the link's whole load (flow and
// stream, run metric stability.aggregate, present once the runs were judged again with it), and
// the with/without goodput ratio per window against 1 − the stream's mean share; then the same ratio
// with the link's whole load on the "with" side (run metric throughput.aggregate): what the paper's
// +15 % would be had its throughput with the stream counted the stream too.
// Reads only the kept records (progress/main/runs), so it runs on a fresh clone after `npm run build`:
//   node presets/results/seed000-sinusoidal/experiments/sine-floor.mjs
// Writes sine-floor-results.csv beside it (one row per run with the stream).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { smallSampleCi } from '@lfnlab/metrics';

const here = dirname(fileURLToPath(import.meta.url));
const runsDir = join(here, '..', 'progress', 'main', 'runs');
const INTERVAL_S = 5;

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs) => {
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
};
const f = (x, d = 4) => (x === null || Number.isNaN(x) ? '-' : x.toFixed(d));
const metric = (list, id) => list?.find((m) => m.id === id)?.value ?? null;

/** The sine's mean over [a, b), in bit/s: its integral over the span divided by the span. */
function sineMean(p, startS, a, b) {
  const w = (2 * Math.PI) / p.periodS;
  return p.meanBps + (p.amplitudeBps * (Math.cos(w * (a - startS)) - Math.cos(w * (b - startS)))) / (w * (b - a));
}

function stackLabel(flow) {
  if (flow.stack === 'reno' && flow.streams > 1) return 'P-TCP';
  return { reno: 'Reno', scalable: 'S-TCP', fast: 'FAST', highspeed: 'HS-TCP', bic: 'Bic-TCP', htcp: 'H-TCP', hstcplp: 'HSTCP-LP' }[flow.stack] ?? flow.stack;
}

const runs = [];
for (const id of existsSync(runsDir) ? readdirSync(runsDir).sort() : []) {
  const dir = join(runsDir, id);
  if (!existsSync(join(dir, 'summary.json')) || !existsSync(join(dir, 'spec.json'))) continue;
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  const spec = JSON.parse(readFileSync(join(dir, 'spec.json'), 'utf8'));
  if (summary.verdict === 'invalid') continue;
  const flow = spec.flows[0];
  const fm = summary.metrics?.flows?.find((x) => x.flow === 'test')?.metrics;
  const mu = metric(fm, 'throughput.mean');
  const stability = metric(fm, 'stability.sigma_over_mu');
  if (mu === null || stability === null) continue;
  const path = spec.paths.main;
  const cross = path.cross[0] ?? null;
  const group = summary.metrics.groups.find((g) => g.direction === 'forward');
  const row = {
    id,
    stack: stackLabel(flow),
    window: flow.window.bdp,
    period: cross ? cross.pattern.periodS : 0,
    goodput: mu / 1e6,
    stability,
    floor: null,
    own: null,
    aggregate: metric(group?.metrics, 'stability.aggregate'),
    load: metric(group?.metrics, 'throughput.aggregate'),
    streamShare: cross ? cross.pattern.meanBps / path.rate : 0,
  };
  if (cross) {
    const from = (flow.start + flow.omit) / 1000;
    const to = (flow.start + flow.duration) / 1000;
    const means = [];
    for (let a = from; a + INTERVAL_S <= to + 1e-9; a += INTERVAL_S)
      means.push(sineMean(cross.pattern, cross.start / 1000, a, a + INTERVAL_S));
    row.floor = sd(means) / mu;
    row.own = Math.sqrt(Math.max(0, (stability * mu) ** 2 - (sd(means)) ** 2)) / mu;
  }
  runs.push(row);
}

const withStream = runs.filter((r) => r.period > 0);
const cols = ['id', 'stack', 'window', 'period', 'goodput', 'stability', 'floor', 'own', 'aggregate', 'load'];
writeFileSync(
  join(here, 'sine-floor-results.csv'),
  `${cols.join(',')}\n${withStream.map((r) => cols.map((c) => r[c] ?? '').join(',')).join('\n')}\n`,
);

const describe = (xs) => {
  const ok = xs.filter((x) => x !== null);
  if (ok.length === 0) return '-'.padEnd(28);
  const ci = ok.length >= 2 ? smallSampleCi([ok], (g) => mean(g[0])) : null;
  return `${f(mean(ok))} (${ci ? `${f(ci.low)} to ${f(ci.high)}` : 'n = 1'})`.padEnd(28);
};

console.log(`${runs.length} kept runs not invalid; ${withStream.length} with the stream\n`);
console.log('With the stream, per window: the flow’s σ/μ, the floor the sine sets, what is left above it, the whole load’s σ/μ');
console.log(`${'window'.padEnd(8)}${'n'.padEnd(4)}${'σ/μ'.padEnd(28)}${'floor'.padEnd(28)}${'own'.padEnd(28)}whole load`);
for (const w of [...new Set(withStream.map((r) => r.window))].sort((a, b) => a - b)) {
  const rs = withStream.filter((r) => r.window === w);
  console.log(
    `${String(w).padEnd(8)}${String(rs.length).padEnd(4)}${describe(rs.map((r) => r.stability))}${describe(rs.map((r) => r.floor))}${describe(rs.map((r) => r.own))}${describe(rs.map((r) => r.aggregate))}`,
  );
}

console.log(
  'A window under the BDP caps the flow below what the stream leaves, so it cannot follow the sine: its floor is no bound there.',
);
console.log('\nWindows 2 and 3 with the stream, per stack (mean over runs)');
console.log(`${'stack'.padEnd(10)}${'n'.padEnd(4)}${'σ/μ'.padEnd(10)}${'floor'.padEnd(10)}${'own'.padEnd(10)}whole load`);
const big = withStream.filter((r) => r.window > 1);
for (const s of [...new Set(big.map((r) => r.stack))].sort()) {
  const rs = big.filter((r) => r.stack === s);
  const agg = rs.map((r) => r.aggregate).filter((x) => x !== null);
  console.log(
    `${s.padEnd(10)}${String(rs.length).padEnd(4)}${f(mean(rs.map((r) => r.stability))).padEnd(10)}${f(mean(rs.map((r) => r.floor))).padEnd(10)}${f(mean(rs.map((r) => r.own))).padEnd(10)}${agg.length ? f(mean(agg)) : '-'}`,
  );
}

console.log('\nGoodput with the stream over goodput without, per window, against 1 − the stream’s mean share');
for (const w of [...new Set(runs.map((r) => r.window))].sort((a, b) => a - b)) {
  const a = runs.filter((r) => r.window === w && r.period > 0).map((r) => r.goodput);
  const b = runs.filter((r) => r.window === w && r.period === 0).map((r) => r.goodput);
  if (a.length === 0 || b.length === 0) continue;
  const ci = smallSampleCi([a, b], (g) => mean(g[0]) / mean(g[1]));
  const share = mean(runs.filter((r) => r.period > 0).map((r) => r.streamShare));
  console.log(
    `  window ${w} BDP: ${f(mean(a) / mean(b), 3)} (${ci ? `${f(ci.low, 3)} to ${f(ci.high, 3)}` : 'no interval'}; ${a.length} with, ${b.length} without; ${f(mean(a), 1)} against ${f(mean(b), 1)} Mbit/s); 1 − share = ${f(1 - share, 3)}`,
  );
}

const loadRuns = withStream.filter((r) => r.load !== null);
const without = runs.filter((r) => r.period === 0);
if (loadRuns.length && without.length) {
  console.log('\nThe whole load with the stream (flow + stream) over the flow alone without it: the paper reports 1.15');
  const ratio = (a, b) => {
    const ci = smallSampleCi([a, b], (g) => mean(g[0]) / mean(g[1]));
    return `${f(mean(a) / mean(b), 3)} (${ci ? `${f(ci.low, 3)} to ${f(ci.high, 3)}` : 'no interval'}; ${a.length} with, ${b.length} without)`;
  };
  for (const w of [...new Set(runs.map((r) => r.window))].sort((a, b) => a - b)) {
    const a = loadRuns.filter((r) => r.window === w).map((r) => r.load / 1e6);
    const b = without.filter((r) => r.window === w).map((r) => r.goodput);
    if (a.length && b.length) console.log(`  window ${w} BDP: ${ratio(a, b)}`);
  }
  console.log(`  all windows: ${ratio(loadRuns.map((r) => r.load / 1e6), without.map((r) => r.goodput))}`);
  console.log(`  (the flow alone: ${ratio(withStream.map((r) => r.goodput), without.map((r) => r.goodput))})`);
}
