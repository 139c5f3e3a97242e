// Scores experiments on seed000-table1's parts (cross-caltech.yaml, buffer-caltech.yaml on Caltech,
// buffer-ufl.yaml on UFL) two ways, after `npm run build`:
//   node presets/results/seed000-table1/experiments/caltech-table.mjs [PART=]CAMPAIGN_DIR ...
// (PART caltech when not given; several directories, one per part, are swapped in together).
// 1. Each part alone, per stack at windows 2 and 3 (above 1 BDP): whole-run goodput and the
//    stability index σ/μ of the 5 s intervals, the reproduction's runs against the experiment's
//    (mean and 95 % t interval over the runs of each), into NAME-results.csv beside this file.
// 2. The preset's own judgement of its findings with those parts' runs replaced by these (the
//    campaigns keep the preset's run ids, so `lfnlab preset run --progress` on a copy of the
//    progress directory whose runs are swapped judges them as the preset does; the other parts
//    stay as reproduced). Prints the verdict lines of every finding.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..', '..');
const progress = join(here, '..', 'progress');
const cli = join(root, 'backend', 'bin', 'lfnlab.js');
const experiments = process.argv.slice(2).map((arg) => {
  const m = /^(caltech|ufl|manchester)=(.+)$/.exec(arg);
  return m ? { part: m[1], campaign: m[2] } : { part: 'caltech', campaign: arg };
});
if (!experiments.length || experiments.some((e) => !existsSync(join(e.campaign, 'runs')))) {
  console.error(`usage: caltech-table.mjs [PART=]CAMPAIGN_DIR ... (campaign directories with runs/, from lfnlab campaign run ${join(here, 'cross-caltech.yaml')}; PART caltech, ufl or manchester)`);
  process.exit(1);
}

// t(0.975) for 1..10 degrees of freedom.
const T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228];
const stats = (xs) => {
  const n = xs.length;
  const mean = xs.reduce((a, x) => a + x, 0) / n;
  const sd = n > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1)) : Number.NaN;
  const half = n > 1 ? (T975[Math.min(n - 1, 10) - 1] * sd) / Math.sqrt(n) : Number.NaN;
  return { n, mean, lo: mean - half, hi: mean + half };
};
const metric = (summary, flow, id) =>
  summary.metrics?.flows?.find((f) => f.flow === flow)?.metrics?.find((m) => m.id === id)?.value ?? null;
const label = (flow) => (flow.stack === 'reno' && flow.streams > 1 ? 'ptcp' : flow.stack);

/** Completed runs at windows 2 and 3 of a runs directory: stack, window, goodput, σ/μ, verdict. */
function runsOf(dir) {
  const out = [];
  for (const id of readdirSync(dir).sort()) {
    const f = join(dir, id, 'summary.json');
    if (!existsSync(f)) continue;
    const s = JSON.parse(readFileSync(f, 'utf8'));
    const spec = JSON.parse(readFileSync(join(dir, id, 'spec.json'), 'utf8'));
    const flow = spec.flows.find((x) => x.name === 'test');
    const window = flow?.window?.bdp;
    if (s.status !== 'completed' || !flow || !(window > 1)) continue;
    out.push({
      id,
      stack: label(flow),
      window,
      goodputMbps: (metric(s, 'test', 'throughput.mean') ?? Number.NaN) / 1e6,
      wholeRunMbps: s.flows.find((x) => x.name === 'test')?.goodputMbps?.wholeRun ?? Number.NaN,
      stability: metric(s, 'test', 'stability.sigma_over_mu') ?? Number.NaN,
      verdict: s.verdict,
      background: (spec.paths.main.cross ?? []).length > 0,
      bufferBdp: spec.paths.main.buffer?.bdp ?? null,
    });
  }
  return out;
}

const header = ['id', 'background', 'bufferBdp', 'stack', 'window', 'wholeRunMbps', 'goodputMbps', 'stability', 'verdict'];
const cell = (x) => (typeof x === 'number' && !Number.isInteger(x) ? x.toPrecision(4) : x);
const fmt = (s, d) => `${s.mean.toFixed(d)} (${s.lo.toFixed(d)} to ${s.hi.toFixed(d)}, n = ${s.n})`;
const title = { caltech: 'Caltech', ufl: 'UFL', manchester: 'Manchester' };
for (const { part, campaign } of experiments) {
  const experiment = runsOf(join(campaign, 'runs'));
  const idle = runsOf(join(progress, part, 'runs'));
  const rows = [...idle, ...experiment];
  writeFileSync(
    join(here, `${basename(campaign)}-results.csv`),
    `${[header.join(','), ...rows.map((r) => header.map((h) => cell(r[h])).join(','))].join('\n')}\n`,
  );
  console.log(`${title[part]}, windows 2 and 3: whole-run goodput Mbit/s and σ/μ, the reproduction -> ${basename(campaign)}`);
  for (const stack of [...new Set(rows.map((r) => r.stack))]) {
    const a = idle.filter((r) => r.stack === stack);
    const b = experiment.filter((r) => r.stack === stack);
    if (!a.length || !b.length) continue;
    console.log(
      `${stack}: goodput ${fmt(stats(a.map((r) => r.wholeRunMbps)), 1)} -> ${fmt(stats(b.map((r) => r.wholeRunMbps)), 1)}; ` +
        `σ/μ ${fmt(stats(a.map((r) => r.stability)), 4)} -> ${fmt(stats(b.map((r) => r.stability)), 4)}; ` +
        `verdicts ${b.map((r) => r.verdict).join(' ')}`,
    );
  }
}

// The preset's judgement with those parts swapped.
const tmp = mkdtempSync(join(tmpdir(), 'caltech-table-'));
try {
  const swapped = join(tmp, 'progress');
  cpSync(progress, swapped, { recursive: true });
  const replaced = experiments.map(({ part, campaign }) => {
    const runs = join(campaign, 'runs');
    let n = 0;
    for (const id of readdirSync(runs)) {
      const to = join(swapped, part, 'runs', id);
      if (!existsSync(join(runs, id, 'summary.json')) || !existsSync(to)) continue;
      for (const f of ['summary.json', 'spec.json']) cpSync(join(runs, id, f), join(to, f));
      n++;
    }
    return `${n} of its 72 ${title[part]} runs replaced by ${basename(campaign)}'s`;
  });
  console.log(`\nThe preset's findings with ${replaced.join(', ')}:`);
  const out = execFileSync(
    process.execPath,
    [cli, 'preset', 'run', 'seed000-table1', '--reproduce', '--out', join(tmp, 'out'), '--lab', 'scratch', '--progress', swapped],
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  for (const line of out.split('\n')) if (/^\[(holds|fails|inconclusive)\]/.test(line)) console.log(line);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
