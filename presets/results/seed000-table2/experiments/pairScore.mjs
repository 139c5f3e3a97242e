// What the pair experiments' scoring scripts share: the results CSV and Jain's index of a set of
// runs with its 95 % interval (bootstrap ∪ jackknife t, bounded to [0.5, 1] as two flows bound it).
import { writeFileSync } from 'node:fs';
import { mean, smallSampleCi } from '@lfnlab/metrics';

/**
 * A kept run of two flows as a results row: its id, `fields` (what the experiment varies), then the
 * window, seed, verdict, Jain's index and both flows' goodputs, faster first. `faster` and `slower`
 * are the flows' summaries, for the columns an experiment adds after these.
 */
export function pairRow({ id, summary, spec }, fields) {
  const [faster, slower] = [...summary.flows].sort((x, y) => y.goodputMbps.wholeRun - x.goodputMbps.wholeRun);
  const row = {
    id,
    ...fields,
    window: spec.flows[0].window?.bdp, // in BDPs
    seed: summary.seed,
    verdict: typeof summary.verdict === 'string' ? summary.verdict : summary.verdict?.verdict,
    jain: summary.paths[0].jain.forward,
    fasterMbps: faster.goodputMbps.wholeRun,
    slowerMbps: slower.goodputMbps.wholeRun,
  };
  return { row, faster, slower };
}

/** One row per run, the columns in the order of the first run's fields; fractions to 4 decimals. */
export function writeResults(file, runs) {
  const header = Object.keys(runs[0] ?? {});
  const fmt = (v) => (typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(4) : v);
  writeFileSync(file, `${[header.join(','), ...runs.map((r) => header.map((h) => fmt(r[h])).join(','))].join('\n')}\n`);
}

/** "Jain 0.992 (n = 3, 0.978 to 1.000; runs 0.988, 0.990, 0.999)" over runs carrying `jain`. */
export function jainText(rs) {
  const ci = smallSampleCi([rs.map((r) => r.jain)], (g) => mean(g[0]), { bounds: [0.5, 1] });
  return `Jain ${mean(rs.map((r) => r.jain)).toFixed(3)} (n = ${rs.length}, ${
    ci ? `${ci.low.toFixed(3)} to ${ci.high.toFixed(3)}` : 'no interval'
  }; runs ${rs.map((r) => r.jain.toFixed(3)).join(', ')})`;
}
