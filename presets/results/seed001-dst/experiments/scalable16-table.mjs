// Scores the scalable16 experiment against its control, the preset's mainline Scalable runs, with
// the preset's own measures (rowMeasure: per active period, as the `overall` finding reads them) and
// the interval the comparisons use (bootstrap ∪ jackknife t). Reads only kept records (summary and spec), so it runs on a
// fresh clone after `npm run build`:
//   node presets/results/seed001-dst/experiments/scalable16-table.mjs
// Writes scalable16-results.csv beside it and prints the answer's numbers.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { smallSampleCi, seedFromText } from '@lfnlab/metrics';
import { keptCompletedRuns } from '../../../../backend/dist/campaign/progress.js';
import { rowMeasure } from '../../../../backend/dist/presets/measure.js';

const here = dirname(fileURLToPath(import.meta.url));
const sources = [
  join(here, 'scalable16-progress', 'runs'), // the experiment
  join(here, '..', 'progress', 'main', 'runs'), // the preset: every stack, Scalable the control
];
const measures = {
  efficiency: { kind: 'activeSets', field: 'efficiency' },
  jain: { kind: 'activeSets', field: 'jain' },
  performance: { kind: 'activeSets', field: 'performance' },
  jainSecondHalf: { kind: 'metric', scope: 'group', id: 'jain.second_half' },
};

const runs = [];
for (const { id, summary, spec } of sources.flatMap(keptCompletedRuns)) {
  const flow = spec.flows[0];
  const row = { summary };
  const values = Object.fromEntries(Object.entries(measures).map(([k, m]) => [k, rowMeasure(m, row)]));
  runs.push({ id, stack: flow.stack, flows: flow.count ?? 1, seed: summary.seed, verdict: summary.verdict, ...values });
}

const header = ['id', 'stack', 'flows', 'seed', 'verdict', ...Object.keys(measures)];
const csv = runs
  .filter((r) => r.stack === 'scalable16' || r.stack === 'scalable')
  .map((r) => header.map((h) => (typeof r[h] === 'number' && !Number.isInteger(r[h]) ? r[h].toFixed(4) : r[h])).join(','));
writeFileSync(join(here, 'scalable16-results.csv'), `${[header.join(','), ...csv].join('\n')}\n`);

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const of = (stack, flows) => runs.filter((r) => r.stack === stack && (flows === undefined || r.flows === flows));
const counts = [...new Set(of('scalable16').map((r) => r.flows))]
  .filter((c) => of('scalable', c).length > 0)
  .sort((a, b) => a - b);
const f3 = (x) => x.toFixed(3);

console.log(`runs: scalable16 ${of('scalable16').length}, Scalable ${of('scalable').length}`);
console.log('flows  n  perf scalable16 | Scalable   jain scalable16 | Scalable   efficiency scalable16 | Scalable');
for (const c of counts) {
  const a = of('scalable16', c);
  const b = of('scalable', c);
  const m = (rs, k) => f3(mean(rs.map((r) => r[k])));
  console.log(
    `${String(c).padStart(5)} ${String(a.length).padStart(2)}  ${m(a, 'performance')} | ${m(b, 'performance')}        ${m(a, 'jain')} | ${m(b, 'jain')}        ${m(a, 'efficiency')} | ${m(b, 'efficiency')}`,
  );
}

if (counts.length === 0) {
  console.log('no scalable16 run with a control yet');
  process.exit(0);
}

// The difference in mean performance, balanced over flow counts: each count's runs are resampled
// within that count, so a count with more runs does not weigh more.
// Both campaigns seed repetition r with r, so when every cell has every seed the replicates draw
// whole seeds (paired), as the preset's comparisons do.
const cells = counts.flatMap((c) => [of('scalable16', c), of('scalable', c)]);
const strata = cells.map((rs) => rs.map((r) => r.performance));
const blocks = cells.map((rs) => rs.map((r) => r.seed));
const balancedDiff = (gs) => mean(counts.map((_, i) => mean(gs[2 * i]) - mean(gs[2 * i + 1])));
// With 3 seeds a paired replicate is one of few seed draws, so the unpaired interval (runs
// resampled within each cell) is printed too: the wider of the two is the one to quote.
const unit = (x) => (x.paired ? 'paired by seed' : 'runs resampled within each cell');
for (const opts of [{ blocks }, {}]) {
  const ci = smallSampleCi(strata, balancedDiff, { seed: seedFromText('scalable16-vs-scalable'), ...opts });
  console.log(
    `performance, scalable16 − Scalable, mean over ${counts.length} flow counts: ${f3(ci.estimate)} (95 % CI, bootstrap ∪ jackknife t, ${f3(ci.low)} to ${f3(ci.high)}, ${unit(ci)})`,
  );
}

// Where scalable16 would stand in the overall ordering: every stack's mean performance over all runs.
const stacks = [...new Set(runs.map((r) => r.stack))];
const ranked = stacks
  .map((s) => ({ s, m: mean(of(s).map((r) => r.performance)), n: of(s).length }))
  .sort((a, b) => b.m - a.m);
console.log(`overall by mean performance: ${ranked.map((x) => `${x.s} ${f3(x.m)} (n=${x.n})`).join(' > ')}`);
