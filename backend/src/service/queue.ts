// The run queue: runs for one lab go one at a time, taking turns across owners (round-robin: an
// owner's k-th waiting run goes after every other owner's k-th), so one person's campaign of 30
// runs cannot keep a class waiting for its whole length. Instructors and admins may move a waiting
// run (`move`); later arrivals are still placed by turns. The interface is what a BullMQ queue
// on Redis offers too (job data is plain JSON, cancellation is by id and asynchronous, the worker
// is a function of the job and an abort signal), so a multi-host queue can replace the in-process
// one without the service changing.
import { EventEmitter } from 'node:events';
import type { Spec } from '@lfnlab/emulator';

/** Everything a worker needs, as plain JSON: no closures, no handles, no class instances. */
export interface RunJob {
  runId: string;
  lab: string;
  owner: string;
  /** Whose turn this run is taken on (the owner's user id; older jobs without it use `owner`). */
  ownerId?: string;
  /** The run directory (on a shared file system when workers are on other hosts). */
  outDir: string;
  /** The spec as YAML/JSON text, recorded with the run (spec.yaml). */
  specText: string;
  /** The same spec validated and normalised once, when the run was queued (plain JSON). */
  spec: Spec;
  preset: string | null;
  campaign: string | null;
}

/**
 * Runs one job; `lab` is the lab of this process that got it when the process keeps a pool of its
 * own (`lfnlab worker --labs N`), else the job's lab.
 */
export type JobHandler = (job: RunJob, signal: AbortSignal, lab?: string) => Promise<void>;

export interface QueueCounts {
  waiting: number;
  active: number;
}

export interface RunQueue {
  enqueue(job: RunJob): Promise<void>;
  /**
   * 'removed': it was waiting and will never run; 'signalled': it is running and its worker was
   * asked to stop; 'unknown': the queue does not hold it.
   */
  cancel(runId: string): Promise<'removed' | 'signalled' | 'unknown'>;
  /** Start the worker; one job per lab at a time. */
  process(handler: JobHandler): void;
  counts(): Promise<QueueCounts>;
  /** Labs with a job running now. */
  activeLabs(): Promise<Set<string>>;
  /** Waiting jobs in the order they will start (each lab's jobs in its own order). */
  waitingJobs(): Promise<RunJob[]>;
  /** Jobs running now, one per busy lab. */
  runningJobs(): Promise<RunJob[]>;
  /**
   * Move a waiting job to just before `beforeRunId` (a waiting job of the same lab), or to the end
   * of its lab's line when null. False when either is not waiting (or they are on different labs).
   */
  move(runId: string, beforeRunId: string | null): Promise<boolean>;
  /**
   * The job of a run whose worker is known to be gone (an earlier process of this service, which
   * recorded the run as failed at start) leaves the queue without running again and frees its lab.
   */
  abandon(runId: string): Promise<void>;
  /** Stop taking jobs; running ones are signalled and awaited. */
  close(): Promise<void>;
  on(event: 'failed', listener: (job: RunJob, err: Error) => void): this;
}

const whose = (j: RunJob) => j.ownerId ?? j.owner;

export class InProcessQueue extends EventEmitter implements RunQueue {
  private readonly waiting: RunJob[] = [];
  private readonly active = new Map<string, { job: RunJob; abort: AbortController; done: Promise<void> }>();
  private handler: JobHandler | null = null;
  private closed = false;

  async enqueue(job: RunJob): Promise<void> {
    if (this.closed) throw new Error('the queue is closed');
    // A copy through JSON: what a Redis-backed queue would store, so nothing in-process leaks in.
    const copy = JSON.parse(JSON.stringify(job)) as RunJob;
    this.waiting.splice(this.fairSlot(copy), 0, copy);
    this.pump();
  }

  /**
   * Where a new job goes: its owner's turn number is how many of their jobs are running or waiting
   * on that lab; it goes after every waiting job of that lab whose own turn number is no larger,
   * and before the rest.
   */
  private fairSlot(job: RunJob): number {
    const running = this.active.get(job.lab)?.job;
    const turns = new Map<string, number>(running ? [[whose(running), 1]] : []);
    const turnOfNew =
      (turns.get(whose(job)) ?? 0) +
      this.waiting.filter((j) => j.lab === job.lab && whose(j) === whose(job)).length;
    let firstOfLab = -1;
    let lastNotLater = -1;
    this.waiting.forEach((j, i) => {
      if (j.lab !== job.lab) return;
      if (firstOfLab < 0) firstOfLab = i;
      const turn = turns.get(whose(j)) ?? 0;
      turns.set(whose(j), turn + 1);
      if (turn <= turnOfNew) lastNotLater = i;
    });
    if (lastNotLater >= 0) return lastNotLater + 1;
    return firstOfLab >= 0 ? firstOfLab : this.waiting.length;
  }

  async waitingJobs(): Promise<RunJob[]> {
    return this.waiting.map((j) => ({ ...j }));
  }

  async runningJobs(): Promise<RunJob[]> {
    return [...this.active.values()].map((a) => ({ ...a.job }));
  }

  async move(runId: string, beforeRunId: string | null): Promise<boolean> {
    if (runId === beforeRunId) return this.waiting.some((j) => j.runId === runId);
    const from = this.waiting.findIndex((j) => j.runId === runId);
    if (from < 0) return false;
    const job = this.waiting[from] as RunJob;
    if (beforeRunId !== null) {
      const target = this.waiting.find((j) => j.runId === beforeRunId);
      if (!target || target.lab !== job.lab) return false;
    }
    this.waiting.splice(from, 1);
    const to =
      beforeRunId === null ? this.waiting.length : this.waiting.findIndex((j) => j.runId === beforeRunId);
    this.waiting.splice(to, 0, job);
    return true;
  }

  async cancel(runId: string) {
    const i = this.waiting.findIndex((j) => j.runId === runId);
    if (i >= 0) {
      this.waiting.splice(i, 1);
      return 'removed' as const;
    }
    for (const a of this.active.values())
      if (a.job.runId === runId) {
        a.abort.abort();
        return 'signalled' as const;
      }
    return 'unknown' as const;
  }

  process(handler: JobHandler): void {
    this.handler = handler;
    this.pump();
  }

  async counts(): Promise<QueueCounts> {
    return { waiting: this.waiting.length, active: this.active.size };
  }

  async activeLabs(): Promise<Set<string>> {
    return new Set(this.active.keys());
  }

  /** Nothing outlives the process that ran it here. */
  async abandon(_runId: string): Promise<void> {}

  async close(): Promise<void> {
    this.closed = true;
    this.waiting.length = 0;
    for (const a of this.active.values()) a.abort.abort();
    await Promise.allSettled([...this.active.values()].map((a) => a.done));
  }

  /** Start the first waiting job of every lab that is idle. */
  private pump() {
    if (!this.handler || this.closed) return;
    for (let i = 0; i < this.waiting.length; ) {
      const job = this.waiting[i] as RunJob;
      if (this.active.has(job.lab)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      const abort = new AbortController();
      const handler = this.handler;
      const done = (async () => {
        try {
          await handler(job, abort.signal);
        } catch (err) {
          this.emit('failed', job, err instanceof Error ? err : new Error(String(err)));
        } finally {
          this.active.delete(job.lab);
          this.pump();
        }
      })();
      this.active.set(job.lab, { job, abort, done });
    }
  }
}
