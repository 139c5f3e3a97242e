// A run's series styles from its spec: flows by their stack (names as the service gives them).
import { flowLabel } from '@lfnlab/emulator/spec';
import type { Run } from '../api/types';
import { runSeriesStyles } from '../lib/colors';

export function runFlows(spec: Run['spec'] | undefined): { name: string; stack: string }[] {
  return (spec?.flows ?? []).map((f, i) => ({ name: flowLabel(f, i), stack: f.stack ?? f.transport }));
}

export const stylesOfRun = (spec: Run['spec'] | undefined) => runSeriesStyles(runFlows(spec));
