// The life of a run in the service: checked and queued, run by a RunExecutor on this host's lab
// (or by an `lfnlab worker`, see workerRuns.ts) with its samples going to storage (full rate) and
// the live hub (downsampled), and always ended with a record saying what happened; a failed or
// stopped run also leaves the lab reset. At start, runs a previous process left 'running' end as
// failed with their partial data (runs on workers get a grace period); 'queued' ones queue again.
import { type ActiveRun, beginRun } from './activeRun.js';
import { ensureSummary } from './partialSummary.js';
import type { RunJob } from './queue.js';
import { finishRun } from './runEnd.js';
import { createPlannedRuns } from './runEnqueue.js';
import { outcomeOf } from './runExecutor.js';
import { dirOf } from './runFiles.js';
import { type RunFilter, visibleRuns } from './runFilter.js';
import { type PlannedRun, type RunInput, resolveRunInput } from './runInputs.js';
import { requeueLeftRuns, requeueLostRuns, settleLeftRuns } from './runRecovery.js';
import type { RunServiceDeps } from './runServiceDeps.js';
import { isActive, type PublicUser, type Run, ServiceError } from './types.js';

export type { ActiveRun } from './activeRun.js';
export type { RunFilter } from './runFilter.js';
export type { RunServiceDeps } from './runServiceDeps.js';

export class RunService {
  private readonly stopRequests = new Map<string, string>();
  /** Runs this process is working on; ends resolve their promise (tests and close() wait on them). */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly d: RunServiceDeps) {}

  /** Scan the runs directory, settle what a previous process left, start the worker. */
  async start(): Promise<void> {
    this.d.store.scan();
    const requeue = await settleLeftRuns(this.d, (run) => this.adoptRunning(run));
    if (this.d.executor) this.d.queue.process((job, signal) => this.work(job, signal));
    await requeueLeftRuns(this.d, requeue);
  }

  /** Queued runs whose job left the queue before they started, queued again (see runRecovery.ts). */
  requeueLost(olderThanMs: number): Promise<string[]> {
    return requeueLostRuns(this.d, olderThanMs);
  }

  visible(viewer: PublicUser, f: RunFilter = {}): Run[] {
    return visibleRuns(this.d.store.all(), this.d.access, viewer, f);
  }

  /** The run if `viewer` may see it; 404 otherwise (no hint that someone else's run exists). */
  get(viewer: PublicUser, id: string): Run {
    const run = this.d.store.get(id);
    if (!run || !this.d.access.canSee(viewer, run.ownerId)) throw new ServiceError(404, `no run ${id}`);
    return run;
  }

  dir(viewer: PublicUser, id: string): string {
    return dirOf(this.d.store, this.get(viewer, id));
  }

  async create(user: PublicUser, input: RunInput & { lab?: string }): Promise<Run[]> {
    const planned = await resolveRunInput(input, this.d.specs, (ownerId) =>
      this.d.access.canSee(user, ownerId),
    );
    return this.createPlanned(user, planned, input.lab);
  }

  /** Runs whose specs are already validated (resolveRunInput, or an assignment's spec): quota, then queue. */
  createPlanned(user: PublicUser, planned: PlannedRun[], lab?: string): Promise<Run[]> {
    return createPlannedRuns(this.d, user, planned, lab);
  }

  async stop(viewer: PublicUser, id: string): Promise<Run> {
    const run = this.get(viewer, id);
    if (!this.d.access.canControl(viewer, run.ownerId)) throw new ServiceError(404, `no run ${id}`);
    if (!isActive(run)) return run;
    this.stopRequests.set(id, viewer.username);
    const r = await this.d.queue.cancel(id);
    if (r !== 'signalled') {
      // Never started: nothing ran in the lab, but the record says who stopped it. (Running on a
      // worker whose job the queue no longer holds: the worker learns it from a 409.)
      this.stopRequests.delete(id);
      const error = `stopped by ${viewer.username}${run.status === 'queued' ? ' before it started' : ''}`;
      ensureSummary(dirOf(this.d.store, run), run.spec, 'aborted', error);
      finishRun(this.d, run, { status: 'aborted', verdict: null, error, partial: true });
    }
    return run;
  }

  /** Resolves when the run has ended (tests; immediately for runs not in this process). */
  settled(id: string): Promise<void> {
    return this.inFlight.get(id) ?? Promise.resolve();
  }

  private work(job: RunJob, signal: AbortSignal): Promise<void> {
    const p = this.execute(job, signal)
      // Whatever throws on the way (validation, planning, storage) ends the run as failed: a run
      // left "running" would hold its owner's quota for ever.
      .catch((err) => {
        const run = this.d.store.get(job.runId);
        const error = `the service could not run it: ${err instanceof Error ? err.message : String(err)}`;
        this.d.log(`[${job.runId}] ${error}`);
        if (run && (run.status === 'queued' || run.status === 'running'))
          finishRun(this.d, run, {
            status: 'failed',
            verdict: null,
            error,
            partial: run.status === 'running',
          });
      })
      .finally(() => this.inFlight.delete(job.runId));
    this.inFlight.set(job.runId, p);
    return p;
  }

  private async execute(job: RunJob, signal: AbortSignal): Promise<void> {
    const run = this.d.store.get(job.runId);
    if (run?.status !== 'queued' || !this.d.executor) return;
    // Validated once, when it was queued (resolveRunInput, or the restart check in runRecovery.ts).
    const active = beginRun(this.d, run, null);
    const driven = await this.d.executor.drive(job, signal, active.feed, (l) =>
      this.d.log(`[${run.id}] ${l.trim()}`),
    );
    let { status, error } = outcomeOf(driven, this.takeStopRequest(run.id));
    let summary = driven.summary;
    if (status !== 'completed')
      ({ summary, error } = await this.d.executor.settle(job, { status, error }, driven.plan));
    await active.end({ status, error }, summary);
  }

  /** Who asked to stop the run, if anyone (asked once: the request is then forgotten). */
  takeStopRequest(runId: string): string | undefined {
    const who = this.stopRequests.get(runId);
    this.stopRequests.delete(runId);
    return who;
  }

  /**
   * A queued run starts, on this service's lab (`host` null) or a worker's: its record says
   * running, and what it feeds goes to storage and the live hub. 409 unless it is queued, which
   * is what keeps a job from running twice.
   */
  startRun(runId: string, host: string | null): ActiveRun {
    const run = this.d.store.get(runId);
    if (!run) throw new ServiceError(404, `no run ${runId}`);
    if (run.status !== 'queued') throw new ServiceError(409, `run ${runId} is ${run.status}, not queued`);
    return beginRun(this.d, run, host);
  }

  /**
   * A run a worker was running when an earlier process of this service stopped: taken back as
   * running (record unchanged) if the workers' side wants it (WorkerRuns.adopt sets this).
   */
  adoptRunning: (run: Run) => boolean = () => false;

  /** An ActiveRun over a run already running (its worker reports again after a service restart). */
  resumeRun(run: Run): ActiveRun {
    return beginRun(this.d, run, run.host ?? null, true);
  }

  /** Stop taking work; runs in flight are aborted and recorded. */
  async close(): Promise<void> {
    await this.d.queue.close();
    await Promise.allSettled([...this.inFlight.values()]);
  }
}
