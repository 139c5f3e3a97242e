// Scores sine-buffer.yaml (the reproduction's runs at windows 2 and 3 with the 60 s period, on a
// 0.2 BDP buffer) two ways, after `npm run build`:
//   node presets/results/seed000-sinusoidal/experiments/sine-buffer-table.mjs CAMPAIGN_DIR
// 1. Per stack: the flow's whole-run goodput and stability index σ/μ (5 s intervals after its
//    omit), and the link's whole load (flow and stream) σ/μ, the reproduction's runs of the same
//    ids against the experiment's (mean and 95 % interval over the runs of each, the bootstrap widened to the jackknife t), into
//    sine-buffer-results.csv beside this file.
// 2. The preset's own judgement of its findings with those runs swapped for the experiment's (the
//    campaign keeps the preset's run ids and seeds; the other runs stay as reproduced), judged on
//    a copy of the kept records as the summary judges a reproduction (provisionalComparison).
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { smallSampleCi } from '@lfnlab/metrics';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..', '..');
const progress = join(here, '..', 'progress');
const campaign = process.argv[2];
if (!campaign || !existsSync(join(campaign, 'runs'))) {
  console.error(`usage: sine-buffer-table.mjs CAMPAIGN_DIR (from lfnlab campaign run ${join(here, 'sine-buffer.yaml')})`);
  process.exit(1);
}
const { loadPresets } = await import(join(root, 'backend', 'dist', 'presets', 'load.js'));
const { provisionalComparison } = await import(join(root, 'backend', 'dist', 'presets', 'provisional.js'));

/** Mean and 95 % interval as the findings take it (the bootstrap widened to the jackknife t). */
const stats = (xs) => {
  const ok = xs.filter(Number.isFinite);
  const mean = (g) => g.reduce((a, x) => a + x, 0) / g.length;
  const ci = ok.length >= 2 ? smallSampleCi([ok], (g) => mean(g[0])) : null;
  return { n: ok.length, mean: ok.length ? mean(ok) : Number.NaN, lo: ci?.low ?? Number.NaN, hi: ci?.high ?? Number.NaN };
};
const find = (list, id) => list?.find((m) => m.id === id)?.value ?? Number.NaN;
const label = (flow) => (flow.stack === 'reno' && flow.streams > 1 ? 'ptcp' : flow.stack);

/** The completed runs of a runs directory whose ids are in `ids` (all when null). */
function runsOf(dir, ids) {
  const out = [];
  for (const id of existsSync(dir) ? readdirSync(dir).sort() : []) {
    if (ids && !ids.has(id)) continue;
    const f = join(dir, id, 'summary.json');
    if (!existsSync(f)) continue;
    const s = JSON.parse(readFileSync(f, 'utf8'));
    const spec = JSON.parse(readFileSync(join(dir, id, 'spec.json'), 'utf8'));
    const flow = spec.flows.find((x) => x.name === 'test');
    if (s.status !== 'completed' || !flow) continue;
    const own = s.metrics?.flows?.find((x) => x.flow === 'test')?.metrics;
    const load = s.metrics?.groups?.find((g) => g.direction === 'forward')?.metrics;
    out.push({
      id,
      bufferBdp: spec.paths.main.buffer?.bdp ?? null,
      stack: label(flow),
      window: flow.window?.bdp,
      wholeRunMbps: s.flows.find((x) => x.name === 'test')?.goodputMbps?.wholeRun ?? Number.NaN,
      stability: find(own, 'stability.sigma_over_mu'),
      loadMbps: find(load, 'throughput.aggregate') / 1e6,
      loadStability: find(load, 'stability.aggregate'),
      verdict: s.verdict,
    });
  }
  return out;
}

const experiment = runsOf(join(campaign, 'runs'), null);
const control = runsOf(join(progress, 'main', 'runs'), new Set(experiment.map((r) => r.id)));
const rows = [...control, ...experiment];
const header = ['id', 'bufferBdp', 'stack', 'window', 'wholeRunMbps', 'stability', 'loadMbps', 'loadStability', 'verdict'];
const cell = (x) => (typeof x === 'number' && !Number.isInteger(x) ? x.toPrecision(4) : x);
writeFileSync(
  join(here, 'sine-buffer-results.csv'),
  `${[header.join(','), ...rows.map((r) => header.map((h) => cell(r[h])).join(','))].join('\n')}\n`,
);

const fmt = (s, d) => `${s.mean.toFixed(d)} (${s.lo.toFixed(d)} to ${s.hi.toFixed(d)}, n = ${s.n})`;
const line = (name, a, b, key, d) => `${name} ${fmt(stats(a.map((r) => r[key])), d)} -> ${fmt(stats(b.map((r) => r[key])), d)}`;
console.log('Windows 2 and 3, 60 s period: 1 BDP (the reproduction) -> 0.2 BDP (sine-buffer)');
for (const stack of [...new Set(rows.map((r) => r.stack))]) {
  const a = control.filter((r) => r.stack === stack);
  const b = experiment.filter((r) => r.stack === stack);
  if (!a.length || !b.length) continue;
  console.log(
    `${stack}: ${line('goodput Mbit/s', a, b, 'wholeRunMbps', 1)}; ${line('flow σ/μ', a, b, 'stability', 4)}; ` +
      `${line('whole load σ/μ', a, b, 'loadStability', 4)}; verdicts ${b.map((r) => r.verdict).join(' ')}`,
  );
}

// The preset's judgement with those runs swapped.
const preset = loadPresets().find((p) => p.name === 'seed000-sinusoidal');
const tmp = mkdtempSync(join(tmpdir(), 'sine-buffer-'));
try {
  const swapped = join(tmp, 'progress');
  cpSync(progress, swapped, { recursive: true });
  let n = 0;
  for (const r of experiment) {
    const to = join(swapped, 'main', 'runs', r.id);
    if (!existsSync(to)) continue;
    for (const f of ['summary.json', 'spec.json']) cpSync(join(campaign, 'runs', r.id, f), join(to, f));
    n++;
  }
  const judged = provisionalComparison(preset, swapped);
  console.log(`\nThe preset's findings with ${n} of its runs replaced by sine-buffer's:`);
  for (const f of judged?.findings ?? []) console.log(`[${f.verdict}] ${f.sentence}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
