// What running a preset costs before it starts: runs, lab seconds and the wall time they take
// (the queue's one formula, wallOfRuns). The CLI has no lab history, so a preset's own directory
// stands in for it: the runs a resumed preset already finished are left out of the cost, and
// their pace and set-up replace the defaults (a dilated lab's usual pace, the default set-up).
import { join } from 'node:path';
import { SpecSchema } from '@lfnlab/emulator';
import { type Campaign, expandCampaign } from '../campaign/expand.js';
import { completedSummary } from '../campaign/runCampaign.js';
import type { RunSummaryFile } from '../report/load.js';
import {
  DEFAULT_OVERHEAD_S,
  expectedDilatedPace,
  median,
  paceOfAll,
  type WallEstimate,
  wallOfRuns,
} from '../service/queueEstimate.js';

export interface PresetCost extends WallEstimate {
  /** Runs already completed in the preset's directory (left out of wallS). */
  done: number;
  /** Whether the set-up per run comes from runs done in one sitting there (else the default). */
  overheadFromHistory: boolean;
  /** Labs the runs done there ran on at once in their last sitting (1 without any). */
  labs: number;
}

/** Consecutive runs further apart than this were not one sitting (an interruption, a resume). */
const SAME_SITTING_S = 120;

/**
 * The completed runs under a preset's directory (`DIR/PART/runs/ID/summary.json`) and what they
 * took: their pace, as the lab seconds they were planned for over the wall seconds their traffic
 * took (summed, so a run that ended early, a transfer done, counts as the faster run it was, and
 * slow and fast runs weigh by their time), and the median wall time between the ends of two runs in
 * one sitting beyond the later one's traffic (reset, set-up, calibration, tear-down). A campaign
 * runs its variants in a random order, so the runs done so far stand for the rest.
 */
export function presetHistory(
  dir: string,
  campaigns: readonly { part: string; campaign: Campaign }[],
): { done: Set<string>; pace: number | null; overheadS: number | null; labs: number } {
  const done = new Set<string>();
  const runs: { start: number; end: number; trafficWallS: number; plannedS: number }[] = [];
  for (const { part, campaign } of campaigns)
    for (const v of expandCampaign(campaign)) {
      const s: RunSummaryFile | null = completedSummary(join(dir, part, 'runs', v.id));
      if (!s) continue;
      done.add(`${part}/${v.id}`);
      const start = Date.parse(s.startedAt ?? '');
      const end = Date.parse(s.finishedAt ?? '');
      const planned = SpecSchema.safeParse(v.spec);
      if (Number.isFinite(start) && Number.isFinite(end) && s.clock && planned.success)
        runs.push({ start, end, trafficWallS: s.clock.wallS, plannedS: planned.data.duration / 1000 });
    }
  runs.sort((a, b) => a.start - b.start);
  const trafficWallS = runs.reduce((a, r) => a + r.trafficWallS, 0);
  const plannedS = runs.reduce((a, r) => a + r.plannedS, 0);
  // The run before is the last one to end before this one started: on one lab the lab's previous
  // run, on several (runs overlapping) whichever lab freed up last, so the gap is still set-up.
  const overheads = runs.flatMap((r) => {
    const prevEnd = Math.max(...runs.filter((p) => p.end <= r.start).map((p) => p.end));
    return Number.isFinite(prevEnd) && (r.start - prevEnd) / 1000 <= SAME_SITTING_S
      ? [Math.max(0, (r.end - prevEnd) / 1000 - r.trafficWallS)]
      : [];
  });
  return {
    done,
    labs: labsAtOnce(runs),
    pace: trafficWallS > 0 ? Number((plannedS / trafficWallS).toFixed(2)) : null,
    overheadS: overheads.length ? Math.round(median(overheads)) : null,
  };
}

/**
 * How many runs were in flight at once in the last sitting (runs sorted by start; a sitting ends
 * where no run was in flight for SAME_SITTING_S): their summed wall time over the time any of them
 * ran, rounded. One lab gives 1 whatever the set-up between runs; N labs side by side give N.
 */
export function labsAtOnce(runs: readonly { start: number; end: number }[]): number {
  let sitting: { start: number; end: number }[] = [];
  let reach = Number.NEGATIVE_INFINITY;
  for (const r of runs) {
    if ((r.start - reach) / 1000 > SAME_SITTING_S) sitting = [];
    sitting.push(r);
    reach = Math.max(reach, r.end);
  }
  let busy = 0;
  let covered = Number.NEGATIVE_INFINITY;
  for (const r of sitting) {
    busy += Math.max(0, r.end - Math.max(r.start, covered));
    covered = Math.max(covered, r.end);
  }
  const summed = sitting.reduce((a, r) => a + (r.end - r.start), 0);
  return busy > 0 ? Math.max(1, Math.round(summed / busy)) : 1;
}

/**
 * The cost of a preset's (or a suite's) campaigns; with `dir`, of what is left of them there, at
 * the pace and set-up of the runs already done there when there are any. Before any, each run is
 * taken at the pace `pace` gives, or that a dilated lab is expected to keep at its rates; the pace
 * reported is then the one that gives the same total (lab seconds over the wall seconds they take).
 */
export function campaignsCost(
  campaigns: readonly { part?: string; campaign: Campaign }[],
  pace?: number,
  dir?: string,
): PresetCost {
  const named = campaigns.map((c, i) => ({ part: c.part ?? String(i), campaign: c.campaign }));
  const history = dir ? presetHistory(dir, named) : null;
  const runs = named.flatMap(({ part, campaign }) =>
    expandCampaign(campaign).map((v) => {
      const r = SpecSchema.safeParse(v.spec);
      return {
        key: `${part}/${v.id}`,
        labS: r.success ? r.data.duration / 1000 : 0,
        pace: pace ?? (r.success ? expectedDilatedPace(r.data) : 1),
      };
    }),
  );
  const left = runs.filter((r) => !history?.done.has(r.key));
  const usedPace = history?.pace ?? paceOfAll(left.length ? left : runs);
  const overheadS = history?.overheadS ?? DEFAULT_OVERHEAD_S;
  return {
    runs: runs.length,
    labS: runs.reduce((a, r) => a + r.labS, 0),
    wallS: wallOfRuns(
      left.map((r) => r.labS),
      usedPace,
      overheadS,
    ),
    pace: usedPace,
    overheadS,
    fromHistory: history?.pace != null,
    overheadFromHistory: history?.overheadS != null,
    labs: history?.labs ?? 1,
    done: runs.length - left.length,
  };
}

/** 45 s, 12 min, 3.4 h. */
export const formatWallS = (s: number) =>
  s >= 5400 ? `${(s / 3600).toFixed(1)} h` : s >= 120 ? `${Math.round(s / 60)} min` : `${Math.round(s)} s`;

/**
 * "12 runs, 6 min of lab time, about 14 min wall (at 0.5 lab s per wall s, 20 s per run for
 * set-up)"; once some are done: "…; 9 done, the other 27 about 1.9 h wall (at 0.24 lab s per wall s
 * and 14 s per run for set-up, as the runs done here took)", each figure said to be measured only
 * when it is.
 */
export function formatCost(c: WallEstimate & { done?: number; overheadFromHistory?: boolean }): string {
  const head = `${c.runs} runs, ${formatWallS(c.labS)} of lab time`;
  const done = c.done ?? 0;
  const pace = `${c.pace} lab s per wall s`;
  const setUp = `${c.overheadS} s per run for set-up`;
  const here = 'as the runs done here took';
  const at =
    c.fromHistory && c.overheadFromHistory
      ? `at ${pace} and ${setUp}, ${here}`
      : c.fromHistory
        ? `at ${pace}, ${here}, and ${setUp}`
        : `at ${pace}, ${setUp}`;
  if (done === 0) return `${head}, about ${formatWallS(c.wallS)} wall (${at})`;
  if (done === c.runs) return `${head}; all ${done} done`;
  return `${head}; ${done} done, the other ${c.runs - done} about ${formatWallS(c.wallS)} wall (${at})`;
}
