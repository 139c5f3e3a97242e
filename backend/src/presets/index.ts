// Paper presets: campaign files that redo the seed papers' experiments at the lab's scale, with the
// papers' numbers and claims beside ours.
export {
  presetForCi,
  presetForReproduction,
  shortenedName,
  shortenForCi,
  shortestValidLength,
} from './ci.js';
export {
  type CellComparison,
  comparePreset,
  type Finding,
  formatComparison,
  type PresetComparison,
  paperLabel,
} from './compare.js';
export {
  type LoadedPresets,
  loadPresets,
  loadPresetsWithOrphans,
  PRESETS_DIR,
  type Preset,
  PresetError,
  type PresetPart,
  parsePreset,
} from './load.js';
export { equivalentCount, type PresetRow } from './measure.js';
export { hasPresetRows, readPresetRows } from './rows.js';
export {
  type DimensionlessGroup,
  type PresetScaling,
  presetScaling,
  scalingGroups,
  unexplainedGroups,
} from './scaling.js';
export * from './schema.js';
export { ALPHA, MIN_RUNS, nText, type Verdict, type VerdictTest, verdictOf } from './verdict.js';
