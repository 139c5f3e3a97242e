// Browser-safe sources shared with the CLI and service, imported from source (no build needed):
// the spec schema, the metric library's closed-form theory and metric registry, and the chart
// palette the HTML report uses too.
import { fileURLToPath } from 'node:url';

const at = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export const sharedAliases = {
  '@lfnlab/emulator/spec': at('../emulator/src/spec/index.ts'),
  '@lfnlab/emulator/sizing': at('../emulator/src/plan/sizing.ts'),
  '@lfnlab/metrics/theory': at('../backend/src/metrics/theory.ts'),
  '@lfnlab/metrics/registry': at('../backend/src/metrics/registry.ts'),
  '@lfnlab/report/palette': at('../backend/src/report/palette.ts'),
};
