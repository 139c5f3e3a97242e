// Browser-safe sources shared with the CLI and service, imported from source (no build needed):
// the spec schema, the entry points the metric library's package (@lfnlab/metrics) exports for
// its closed-form theory and metric registry, the chart palette the HTML report uses too, and
// how a preset's finding is decided (verdict words, n), and how a preset's runs are picked.
// TypeScript resolves @lfnlab/metrics through the package itself (a project reference), so the
// two aliases below can name only what its exports map offers.
import { fileURLToPath } from 'node:url';

const at = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export const sharedAliases = {
  '@lfnlab/emulator/spec': at('../emulator/src/spec/index.ts'),
  '@lfnlab/emulator/sizing': at('../emulator/src/plan/sizing.ts'),
  '@lfnlab/metrics/theory': at('../backend/metrics/src/theory.ts'),
  '@lfnlab/metrics/registry': at('../backend/metrics/src/registry.ts'),
  '@lfnlab/report/palette': at('../backend/src/report/palette.ts'),
  '@lfnlab/presets/verdict': at('../backend/src/presets/verdict.ts'),
  '@lfnlab/presets/pick': at('../backend/src/presets/pick.ts'),
};
