// The working side of the Redis run queue: a BullMQ Worker per lab of this host (concurrency 1)
// running the service's handler, stop requests by pub/sub reaching the handler's abort signal, and
// a close that cannot hang on a Redis that restarted.
import { type Job, Worker } from 'bullmq';
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
    const worker = new Worker(
      queueNameOf(this.o.hostId, lab),
      async (bj: Job) => {
        const job = bj.data as RunJob;
        const abort = new AbortController();
        this.running.set(job.runId, abort);
        let resolve: () => void = () => undefined;
        const recorded = new Promise<void>((r) => {
          resolve = r;
        });
        this.unrecorded.set(job.runId, { recorded, resolve });
        try {
          if (await conn.get(keys.cancelKey(job.runId))) abort.abort();
          const done = handler(job, abort.signal);
          this.handlers.add(done);
          await done.finally(() => this.handlers.delete(done));
        } catch (err) {
          const e = err instanceof Error ? err : new Error(String(err));
          this.o.onFailed(job, e);
          throw e;
        } finally {
          this.running.delete(job.runId);
          await conn.del(keys.cancelKey(job.runId)).catch(() => undefined);
        }
      },
      // A stalled job (its worker died) fails rather than running a second time.
      { connection: conn, concurrency: 1, maxStalledCount: 0 },
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
