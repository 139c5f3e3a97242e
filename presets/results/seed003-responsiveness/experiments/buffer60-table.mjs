// Scores the buffer60 experiment: for each run, every window reduction after slow start (the
// preset's own windowRecoveries), how full the pipe was when it came (the window before it over
// the pipe plus the buffer, in packets), and what the recoveries took against the theory.
// Reductions live in the cwnd samples, which the kept records do not hold: it reads the campaign
// directory (default campaigns/resp-buffer60, or the one given) after `npm run build`:
//   node presets/results/seed003-responsiveness/experiments/buffer60-table.mjs [CAMPAIGN_DIR]
// Writes buffer60-results.csv beside it (one row per run) and prints the answer's numbers.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { windowRecoveries } from '@lfnlab/metrics';

const here = dirname(fileURLToPath(import.meta.url));
const campaign = process.argv[2] ?? join(here, '..', '..', '..', '..', 'campaigns', 'resp-buffer60');
const runsDir = join(campaign, 'runs');
if (!existsSync(runsDir)) {
  console.error(`no runs in ${runsDir}: run the campaign first (lfnlab campaign run ${join(here, 'buffer60.yaml')})`);
  process.exit(1);
}
const MSS = 1448;
const EARLY = 0.9; // a reduction below 90 % of pipe + buffer came before the path was full
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : Number.NaN;
};
const metric = (summary, id) => {
  let out = null;
  const walk = (o) => {
    if (Array.isArray(o)) o.forEach(walk);
    else if (o && typeof o === 'object') {
      if (o.id === id && typeof o.value === 'number') out = o.value;
      Object.values(o).forEach(walk);
    }
  };
  walk(summary.metrics);
  return out;
};

const rows = [];
for (const id of readdirSync(runsDir).sort()) {
  const dir = join(runsDir, id);
  if (!existsSync(join(dir, 'summary.json'))) continue;
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  if (summary.status !== 'completed' || !existsSync(join(dir, 'samples', 'tcp.jsonl'))) continue;
  const spec = JSON.parse(readFileSync(join(dir, 'spec.json'), 'utf8'));
  const path = spec.paths.main;
  // The parsed spec holds rate in bit/s, rtt in ms, and the buffer as a share of the BDP or in bytes.
  const pipe = ((path.rate / 8) * (path.rtt / 1000)) / MSS;
  const buffer = path.buffer.bdp !== undefined ? path.buffer.bdp * pipe : (path.buffer.bytes ?? Number.NaN) / MSS;
  const tcp = readFileSync(join(dir, 'samples', 'tcp.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((s) => s.flow === 'reno');
  const events = windowRecoveries({ t: tcp.map((s) => s.t), v: tcp.map((s) => s.cwndPackets) }).slice(1);
  const fullness = events.map((e) => e.preLossWindow / (pipe + buffer));
  const theory = metric(summary, 'responsiveness');
  const recovered = events.filter((e) => Number.isFinite(e.recoveryS)).map((e) => e.recoveryS);
  rows.push({
    id,
    buffer: Math.round(buffer),
    seed: summary.seed,
    verdict: summary.verdict,
    reductions: events.length,
    early: fullness.filter((f) => f < EARLY).length,
    fullnessMin: Math.min(...fullness),
    fullnessMedian: median(fullness),
    recoveryMin: Math.min(...recovered),
    recoveryMax: Math.max(...recovered),
    recoveryTime: metric(summary, 'recovery.time'),
    theory,
    ratio: (metric(summary, 'recovery.time') ?? Number.NaN) / theory,
  });
}

const header = Object.keys(rows[0] ?? { id: 0 });
const cell = (x) => (typeof x === 'number' && !Number.isInteger(x) ? x.toFixed(3) : x);
writeFileSync(
  join(here, 'buffer60-results.csv'),
  `${[header.join(','), ...rows.map((r) => header.map((h) => cell(r[h])).join(','))].join('\n')}\n`,
);
for (const b of [...new Set(rows.map((r) => r.buffer))].sort((a, c) => a - c)) {
  const rs = rows.filter((r) => r.buffer === b);
  const red = rs.reduce((a, r) => a + r.reductions, 0);
  const early = rs.reduce((a, r) => a + r.early, 0);
  console.log(
    `buffer ${b} packets: ${rs.length} runs (${rs.map((r) => r.verdict).join(', ')}); ` +
      `${early} of ${red} reductions before the pipe and buffer were 90 % full; ` +
      `recovery.time / theory per run ${rs.map((r) => cell(r.ratio)).join(', ')}; ` +
      `single recoveries ${cell(Math.min(...rs.map((r) => r.recoveryMin)))} to ${cell(Math.max(...rs.map((r) => r.recoveryMax)))} s`,
  );
}
