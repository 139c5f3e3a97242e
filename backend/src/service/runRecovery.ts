// What a previous process of the service left behind, settled at start: runs it left 'running'
// end as failed with their partial data (unless a worker's run is adopted), 'queued' ones queue
// again; later, runs whose job left the queue before they started queue again too.
import { ensureSummary } from './partialSummary.js';
import { finishRun } from './runEnd.js';
import { dirOf, jobOf, specTextOf } from './runFiles.js';
import type { RunServiceDeps } from './runServiceDeps.js';
import type { Run } from './types.js';
import { checkSpecText } from './validation.js';

type RecoveryDeps = Pick<RunServiceDeps, 'store' | 'queue' | 'hub' | 'log'>;

/** Ends the runs left running (or leaves them to their worker); returns those left queued. */
export async function settleLeftRuns(d: RecoveryDeps, adoptRunning: (run: Run) => boolean): Promise<Run[]> {
  const requeue: Run[] = [];
  for (const run of d.store.all()) {
    if (run.status === 'running' && run.host && adoptRunning(run)) {
      // Run by a worker, which may still be at it: it gets a grace period to report again.
    } else if (run.status === 'running') {
      const error = 'the service stopped while this run was running; what it recorded until then is kept';
      finishRun(d, run, { status: 'failed', verdict: null, error, partial: true });
      ensureSummary(dirOf(d.store, run), run.spec, 'failed', error);
      // Its job (in Redis) would otherwise hold the lab until its lock lapsed.
      await d.queue.abandon(run.id);
    } else if (run.status === 'queued') requeue.push(run);
  }
  return requeue;
}

/** Queues again, oldest first, the runs an earlier service left queued whose spec still checks. */
export async function requeueLeftRuns(d: RecoveryDeps, requeue: Run[]): Promise<void> {
  requeue.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  for (const run of requeue) {
    // Queued by an earlier service: its text is checked again, once, in case the schema changed.
    const text = specTextOf(d.store, run);
    const checked = checkSpecText(text, 'spec');
    if (!checked.ok) {
      finishRun(d, run, {
        status: 'failed',
        verdict: null,
        error: `spec no longer valid: ${checked.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
        partial: false,
      });
      continue;
    }
    await d.queue.enqueue(jobOf(d.store, run, text, checked.value));
  }
}

/**
 * Runs on workers: a queued run whose job is no longer in the queue (a worker took it and died,
 * or gave up on an unreachable service, before the run started) is queued again. Safe against a
 * job still held: enqueue adds nothing for a job that is waiting or active, and a worker may only
 * start a run that is queued.
 */
export async function requeueLostRuns(d: RecoveryDeps, olderThanMs: number): Promise<string[]> {
  const queued = d.store
    .all()
    .filter((r) => r.status === 'queued' && Date.now() - Date.parse(r.createdAt) > olderThanMs);
  if (!queued.length) return [];
  const held = new Set(
    [...(await d.queue.waitingJobs()), ...(await d.queue.runningJobs())].map((j) => j.runId),
  );
  const lost = queued.filter((r) => !held.has(r.id) && r.status === 'queued');
  for (const run of lost) {
    d.log(`[${run.id}] its job left the queue before the run started; queued again`);
    await d.queue.enqueue(jobOf(d.store, run, specTextOf(d.store, run), run.spec));
  }
  return lost.map((r) => r.id);
}
