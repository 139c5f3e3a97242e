// What running a preset costs before it starts: runs, lab seconds and the wall time they take
// (the queue's one formula, wallEstimate), for the CLI, which has no lab history: a dilated lab's
// usual pace and the default set-up per run.
import { SpecSchema } from '@lfnlab/emulator';
import { type Campaign, expandCampaign } from '../campaign/expand.js';
import { DILATED_PACE_ESTIMATE, type WallEstimate, wallEstimate } from '../service/queueEstimate.js';

export function campaignsCost(
  campaigns: readonly { campaign: Campaign }[],
  pace = DILATED_PACE_ESTIMATE,
): WallEstimate {
  const labSeconds = campaigns.flatMap(({ campaign }) =>
    expandCampaign(campaign).map((v) => {
      const r = SpecSchema.safeParse(v.spec);
      return r.success ? r.data.duration / 1000 : 0;
    }),
  );
  return wallEstimate(labSeconds, [], pace);
}

/** 45 s, 12 min, 3.4 h. */
export const formatWallS = (s: number) =>
  s >= 5400 ? `${(s / 3600).toFixed(1)} h` : s >= 120 ? `${Math.round(s / 60)} min` : `${Math.round(s)} s`;

/** "12 runs, 6 min of lab time, about 14 min wall (at 0.5 lab s per wall s, 20 s per run for set-up)". */
export function formatCost(c: WallEstimate): string {
  return `${c.runs} runs, ${formatWallS(c.labS)} of lab time, about ${formatWallS(c.wallS)} wall (at ${c.pace} lab s per wall s, ${c.overheadS} s per run for set-up)`;
}
