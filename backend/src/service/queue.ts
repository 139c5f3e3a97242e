// The run queue: runs for one lab go one at a time, in order. The interface is what a BullMQ queue
// on Redis offers too (job data is plain JSON, cancellation is by id and asynchronous, the worker
// is a function of the job and an abort signal), so a multi-host queue can replace the in-process
// one without the service changing.
import { EventEmitter } from 'node:events';

/** Everything a worker needs, as plain JSON: no closures, no handles, no class instances. */
export interface RunJob {
  runId: string;
  lab: string;
  owner: string;
  /** The run directory (on a shared file system when workers are on other hosts). */
  outDir: string;
  /** The spec as YAML/JSON text; the worker validates it again (as any remote worker would). */
  specText: string;
  preset: string | null;
  campaign: string | null;
}

export type JobHandler = (job: RunJob, signal: AbortSignal) => Promise<void>;

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
  /** Stop taking jobs; running ones are signalled and awaited. */
  close(): Promise<void>;
  on(event: 'failed', listener: (job: RunJob, err: Error) => void): this;
}

export class InProcessQueue extends EventEmitter implements RunQueue {
  private readonly waiting: RunJob[] = [];
  private readonly active = new Map<string, { job: RunJob; abort: AbortController; done: Promise<void> }>();
  private handler: JobHandler | null = null;
  private closed = false;

  async enqueue(job: RunJob): Promise<void> {
    if (this.closed) throw new Error('the queue is closed');
    // A copy through JSON: what a Redis-backed queue would store, so nothing in-process leaks in.
    this.waiting.push(JSON.parse(JSON.stringify(job)) as RunJob);
    this.pump();
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
