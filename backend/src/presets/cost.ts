// What running a preset costs before it starts: runs, lab seconds and the wall time they take at
// a lab's pace plus the per-run set-up and tear-down (the queue's estimate uses the same figures).
import { SpecSchema } from '@lfnlab/emulator';
import { type Campaign, expandCampaign } from '../campaign/expand.js';
import { DEFAULT_OVERHEAD_S } from '../service/queueEstimate.js';

/**
 * Lab seconds per wall second assumed for a dilated lab carrying traffic when no history says
 * otherwise: the Reno 50 Mbit/s lab test ran at 0.68–0.80 while busy (faster when idle).
 */
export const DILATED_PACE_ESTIMATE = 0.75;

export interface PresetCost {
  runs: number;
  /** Traffic time summed over runs, lab seconds. */
  labS: number;
  /** Expected wall time: labS / pace + runs × overhead. */
  wallS: number;
  paceUsed: number;
  overheadS: number;
}

export function campaignsCost(
  campaigns: readonly { campaign: Campaign }[],
  o: { pace?: number; overheadS?: number } = {},
): PresetCost {
  const pace = o.pace ?? DILATED_PACE_ESTIMATE;
  const overheadS = o.overheadS ?? DEFAULT_OVERHEAD_S;
  let runs = 0;
  let labS = 0;
  for (const { campaign } of campaigns)
    for (const v of expandCampaign(campaign)) {
      runs++;
      const r = SpecSchema.safeParse(v.spec);
      labS += r.success ? r.data.duration / 1000 : 0;
    }
  return { runs, labS, wallS: labS / pace + runs * overheadS, paceUsed: pace, overheadS };
}

/** 45 s, 12 min, 3.4 h. */
export const formatWallS = (s: number) =>
  s >= 5400 ? `${(s / 3600).toFixed(1)} h` : s >= 120 ? `${Math.round(s / 60)} min` : `${Math.round(s)} s`;

/** "41 runs, 41 min of lab time, about 1.3 h wall (at 0.75 lab s per wall s, 20 s per run set-up)". */
export function formatCost(c: PresetCost): string {
  const t = formatWallS;
  return `${c.runs} runs, ${t(c.labS)} of lab time, about ${t(c.wallS)} wall (at ${c.paceUsed} lab s per wall s, ${c.overheadS} s per run for set-up)`;
}
