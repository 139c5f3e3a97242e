// Where a run's directory is, the spec text it was queued with, and the job the queue carries for
// it: needed alike when runs are first queued, requeued after a restart, and stopped.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Spec } from '@lfnlab/emulator';
import type { RunJob } from './queue.js';
import type { RunStore } from './runStore.js';
import type { Run } from './types.js';

export function dirOf(store: RunStore, run: Run): string {
  return store.dir(run.id) ?? store.dirFor(run.id);
}

/** The text the run was queued with (spec.yaml, written at enqueue; the driver writes the same). */
export function specTextOf(store: RunStore, run: Run): string {
  return readFileSync(join(dirOf(store, run), 'spec.yaml'), 'utf8');
}

export function jobOf(store: RunStore, run: Run, specText: string, spec: Spec): RunJob {
  return {
    runId: run.id,
    lab: run.lab,
    owner: run.owner,
    ownerId: run.ownerId,
    outDir: dirOf(store, run),
    specText,
    spec,
    preset: run.preset,
    campaign: run.campaign,
  };
}
