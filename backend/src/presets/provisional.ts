// A reproduction under way judged on the runs it has kept so far (presets/results/NAME/progress),
// by the same tests the published comparison uses. Cells not run yet are simply not measured, so
// a claim over them stays inconclusive; the verdicts are provisional until every run is in.
import { join } from 'node:path';
import { comparePreset, type PresetComparison } from './compare.js';
import type { Preset } from './load.js';
import { hasPresetRows, readPresetRows } from './rows.js';

/** The comparison of the runs kept in `progressDir` (one campaign directory per part); null with none. */
export function provisionalComparison(preset: Preset, progressDir: string): PresetComparison | null {
  const rows = preset.parts.flatMap((part) => {
    const dir = join(progressDir, part.name);
    // The plan lists every variant; only those with a summary have run.
    return hasPresetRows(dir) ? readPresetRows(dir, part.name).filter((r) => r.summary) : [];
  });
  return rows.length ? comparePreset(preset, rows, preset.meta.reproduce?.seconds ?? null) : null;
}
