// Browser-safe sources shared with the CLI and service, imported from source (no build needed):
// the spec schema and the metric library's closed-form theory and metric registry.
import { fileURLToPath } from 'node:url';

const at = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export const sharedAliases = {
  '@lfnlab/emulator/spec': at('../emulator/src/spec/index.ts'),
  '@lfnlab/metrics/theory': at('../backend/src/metrics/theory.ts'),
  '@lfnlab/metrics/registry': at('../backend/src/metrics/registry.ts'),
};
