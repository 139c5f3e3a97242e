// Reads the hstcplp-threshold campaign (default campaigns/hstcplp-threshold): per run, the module's
// own state as the TCP sampler saw it at 10 Hz: reactions over time, the threshold above d_min
// (and the d_max - d_min it implies at delta 15 %), the smoothed queueing delay, and how often the
// delay sat above the threshold; the bottleneck's backlog beside it.
//   node presets/results/seed000-table1/experiments/hstcplp-threshold.mjs [CAMPAIGN_DIR]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const campaign = process.argv[2] ?? join(here, '..', '..', '..', '..', 'campaigns', 'hstcplp-threshold');
const runs = join(campaign, 'runs');
if (!existsSync(runs)) {
  console.error(`no runs in ${runs}: lfnlab campaign run ${join(here, 'hstcplp-threshold.yaml')}`);
  process.exit(1);
}
const jsonl = (f) =>
  existsSync(f)
    ? readFileSync(f, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : Number.NaN;
};
for (const id of readdirSync(runs).sort()) {
  const dir = join(runs, id);
  const spec = existsSync(join(dir, 'spec.json')) ? JSON.parse(readFileSync(join(dir, 'spec.json'), 'utf8')) : null;
  const tcp = jsonl(join(dir, 'samples', 'tcp.jsonl')).filter((s) => s.flow === 'test' && s.t >= 0);
  const lp = tcp.filter((s) => s.vegasEnabled !== undefined);
  if (!spec || !lp.length) {
    console.log(`${id}: no module state in its samples (a run before the sampler's v2)`);
    continue;
  }
  const queue = jsonl(join(dir, 'samples', 'queue.jsonl')).filter(
    (s) => s.stage === 'bottleneck' && s.direction === 'forward' && s.t >= 0,
  );
  const last = lp[lp.length - 1];
  const thresholds = lp.map((s) => s.vegasMinrtt);
  const above = lp.filter((s) => s.vegasRtt > s.vegasMinrtt).length;
  const firstReaction = lp.find((s) => s.vegasRttcnt > 0);
  const delta = 15;
  console.log(
    `${id} (owd_newest ${spec.stackParams?.hstcplp?.owd_newest}): ${last.vegasRttcnt} reactions, the first at ${firstReaction?.t.toFixed(1) ?? '-'} s; ` +
      `threshold ${pct(thresholds, 0.5)} us median (${Math.min(...thresholds)} to ${Math.max(...thresholds)}), so d_max - d_min about ${((pct(thresholds, 0.5) * 100) / delta / 1000).toFixed(1)} ms; ` +
      `smoothed queueing delay median ${pct(
        lp.map((s) => s.vegasRtt),
        0.5,
      )} us, p90 ${pct(
        lp.map((s) => s.vegasRtt),
        0.9,
      )} us, above the threshold in ${above} of ${lp.length} samples; ` +
      `cwnd median ${pct(
        lp.map((s) => s.cwndPackets),
        0.5,
      )} packets; bottleneck backlog median ${pct(
        queue.map((q) => q.backlogPackets),
        0.5,
      )}, p99 ${pct(
        queue.map((q) => q.backlogPackets),
        0.99,
      )} packets`,
  );
}
