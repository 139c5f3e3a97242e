// The presets not yet published at their reproduction length, and what is left of each: its runs,
// those already kept beside the results (a reproduction that spans sittings keeps each finished run
// in presets/results/NAME/progress) and the wall time the rest takes, at the pace of the runs kept
// there when there are any (and on as many labs at once as they lately ran on), and its findings
// judged provisionally on those runs. The summary lists them, so it says what has not been checked yet.
import { join } from 'node:path';
import { presetForReproduction } from './ci.js';
import { type PresetComparison, paperLabel } from './compare.js';
import { campaignsCost } from './cost.js';
import type { Preset } from './load.js';
import { provisionalComparison } from './provisional.js';

export interface PendingPreset {
  preset: string;
  /** As the published comparisons name it: `Short (seed NNN)`. */
  paper: string;
  claims: number;
  runs: number;
  /** Length of each run at the reproduction length, s. */
  seconds: number;
  repeat: number;
  /** Runs already kept in its progress directory. */
  done: number;
  /** Wall time of the runs left, s. */
  wallLeftS: number;
  /** Whether that is at the pace of the runs kept (else the default dilated pace). */
  paceMeasured: boolean;
  /** Labs the kept runs ran on at once, lately; the wall time left assumes as many. */
  labs: number;
  /** Its findings judged on the runs kept so far; null before the first (or when not asked to judge). */
  provisional: PresetComparison | null;
}

/** Where a reproduction that spans sittings keeps its finished runs (`preset run --progress`). */
export const progressDirOf = (resultsDir: string, preset: string) => join(resultsDir, preset, 'progress');

/** Every preset with a reproduction length that is not among `published`, in the presets' order. */
export function pendingPresets(
  presets: readonly Preset[],
  published: ReadonlySet<string>,
  resultsDir: string,
  /** Whether to judge the kept runs (`provisional`); a caller that caches the judgement does it itself. */
  judge = true,
): PendingPreset[] {
  return presets
    .filter((p) => p.meta.reproduce && !published.has(p.name))
    .map((p) => {
      const progress = progressDirOf(resultsDir, p.name);
      const cost = campaignsCost(presetForReproduction(p), undefined, progress);
      return {
        preset: p.name,
        paper: paperLabel(p),
        claims: p.meta.claims.length,
        runs: cost.runs,
        seconds: p.meta.reproduce?.seconds ?? 0,
        repeat: p.meta.reproduce?.repeat ?? 3,
        done: cost.done,
        wallLeftS: cost.wallS / cost.labs,
        paceMeasured: cost.fromHistory,
        labs: cost.labs,
        provisional: judge && cost.done ? provisionalComparison(p, progress) : null,
      };
    });
}
