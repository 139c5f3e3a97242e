// The one way a run's record ends, however the run ended (completed, failed, stopped, never
// queued): saved with its outcome, then its live channel told and closed.
import type { LiveInput } from './liveHub.js';
import type { RunServiceDeps } from './runServiceDeps.js';
import type { Run, RunStatus, Verdict } from './types.js';

export interface RunEnding {
  status: RunStatus;
  verdict: Verdict | null;
  error: string | null;
  partial: boolean;
}

function publish(d: Pick<RunServiceDeps, 'hub'>, id: string, m: LiveInput) {
  d.hub.open(id).publish(m);
}

export function finishRun(d: Pick<RunServiceDeps, 'store' | 'hub'>, run: Run, o: RunEnding) {
  Object.assign(run, o, { finishedAt: new Date().toISOString() });
  if (o.status === 'completed') run.progress.elapsedS = run.progress.totalS;
  d.store.save(run);
  if (o.error && o.status !== 'completed')
    publish(d, run.id, { type: 'event', event: 'error', data: { error: o.error } });
  publish(d, run.id, {
    type: 'event',
    event: 'done',
    data: { status: run.status, verdict: run.verdict, error: run.error, partial: run.partial },
  });
  d.hub.ended(run.id);
}
