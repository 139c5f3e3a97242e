// The life of a run in the service: checked and queued, run by a RunExecutor on this host's lab
// (or by an `lfnlab worker`, see workerRuns.ts) with its samples going to storage (full rate) and
// the live hub (downsampled), and always ended with a record saying what happened; a failed or
// stopped run also leaves the lab reset. At start, runs a previous process left 'running' end as
// failed with their partial data (runs on workers get a grace period); 'queued' ones queue again.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plan, Spec } from '@lfnlab/emulator';
import type { RunSummary } from '../run/summary.js';
import type { Storage } from '../storage/runStorage.js';
import type { Access } from './access.js';
import type { Accounts } from './accounts.js';
import { liveFeed } from './liveFeed.js';
import type { LiveHub, LiveInput } from './liveHub.js';
import { ensureSummary } from './partialSummary.js';
import { randomId } from './passwords.js';
import type { RunJob, RunQueue } from './queue.js';
import { enforceQuota } from './quotas.js';
import { outcomeOf, type RunExecutor, type RunFeed, type RunOutcome } from './runExecutor.js';
import { type PlannedRun, type RunInput, resolveRunInput } from './runInputs.js';
import { type RunStore, stacksOf } from './runStore.js';
import type { SpecStore } from './specStore.js';
import { isActive, type PublicUser, type Run, type RunStatus, ServiceError, type Verdict } from './types.js';
import { checkSpecText } from './validation.js';

export interface RunServiceDeps {
  store: RunStore;
  queue: RunQueue;
  /** Drives this host's labs; null when `lfnlab worker` processes run the jobs (no queue.process()). */
  executor: RunExecutor | null;
  hub: LiveHub;
  storage: Storage;
  accounts: Accounts;
  access: Access;
  specs: SpecStore;
  log: (line: string) => void;
  /**
   * The labs a run goes to when it names none (`lfnlab serve --labs N`: default, default-2 …):
   * each such run joins the shortest line. Default: the one lab 'default'.
   */
  pool?: readonly string[];
}

export interface RunFilter {
  owner?: string;
  stack?: string;
  preset?: string;
  verdict?: string;
  status?: string;
  campaign?: string;
  from?: string;
  to?: string;
}

/** A run that has started: where its data goes, and the one call that records how it ended. */
export interface ActiveRun {
  run: Run;
  feed: RunFeed;
  /** The run's plan, once the lab has built it. */
  plan(): Plan | undefined;
  /** Storage gets the summary, the record the outcome; later calls do nothing. */
  end(outcome: RunOutcome, summary: RunSummary | null): Promise<void>;
}

const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
const safeName = (s: string) => s.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 40);

export class RunService {
  private readonly stopRequests = new Map<string, string>();
  /** Runs this process is working on; ends resolve their promise (tests and close() wait on them). */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly d: RunServiceDeps) {}

  /** Scan the runs directory, settle what a previous process left, start the worker. */
  async start(): Promise<void> {
    this.d.store.scan();
    const requeue: Run[] = [];
    for (const run of this.d.store.all()) {
      if (run.status === 'running' && run.host && this.adoptRunning(run)) {
        // Run by a worker, which may still be at it: it gets a grace period to report again.
      } else if (run.status === 'running') {
        const error = 'the service stopped while this run was running; what it recorded until then is kept';
        this.finish(run, { status: 'failed', verdict: null, error, partial: true });
        ensureSummary(this.dirOf(run), run.spec, 'failed', error);
        // Its job (in Redis) would otherwise hold the lab until its lock lapsed.
        await this.d.queue.abandon(run.id);
      } else if (run.status === 'queued') requeue.push(run);
    }
    if (this.d.executor) this.d.queue.process((job, signal) => this.work(job, signal));
    requeue.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    for (const run of requeue) {
      // Queued by an earlier service: its text is checked again, once, in case the schema changed.
      const text = this.specTextOf(run);
      const checked = checkSpecText(text, 'spec');
      if (!checked.ok) {
        this.finish(run, {
          status: 'failed',
          verdict: null,
          error: `spec no longer valid: ${checked.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
          partial: false,
        });
        continue;
      }
      await this.d.queue.enqueue(this.jobOf(run, text, checked.value));
    }
  }

  /**
   * Runs on workers: a queued run whose job is no longer in the queue (a worker took it and died,
   * or gave up on an unreachable service, before the run started) is queued again. Safe against a
   * job still held: enqueue adds nothing for a job that is waiting or active, and a worker may only
   * start a run that is queued.
   */
  async requeueLost(olderThanMs: number): Promise<string[]> {
    const queued = this.d.store
      .all()
      .filter((r) => r.status === 'queued' && Date.now() - Date.parse(r.createdAt) > olderThanMs);
    if (!queued.length) return [];
    const held = new Set(
      [...(await this.d.queue.waitingJobs()), ...(await this.d.queue.runningJobs())].map((j) => j.runId),
    );
    const lost = queued.filter((r) => !held.has(r.id) && r.status === 'queued');
    for (const run of lost) {
      this.d.log(`[${run.id}] its job left the queue before the run started; queued again`);
      await this.d.queue.enqueue(this.jobOf(run, this.specTextOf(run), run.spec));
    }
    return lost.map((r) => r.id);
  }

  private dirOf(run: Run) {
    return this.d.store.dir(run.id) ?? this.d.store.dirFor(run.id);
  }

  /** The text the run was queued with (spec.yaml, written at enqueue; the driver writes the same). */
  private specTextOf(run: Run): string {
    return readFileSync(join(this.dirOf(run), 'spec.yaml'), 'utf8');
  }

  private jobOf(run: Run, specText: string, spec: Spec): RunJob {
    return {
      runId: run.id,
      lab: run.lab,
      owner: run.owner,
      ownerId: run.ownerId,
      outDir: this.dirOf(run),
      specText,
      spec,
      preset: run.preset,
      campaign: run.campaign,
    };
  }

  visible(viewer: PublicUser, f: RunFilter = {}): Run[] {
    const from = f.from ? Date.parse(f.from) : null;
    const to = f.to ? Date.parse(f.to) : null;
    return this.d.store
      .all()
      .filter((r) => this.d.access.canSee(viewer, r.ownerId))
      .filter((r) => !f.owner || r.owner === f.owner)
      .filter((r) => !f.stack || r.stacks.includes(f.stack))
      .filter((r) => !f.preset || r.preset === f.preset)
      .filter((r) => !f.verdict || r.verdict === f.verdict)
      .filter((r) => !f.status || r.status === f.status)
      .filter((r) => !f.campaign || r.campaign === f.campaign)
      .filter((r) => from === null || Date.parse(r.createdAt) >= from)
      .filter((r) => to === null || Date.parse(r.createdAt) <= to)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  /** The run if `viewer` may see it; 404 otherwise (no hint that someone else's run exists). */
  get(viewer: PublicUser, id: string): Run {
    const run = this.d.store.get(id);
    if (!run || !this.d.access.canSee(viewer, run.ownerId)) throw new ServiceError(404, `no run ${id}`);
    return run;
  }

  dir(viewer: PublicUser, id: string): string {
    return this.dirOf(this.get(viewer, id));
  }

  async create(user: PublicUser, input: RunInput & { lab?: string }): Promise<Run[]> {
    const planned = await resolveRunInput(input, this.d.specs, (ownerId) =>
      this.d.access.canSee(user, ownerId),
    );
    return this.createPlanned(user, planned, input.lab);
  }

  /** Runs whose specs are already validated (resolveRunInput, or an assignment's spec): quota, then queue. */
  async createPlanned(user: PublicUser, planned: PlannedRun[], lab?: string): Promise<Run[]> {
    const active = this.d.store.all().filter((r) => r.ownerId === user.id && isActive(r)).length;
    enforceQuota(
      planned.map((p) => p.spec),
      this.d.accounts.quotaOf(user),
      user.role,
      active,
    );
    const campaignId =
      planned.length > 1 || planned[0]?.campaign ? `${stamp(new Date())}-${randomId(3)}` : null;
    const runs: Run[] = [];
    for (const p of planned)
      runs.push(await this.enqueue(user, p, lab ?? (await this.shortestLine()), campaignId));
    return runs;
  }

  /** The pool's lab with the fewest runs waiting or running (the first of equals). */
  private async shortestLine(): Promise<string> {
    const pool = this.d.pool?.length ? this.d.pool : ['default'];
    if (pool.length === 1) return pool[0] as string;
    const load = new Map(pool.map((l) => [l, 0]));
    for (const j of [...(await this.d.queue.waitingJobs()), ...(await this.d.queue.runningJobs())])
      if (load.has(j.lab)) load.set(j.lab, (load.get(j.lab) ?? 0) + 1);
    return pool.reduce((best, l) => ((load.get(l) ?? 0) < (load.get(best) ?? 0) ? l : best));
  }

  private async enqueue(
    user: PublicUser,
    p: PlannedRun,
    lab: string,
    campaignId: string | null,
  ): Promise<Run> {
    const now = new Date();
    const id = `${stamp(now)}-${safeName(p.spec.name)}-${randomId(3).replace(/[-_]/g, 'x')}`;
    const run: Run = {
      id,
      name: p.name,
      label: p.label,
      owner: user.username,
      ownerId: user.id,
      status: 'queued',
      verdict: null,
      preset: p.preset,
      campaign: campaignId ? `${p.campaign ?? 'campaign'}@${campaignId}` : null,
      lab,
      stacks: stacksOf(p.spec),
      createdAt: now.toISOString(),
      startedAt: null,
      finishedAt: null,
      progress: { elapsedS: 0, totalS: p.spec.duration / 1000 },
      error: null,
      partial: false,
      spec: p.spec,
    };
    const dir = this.d.store.dirFor(id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'spec.yaml'), p.specText);
    this.d.store.save(run, dir);
    this.d.hub.open(id).publish({ type: 'event', event: 'queued', data: { lab } });
    try {
      await this.d.queue.enqueue(this.jobOf(run, p.specText, p.spec));
    } catch (err) {
      // A queue on Redis can be away: the run never queued, so its record says so at once.
      const error = `could not be queued: ${err instanceof Error ? err.message : String(err)}`;
      this.d.log(`[${id}] ${error}`);
      ensureSummary(dir, run.spec, 'failed', error);
      this.finish(run, { status: 'failed', verdict: null, error, partial: false });
      throw new ServiceError(503, `run ${id} ${error}; try again when the queue is back`);
    }
    return run;
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
      ensureSummary(this.dirOf(run), run.spec, 'aborted', error);
      this.finish(run, { status: 'aborted', verdict: null, error, partial: true });
    }
    return run;
  }

  /** Resolves when the run has ended (tests; immediately for runs not in this process). */
  settled(id: string): Promise<void> {
    return this.inFlight.get(id) ?? Promise.resolve();
  }

  private publish(id: string, m: LiveInput) {
    this.d.hub.open(id).publish(m);
  }

  private finish(
    run: Run,
    o: { status: RunStatus; verdict: Verdict | null; error: string | null; partial: boolean },
  ) {
    Object.assign(run, o, { finishedAt: new Date().toISOString() });
    if (o.status === 'completed') run.progress.elapsedS = run.progress.totalS;
    this.d.store.save(run);
    if (o.error && o.status !== 'completed')
      this.publish(run.id, { type: 'event', event: 'error', data: { error: o.error } });
    this.publish(run.id, {
      type: 'event',
      event: 'done',
      data: { status: run.status, verdict: run.verdict, error: run.error, partial: run.partial },
    });
    this.d.hub.ended(run.id);
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
          this.finish(run, { status: 'failed', verdict: null, error, partial: run.status === 'running' });
      })
      .finally(() => this.inFlight.delete(job.runId));
    this.inFlight.set(job.runId, p);
    return p;
  }

  private async execute(job: RunJob, signal: AbortSignal): Promise<void> {
    const run = this.d.store.get(job.runId);
    if (run?.status !== 'queued' || !this.d.executor) return;
    // Validated once, when it was queued (resolveRunInput, or the restart check above).
    const active = this.begin(run, null);
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
    return this.begin(run, host);
  }

  /**
   * A run a worker was running when an earlier process of this service stopped: taken back as
   * running (record unchanged) if the workers' side wants it (WorkerRuns.adopt sets this).
   */
  adoptRunning: (run: Run) => boolean = () => false;

  /** An ActiveRun over a run already running (its worker reports again after a service restart). */
  resumeRun(run: Run): ActiveRun {
    return this.begin(run, run.host ?? null, true);
  }

  private begin(run: Run, host: string | null, resumed = false): ActiveRun {
    if (!resumed) {
      run.status = 'running';
      run.startedAt = new Date().toISOString();
      if (host !== null) run.host = host;
      this.d.store.save(run);
    }
    const sink = this.d.storage.forRun({
      runId: run.id,
      user: run.owner,
      preset: run.preset,
      campaign: run.campaign,
    });
    const live = liveFeed(run, sink, this.d.hub.open(run.id));
    // Built once, by the driver, for the lab's clock: storage, the live feed and a partial summary
    // all take the run's flows from it.
    let plan: Plan | undefined;
    const feed: RunFeed = {
      onPlan: (p) => {
        plan = p;
        sink.onPlan(p);
        live.onPlan(p);
      },
      onSample: live.onSample,
      onEvent: live.onEvent,
      onProgress: live.onProgress,
    };
    let ended = false;
    return {
      run,
      feed,
      plan: () => plan,
      end: async (outcome, summary) => {
        if (ended) return;
        ended = true;
        if (summary)
          await sink
            .finish(summary)
            .catch((err) => this.d.log(`[${run.id}] storage: ${(err as Error).message}`));
        this.finish(run, {
          status: outcome.status,
          verdict: summary?.verdict ?? null,
          error: outcome.error,
          partial: outcome.status !== 'completed',
        });
      },
    };
  }

  /** Stop taking work; runs in flight are aborted and recorded. */
  async close(): Promise<void> {
    await this.d.queue.close();
    await Promise.allSettled([...this.inFlight.values()]);
  }
}
