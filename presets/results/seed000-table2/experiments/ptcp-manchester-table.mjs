// Scores ptcp-manchester-softirq and ptcp-manchester-tcpmem (two flows of 16 Reno streams on the
// Manchester path) against their control, the reproduction's tries of the same cells on the lab
// image before either fix (../superseded/manchester): per run its verdict, the delay stage's
// spread (p99 − p1 of the added delay, ms, forward and reverse), the share of busy bottleneck
// dequeue gaps on time, lab CPU, Jain's index and the flows' goodputs. Reads only kept records, so
// it runs on a fresh clone after `npm run build`:
//   node presets/results/seed000-table2/experiments/ptcp-manchester-table.mjs
// Writes ptcp-manchester-results.csv beside it and prints a line per lab image and window.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keptCompletedRuns } from '../../../../backend/dist/campaign/progress.js';
import { jainText, pairRow, writeResults } from './pairScore.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const arms = [
  ['before', join(here, '..', 'superseded', 'manchester', 'runs')],
  ['before', join(here, '..', 'superseded', 'manchester', 'invalid')],
  ['softirq', join(here, 'ptcp-manchester-softirq-progress', 'runs')],
  ['softirq+tcpmem', join(here, 'ptcp-manchester-tcpmem-progress', 'runs')],
];

const measured = (summary, prefix) =>
  (summary.fidelity?.checks ?? []).filter((c) => c.id.startsWith(prefix)).map((c) => c.measured);

const runs = arms.flatMap(([lab, dir]) =>
  keptCompletedRuns(dir).map((kept) => {
    const { row } = pairRow(kept, { lab });
    const [jitterFwdMs, jitterRevMs] = ['delay-jitter:main:forward', 'delay-jitter:main:reverse'].map(
      (id) => measured(kept.summary, id)[0] ?? null,
    );
    return {
      ...row,
      jitterFwdMs,
      jitterRevMs,
      spacingFwd: measured(kept.summary, 'packet-spacing:main:forward')[0] ?? null,
      labCpuPct: measured(kept.summary, 'lab-cpu')[0] ?? null,
    };
  }),
);

writeResults(join(here, 'ptcp-manchester-results.csv'), runs);

const range = (xs, d) => {
  const v = xs.filter((x) => typeof x === 'number');
  return v.length ? `${Math.min(...v).toFixed(d)} to ${Math.max(...v).toFixed(d)}` : 'not measured';
};
for (const lab of ['before', 'softirq', 'softirq+tcpmem'])
  for (const w of [0.4, 0.8, 1.2]) {
    const rs = runs.filter((r) => r.lab === lab && r.window === w);
    if (!rs.length) continue;
    const valid = rs.filter((r) => r.verdict !== 'invalid');
    console.log(
      `${lab}, window ${w} BDP: ${valid.length} of ${rs.length} usable (${rs.map((r) => r.verdict).join('/')}); ` +
        `spread ${range([...rs.map((r) => r.jitterFwdMs), ...rs.map((r) => r.jitterRevMs)], 3)} ms, ` +
        `on-time gaps ${range(rs.map((r) => r.spacingFwd), 3)}, lab CPU ${range(rs.map((r) => r.labCpuPct), 0)} %, ` +
        `flows ${range([...rs.map((r) => r.fasterMbps), ...rs.map((r) => r.slowerMbps)], 1)} Mbit/s; ${jainText(rs)}`,
    );
  }
