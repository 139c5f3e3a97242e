// Recorded runs judged again with today's checks, and (when asked) the new verdicts stored: in each
// run's summary.json (the old verdict noted under `rejudged`) and in its campaign's results. Shared by
// `lfnlab rejudge` and `lfnlab preset publish --rejudge`.
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readJson } from '../report/load.js';
import { type Rejudged, rejudgeRun } from '../run/rejudge.js';
import { type RejudgeNote, withIntervalStatsFromMetrics } from '../run/summary.js';
import { toCsv } from './resultsCsv.js';
import type { CampaignRow } from './runCampaign.js';

/**
 * summary.json with the new verdict and flow limits, the old verdict and what moved noted (nothing,
 * for a run judged again unchanged); the campaign's results row follows.
 */
export function storeRejudged(r: Rejudged, by: string): void {
  if (!r.after) return;
  const note: RejudgeNote = {
    at: new Date().toISOString(),
    by,
    previousVerdict: r.summary.verdict,
    changed: r.changed.map((c) => ({
      id: c.id,
      before: c.before?.status ?? null,
      after: c.after?.status ?? null,
    })),
    ...(r.metricsChanged?.length ? { metricsChanged: r.metricsChanged } : {}),
  };
  const limits = r.limits;
  // The flows' mean, σ and σ/μ repeat the run metrics, so they follow them when they are computed again.
  const summary = withIntervalStatsFromMetrics({
    ...r.summary,
    ...(r.metrics ? { metrics: r.metrics } : {}),
    flows: limits
      ? r.summary.flows.map((f) => ({ ...f, limitedBy: limits[f.name] ?? null }))
      : r.summary.flows,
    verdict: r.after.verdict,
    fidelity: r.after,
    rejudged: [...(r.summary.rejudged ?? []), note],
  });
  writeFileSync(join(r.dir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  // A campaign's runs/<id>/: its results.json and .csv carry the verdict too.
  const campaign = dirname(dirname(r.dir));
  const resultsFile = join(campaign, 'results.json');
  const rows = readJson<CampaignRow[]>(resultsFile);
  const row = rows?.find((x) => join(campaign, 'runs', x.id) === r.dir);
  if (rows && row) {
    row.verdict = r.after.verdict;
    writeFileSync(resultsFile, `${JSON.stringify(rows, null, 2)}\n`);
    writeFileSync(join(campaign, 'results.csv'), toCsv(rows));
  }
}

/** One run's outcome: judged again (with what moved), or why it could not be. */
export interface RejudgeOutcome {
  dir: string;
  result: Rejudged | null;
  /** Why the run was not judged again (unfinished, a record short of inputs, unreadable). */
  why: string | null;
}

export interface RejudgeTally {
  verdict: number;
  checks: number;
  same: number;
  unjudged: number;
  /** Runs whose metrics moved (or gained one) when computed again from their samples. */
  metrics: number;
}

/** Judges each run directory again; with `write`, stores each run judged (a note even when unchanged). */
export function rejudgeDirs(
  dirs: readonly string[],
  o: { write: boolean; by: string },
): { outcomes: RejudgeOutcome[]; tally: RejudgeTally } {
  const tally: RejudgeTally = { verdict: 0, checks: 0, same: 0, unjudged: 0, metrics: 0 };
  const outcomes = dirs.map((dir): RejudgeOutcome => {
    if (!existsSync(join(dir, 'summary.json'))) {
      tally.unjudged++;
      return { dir, result: null, why: 'the run has not finished (no summary.json)' };
    }
    let r: Rejudged;
    try {
      r = rejudgeRun(dir);
    } catch (err) {
      tally.unjudged++;
      return { dir, result: null, why: (err as Error).message };
    }
    if (!r.after) {
      tally.unjudged++;
      return { dir, result: r, why: r.why };
    }
    if (r.before?.verdict !== r.after.verdict) tally.verdict++;
    else if (r.changed.length) tally.checks++;
    else tally.same++;
    if (r.metricsChanged?.length) tally.metrics++;
    // An unchanged run is noted too: its verdict now stands on this version's checks.
    if (o.write) storeRejudged(r, o.by);
    return { dir, result: r, why: null };
  });
  return { outcomes, tally };
}

/** `3 changed verdict, 5 changed checks only, 12 unchanged, 1 could not be judged; metrics moved in 2` */
export function tallyText(t: RejudgeTally): string {
  return `${t.verdict} changed verdict, ${t.checks} changed checks only, ${t.same} unchanged${t.unjudged ? `, ${t.unjudged} could not be judged` : ''}${t.metrics ? `; metrics moved in ${t.metrics}` : ''}`;
}
