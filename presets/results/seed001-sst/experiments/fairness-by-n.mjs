// seed001-sst's "overall" ordering taken apart: per stack and flow count n, Jain's index (F) and the
// link's use (E) over the whole run, mean of the kept runs, and the performance 0.2·E + 0.8·F the
// finding ranks by. With F weighted four times E, the ranking is mostly a ranking of fairness, and
// where in n each stack loses it says why. Reads only kept records, so it runs on a fresh clone
// after `npm run build`:
//   node presets/results/seed001-sst/experiments/fairness-by-n.mjs [PROGRESS_RUNS_DIR]
// Default: the reproduction's runs (../progress/main/runs); htcpdl-sst-progress/runs for that one.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keptCompletedRuns } from '../../../../backend/dist/campaign/progress.js';

const here = dirname(fileURLToPath(import.meta.url));
const runsDir = process.argv[2] ? resolve(process.argv[2]) : join(here, '..', 'progress', 'main', 'runs');
const COUNTS = [2, 4, 6, 8, 10, 12];
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

const cells = new Map();
for (const { summary, spec } of keptCompletedRuns(runsDir)) {
  const path = summary.paths[0];
  const F = path?.jain?.forward;
  const E = path?.utilisation?.forward;
  if (!Number.isFinite(F) || !Number.isFinite(E)) continue;
  const key = `${spec.flows[0].stack} ${spec.flows.length}`;
  cells.set(key, [...(cells.get(key) ?? []), { F, E }]);
}
const stacks = [...new Set([...cells.keys()].map((k) => k.split(' ')[0]))];
console.log(`${runsDir}\nper cell: F (Jain) / E (link use), mean of n runs; then the stack's means over n = 2..12`);
console.log(`${'stack'.padEnd(10)}${COUNTS.map((n) => `n = ${n}`.padEnd(17)).join('')}F      E      0.2E+0.8F`);
const rows = stacks.map((stack) => {
  const per = COUNTS.map((n) => cells.get(`${stack} ${n}`) ?? []);
  const F = mean(per.filter((c) => c.length).map((c) => mean(c.map((r) => r.F))));
  const E = mean(per.filter((c) => c.length).map((c) => mean(c.map((r) => r.E))));
  const text = per.map((c) =>
    (c.length ? `${mean(c.map((r) => r.F)).toFixed(3)}/${mean(c.map((r) => r.E)).toFixed(3)} (${c.length})` : '-').padEnd(17),
  );
  return { stack, F, E, P: 0.2 * E + 0.8 * F, text };
});
for (const r of rows.sort((a, b) => b.P - a.P))
  console.log(`${r.stack.padEnd(10)}${r.text.join('')}${r.F.toFixed(3)}  ${r.E.toFixed(3)}  ${r.P.toFixed(3)}`);
