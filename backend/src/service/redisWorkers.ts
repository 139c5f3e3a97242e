// The working side of the Redis run queue: a BullMQ Worker per lab of this host (concurrency 1)
// running the service's handler, stop requests by pub/sub reaching the handler's abort signal, and
// a close that cannot hang on a Redis that restarted. With a pool of local labs (`lfnlab worker
// --labs N`) each queue's Worker may hold N jobs, every job gets a free local lab, and the Workers
// pause while all labs are busy; a job one of them took in that moment goes back to its queue
// with its priority, for another worker to run.
import { type Job, WaitingError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { LAB_NAME } from './labDriver.js';
import type { JobHandler, RunJob } from './queue.js';
import { type HostKeys, queueNameOf } from './redisKeys.js';
import { redisUrlForDisplay } from './redisUrl.js';

export interface LabWorkersOptions {
  url: string;
  hostId: string;
  keys: HostKeys;
  handler: JobHandler;
  /** The host's labs with a queue, read on the given connection. */
  labs: (conn: Redis) => Promise<string[]>;
  onFailed: (job: RunJob, err: Error) => void;
  log: (line: string) => void;
  /** This process's own labs: jobs of every queue share them, one job per lab. */
  slots?: LabPool;
}

/** What the workers need of a pool of local labs (see worker/labSlots.ts). */
export interface LabPool {
  readonly size: number;
  readonly free: number;
  take(runId: string): string | null;
  give(lab: string): void;
  on(event: 'change', listener: () => void): unknown;
}

export class RedisLabWorkers {
  /** BullMQ's workers block on Redis; retrying a command for ever (null) is what they require. */
  private readonly conn: Redis;
  private readonly subscriber: Redis;
  private readonly workers = new Map<string, Worker>();
  /** Jobs this process is running, by run id: what a stop request aborts. */
  private readonly running = new Map<string, AbortController>();
  /** Their handlers, which close() waits for. */
  private readonly handlers = new Set<Promise<void>>();
  /** Jobs whose end BullMQ has not recorded yet (moved to completed or failed), by run id. */
  private readonly unrecorded = new Map<string, { recorded: Promise<void>; resolve: () => void }>();
  private closed = false;

  constructor(private readonly o: LabWorkersOptions) {
    this.conn = new Redis(o.url, { maxRetriesPerRequest: null });
    this.conn.on('error', (err) => o.log(`redis (workers) ${redisUrlForDisplay(o.url)}: ${err.message}`));
    const sub = this.conn.duplicate();
    sub.on('error', (err) => o.log(`redis (stop requests): ${err.message}`));
    sub.on('message', (channel: string, message: string) => {
      if (channel === o.keys.cancelChannel) this.running.get(message)?.abort();
      else if (channel === o.keys.newLabChannel && LAB_NAME.test(message)) this.start(message);
    });
    this.subscriber = sub;
    o.slots?.on('change', () => this.gate());
    // Subscribed first, listed second: a lab that gets its first job in between is in one or both.
    void sub
      .subscribe(o.keys.cancelChannel, o.keys.newLabChannel)
      .then(() => o.labs(this.conn))
      .then((labs) => {
        for (const lab of labs) this.start(lab);
      })
      .catch((err) => o.log(`starting this host's workers: ${(err as Error).message}`));
  }

  /** A worker for the lab's queue, unless there is one. */
  start(lab: string): void {
    if (this.closed || this.workers.has(lab)) return;
    const { keys, handler } = this.o;
    const conn = this.conn;
    const slots = this.o.slots;
    const worker = new Worker(
      queueNameOf(this.o.hostId, lab),
      async (bj: Job, token?: string) => {
        const job = bj.data as RunJob;
        let local: string | undefined;
        if (slots) {
          const got = slots.take(job.runId);
          if (got === null) {
            // Taken while the last lab was being taken: back to its queue, its priority kept.
            await bj.moveToWait(token);
            throw new WaitingError();
          }
          local = got;
        }
        const abort = new AbortController();
        this.running.set(job.runId, abort);
        let resolve: () => void = () => undefined;
        const recorded = new Promise<void>((r) => {
          resolve = r;
        });
        this.unrecorded.set(job.runId, { recorded, resolve });
        try {
          if (await conn.get(keys.cancelKey(job.runId))) abort.abort();
          const done = handler(job, abort.signal, local);
          this.handlers.add(done);
          await done.finally(() => this.handlers.delete(done));
        } catch (err) {
          const e = err instanceof Error ? err : new Error(String(err));
          this.o.onFailed(job, e);
          throw e;
        } finally {
          this.running.delete(job.runId);
          if (local !== undefined) slots?.give(local);
          await conn.del(keys.cancelKey(job.runId)).catch(() => undefined);
        }
      },
      // A stalled job (its worker died) fails rather than running a second time.
      {
        connection: conn,
        concurrency: slots?.size ?? 1,
        maxStalledCount: 0,
        autorun: false,
      },
    );
    worker.on('error', (err) => this.o.log(`worker ${lab}: ${err.message}`));
    const recorded = (id: string | undefined) => {
      if (id === undefined) return;
      this.unrecorded.get(id)?.resolve();
      this.unrecorded.delete(id);
    };
    worker.on('completed', (j) => recorded(j.id));
    worker.on('failed', (j) => recorded(j?.id));
    this.workers.set(lab, worker);
    // With every local lab busy it starts paused; the gate starts it when one frees.
    if (!slots || slots.free > 0)
      worker.run().catch((err: Error) => this.o.log(`worker ${lab}: ${err.message}`));
  }

  /** Every Worker fetches while a local lab is free and none does while all are busy. */
  private gate(): void {
    const slots = this.o.slots;
    if (!slots || this.closed) return;
    for (const w of this.workers.values())
      if (slots.free === 0) void w.pause(true);
      else if (w.isPaused() || !w.isRunning()) void w.resume();
  }

  /** Running jobs are signalled and awaited, then the workers and their connections closed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const a of this.running.values()) a.abort();
    await Promise.allSettled(this.handlers);
    // Then BullMQ's record of their end, for at most 5 s. A graceful close() would wait for that
    // too, but after redis-server had restarted it waited for ever (the worker's main loop did not
    // end), which kept `lfnlab serve` from exiting; so close forcibly once the ends are recorded.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.unrecorded.values()].map((u) => u.recorded)),
      new Promise<void>((r) => {
        timer = setTimeout(r, 5000);
      }),
    ]);
    clearTimeout(timer);
    await Promise.allSettled([...this.workers.values()].map((w) => w.close(true)));
    for (const c of [this.subscriber, this.conn])
      if (c.status === 'ready') await c.quit().catch(() => c.disconnect());
      else c.disconnect();
  }
}
