// Scores htcpdl-check.yaml: per run, the flow's goodput, retransmits, mean cwnd and its congestion
// epochs (time between window cuts, read from the tcp sampler's cwnd at 100 ms: a cut is a drop of
// more than a fifth between two samples), then per stack setting the mean and a 95 % t interval.
// Usage: node htcpdl-check-table.mjs CAMPAIGN_DIR... [--csv OUT.csv]
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const csvAt = args.indexOf('--csv');
const out = csvAt >= 0 ? args[csvAt + 1] : undefined;
const dirs = args.filter((_, i) => csvAt < 0 || (i !== csvAt && i !== csvAt + 1));
if (!dirs.length) {
  console.error('usage: node htcpdl-check-table.mjs CAMPAIGN_DIR... [--csv OUT.csv]');
  process.exit(2);
}

const lines = (f) =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** Seconds between window cuts after the first one (slow start's exit is not an epoch). */
function epochs(samples) {
  const cuts = [];
  for (let i = 1; i < samples.length; i++)
    if (samples[i].cwndPackets < 0.8 * samples[i - 1].cwndPackets) cuts.push(samples[i].t);
  return cuts.slice(1).map((t, i) => t - cuts[i]);
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const T975 = [Number.NaN, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262];
function interval(xs) {
  const m = mean(xs);
  if (xs.length < 2) return [m, Number.NaN, Number.NaN];
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
  const h = (T975[xs.length - 1] ?? 1.96) * (sd / Math.sqrt(xs.length));
  return [m, m - h, m + h];
}

const rows = [];
for (const dir of dirs)
for (const id of readdirSync(join(dir, 'runs')).sort()) {
  const run = join(dir, 'runs', id);
  if (!existsSync(join(run, 'summary.json'))) continue;
  const s = JSON.parse(readFileSync(join(run, 'summary.json'), 'utf8'));
  const spec = JSON.parse(readFileSync(join(run, 'spec.json'), 'utf8'));
  const f = s.flows[0];
  const tcp = lines(join(run, 'samples', 'tcp.jsonl')).filter((x) => x.flow === f.name);
  const e = epochs(tcp);
  const p = spec.stackParams?.htcpdl ?? {};
  const stack =
    f.stack === 'htcpdl' ? `htcpdl Delta_L ${p.delta_l_ms ?? 1000} ms / t unit ${p.alpha_time_ms ?? 1000} ms` : f.stack;
  rows.push({
    run: `${dir.split('/').filter(Boolean).pop()}/${id}`,
    stack,
    verdict: s.verdict,
    goodputMbps: f.goodputMbps.wholeRun,
    retransmits: f.retransmits,
    meanCwnd: mean(tcp.map((x) => x.cwndPackets)),
    epochs: e.length,
    meanEpochS: e.length ? mean(e) : Number.NaN,
  });
}

const header = ['run', 'stack', 'verdict', 'goodputMbps', 'retransmits', 'meanCwnd', 'epochs', 'meanEpochS'];
const csv = [header.join(','), ...rows.map((r) => header.map((h) => r[h]).join(','))].join('\n');
if (out) writeFileSync(out, `${csv}\n`);
console.log(csv);
console.log();
for (const stack of [...new Set(rows.map((r) => r.stack))]) {
  const of = rows.filter((r) => r.stack === stack);
  const fmt = (k, d) => {
    const [m, lo, hi] = interval(of.map((r) => r[k]));
    return `${k} ${m.toFixed(d)} (${lo.toFixed(d)} to ${hi.toFixed(d)})`;
  };
  console.log(
    `${stack}: n = ${of.length}; ${fmt('goodputMbps', 2)}; ${fmt('retransmits', 0)}; ${fmt('meanCwnd', 1)}; ${fmt('meanEpochS', 3)}`,
  );
}
