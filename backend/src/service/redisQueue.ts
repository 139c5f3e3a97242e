// The run queue on Redis with BullMQ (`lfnlab serve --queue redis://HOST:PORT`): the same RunQueue
// as the in-process one, so the service does not change. One BullMQ queue per lab, named from the
// lab host's id and the lab ("lfnlab.<host>.<lab>"), each worked with concurrency 1: a lab runs one
// experiment at a time and labs run in parallel, as in-process. Fairness is BullMQ's own priority
// order (lower first, first in first out within a priority): a job's priority is its owner's turn,
// 1 + the owner's jobs already waiting or running on that lab, fixed when it is queued. Waiting
// jobs survive a restart of the service or of redis-server (with its append-only file on); a job
// is never run twice (a stalled job fails instead of being retried: the service records the run).
import { EventEmitter } from 'node:events';
import { type Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { LAB_NAME } from './labDriver.js';
import type { JobHandler, QueueCounts, RunJob, RunQueue } from './queue.js';
import { defaultHostId, HOST_ID, type HostKeys, hostKeys, queueNameOf } from './redisKeys.js';
import { redisUrlForDisplay } from './redisUrl.js';
import { type LabPool, RedisLabWorkers } from './redisWorkers.js';

export { defaultHostId, queueNameOf };

/** BullMQ's largest priority. */
export const MAX_PRIORITY = 2_097_151;
/** How long a stop request for a job waits in Redis for the worker that picks the job up. */
const CANCEL_TTL_S = 3600;
/** The longest an enqueue, move, stop or abandon may take before it is reported as failed. */
const OPERATION_TIMEOUT_MS = 15_000;

export interface RedisQueueOptions {
  /** redis://HOST:PORT (rediss:// for TLS). */
  url: string;
  /** Names this lab host's queues; default: the host name (dots and other characters as "-"). */
  hostId?: string;
  log?: (line: string) => void;
  /**
   * One run at a time per lab queue across every process working it (default). False when the
   * queues are a pool that several `lfnlab worker` hosts work, each lab of each with concurrency 1.
   */
  oneRunPerLab?: boolean;
  /**
   * The working process's own labs (`lfnlab worker --labs N`): it takes up to N jobs at once from
   * all of the host's queues, one per local lab. Without it, one job per queue at a time.
   */
  slots?: LabPool;
}

const whose = (j: RunJob) => j.ownerId ?? j.owner;
const WAITING_STATES = new Set(['waiting', 'prioritized', 'delayed', 'paused', 'waiting-children']);

export class RedisRunQueue extends EventEmitter implements RunQueue {
  readonly hostId: string;
  /** Commands and producing: fails a command after a few reconnection attempts (a POST must not hang). */
  private readonly conn: Redis;
  private readonly keys: HostKeys;
  /** The working side, once process() is called. */
  private workers: RedisLabWorkers | null = null;
  private readonly queues = new Map<string, Queue>();
  /** Labs whose queue this object has set to one job at a time across all workers. */
  private readonly oneAtATime = new Set<string>();
  private closed = false;
  /** Enqueue, move and cancel one at a time, so turns are counted on a line nobody is changing. */
  private serial: Promise<unknown> = Promise.resolve();
  private readonly log: (line: string) => void;
  /** For messages: the password hidden. */
  private readonly url: string;
  private readonly connectUrl: string;
  private readonly oneRunPerLab: boolean;
  private readonly slots: LabPool | undefined;

  constructor(o: RedisQueueOptions) {
    super();
    this.hostId = o.hostId ?? defaultHostId();
    if (!HOST_ID.test(this.hostId))
      throw new Error(
        `host id "${this.hostId}": 1-63 letters, digits, "_" or "-", starting with a letter or digit`,
      );
    this.log = o.log ?? (() => undefined);
    this.oneRunPerLab = o.oneRunPerLab ?? true;
    this.slots = o.slots;
    this.url = redisUrlForDisplay(o.url);
    this.connectUrl = o.url;
    this.keys = hostKeys(this.hostId);
    // Reconnection attempts at most 1 s apart, so a command gives up within about 3 s when Redis
    // is away, and within 10 s when something answers that is not Redis (or not answering).
    this.conn = new Redis(o.url, {
      maxRetriesPerRequest: 3,
      retryStrategy: (n) => Math.min(n * 100, 1000),
      commandTimeout: 10_000,
    });
    this.conn.on('error', (err) => this.log(`redis ${this.url}: ${err.message}`));
  }

  /** Resolves once Redis answers a PING; rejects, naming the URL, when it does not within `ms`. */
  async ready(ms = 10_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer from Redis at ${this.url} within ${ms / 1000} s`)),
        ms,
      );
    });
    try {
      await Promise.race([
        this.conn.ping().catch((err: Error) => {
          throw new Error(`no answer from Redis at ${this.url}: ${err.message}`);
        }),
        late,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Whether queued runs survive a crash of redis-server: null when they do (append-only file on),
   * else what to change. Redis may refuse CONFIG (a managed server); that is said, not thrown.
   */
  async durabilityWarning(): Promise<string | null> {
    try {
      const reply = (await this.conn.config('GET', 'appendonly')) as string[];
      if (reply[1] === 'yes') return null;
      return 'redis-server runs without its append-only file: queued runs are lost if it crashes (set appendonly yes)';
    } catch (err) {
      return `could not read redis-server's appendonly setting (${(err as Error).message}); queued runs survive a crash only with appendonly yes`;
    }
  }

  /**
   * One at a time, each given at most `ms`: BullMQ waits for a connection that is not ready
   * however long it takes, and a request must get its answer (the next operation then goes on).
   */
  private locked<T>(f: () => Promise<T>): Promise<T> {
    const p = this.bounded(this.serial.then(f, f));
    this.serial = p.catch(() => undefined);
    return p;
  }

  private bounded<T>(run: Promise<T>, ms = OPERATION_TIMEOUT_MS): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms / 1000} s`)), ms);
    });
    return Promise.race([run, late]).finally(() => clearTimeout(timer));
  }

  private queueOf(lab: string): Queue {
    let q = this.queues.get(lab);
    if (!q) {
      q = new Queue(queueNameOf(this.hostId, lab), { connection: this.conn });
      q.on('error', (err) => this.log(`queue ${lab}: ${err.message}`));
      this.queues.set(lab, q);
    }
    return q;
  }

  /** Every lab of this host with a queue (also those another process of this host created). */
  private async labs(conn: Redis = this.conn): Promise<string[]> {
    const known = await conn.smembers(this.keys.labs);
    return [...new Set([...known, ...this.queues.keys()])].filter((l) => LAB_NAME.test(l)).sort();
  }

  async enqueue(job: RunJob): Promise<void> {
    if (this.closed) throw new Error('the queue is closed');
    if (!LAB_NAME.test(job.lab)) throw new Error(`lab "${job.lab}" is not a lab name`);
    const copy = JSON.parse(JSON.stringify(job)) as RunJob;
    await this.locked(async () => {
      // A plain command first: it fails within seconds when Redis is away, where BullMQ would wait.
      await this.conn.ping();
      const q = this.queueOf(copy.lab);
      if (!this.oneAtATime.has(copy.lab)) {
        // One run per lab even if two processes work the same host's queues by mistake; a pool of
        // worker hosts runs one per lab of each worker instead (a limit set earlier is lifted).
        if (this.oneRunPerLab) await q.setGlobalConcurrency(1);
        else await q.removeGlobalConcurrency();
        this.oneAtATime.add(copy.lab);
      }
      if ((await this.conn.sadd(this.keys.labs, copy.lab)) === 1)
        await this.conn.publish(this.keys.newLabChannel, copy.lab);
      const existing = await q.getJob(copy.runId);
      if (existing) {
        const state = await existing.getState();
        // A restarted service queues its queued runs again: Redis kept them, so nothing to add.
        if (WAITING_STATES.has(state) || state === 'active') return;
        await existing.remove();
      }
      const line = await q.getJobs(['active', 'prioritized', 'wait'], 0, -1, true);
      const turn = line.filter((j) => j?.data && whose(j.data as RunJob) === whose(copy)).length;
      await q.add('run', copy, {
        jobId: copy.runId,
        priority: Math.min(MAX_PRIORITY, turn + 1),
        attempts: 1,
        removeOnComplete: true,
        removeOnFail: true,
      });
    }).catch((err: Error) => {
      throw new Error(`the queue on Redis at ${this.url} failed: ${err.message}`);
    });
    this.workers?.start(copy.lab);
  }

  /** A lab's waiting jobs in the order BullMQ will hand them out. */
  private async line(lab: string): Promise<Job[]> {
    const q = this.queueOf(lab);
    // Every job has a priority, so all wait in the prioritized set; 'wait' is only ever empty.
    const [plain, prioritized] = await Promise.all([
      q.getJobs(['wait'], 0, -1, true),
      q.getJobs(['prioritized'], 0, -1, true),
    ]);
    return [...plain, ...prioritized].filter((j): j is Job => !!j);
  }

  async waitingJobs(): Promise<RunJob[]> {
    return this.bounded(
      (async () => {
        const out: RunJob[] = [];
        for (const lab of await this.labs()) for (const j of await this.line(lab)) out.push(j.data as RunJob);
        return out;
      })(),
    );
  }

  async runningJobs(): Promise<RunJob[]> {
    return this.bounded(
      (async () => {
        const out: RunJob[] = [];
        for (const lab of await this.labs())
          for (const j of await this.queueOf(lab).getActive()) if (j) out.push(j.data as RunJob);
        return out;
      })(),
    );
  }

  async counts(): Promise<QueueCounts> {
    return this.bounded(
      (async () => {
        let waiting = 0;
        let active = 0;
        for (const lab of await this.labs()) {
          const c = await this.queueOf(lab).getJobCounts('wait', 'prioritized', 'active');
          waiting += (c.wait ?? 0) + (c.prioritized ?? 0);
          active += c.active ?? 0;
        }
        return { waiting, active };
      })(),
    );
  }

  async activeLabs(): Promise<Set<string>> {
    return this.bounded(
      (async () => {
        const out = new Set<string>();
        for (const lab of await this.labs()) if ((await this.queueOf(lab).getActiveCount()) > 0) out.add(lab);
        return out;
      })(),
    );
  }

  /**
   * Before `beforeRunId`: the job takes that job's priority, and the jobs of that priority from
   * `beforeRunId` on are queued again behind it in their order (BullMQ appends a job whose
   * priority changes to the end of its priority). To the end: the line's largest priority.
   */
  async move(runId: string, beforeRunId: string | null): Promise<boolean> {
    return this.locked(async () => {
      for (const lab of await this.labs()) {
        const line = await this.line(lab);
        const job = line.find((j) => j.id === runId);
        if (!job) continue;
        if (runId === beforeRunId) return true;
        if (beforeRunId === null) {
          const last = Math.max(...line.map((j) => j.priority));
          await job.changePriority({ priority: last });
          return true;
        }
        const at = line.findIndex((j) => j.id === beforeRunId);
        const target = line[at];
        if (!target) return false;
        const priority = target.priority;
        await job.changePriority({ priority });
        for (const j of line.slice(at))
          if (j.id !== runId && j.priority === priority) await j.changePriority({ priority });
        return true;
      }
      return false;
    });
  }

  async cancel(runId: string): Promise<'removed' | 'signalled' | 'unknown'> {
    return this.locked(async () => {
      for (const lab of await this.labs()) {
        const job = await this.queueOf(lab).getJob(runId);
        if (!job) continue;
        let state = await job.getState();
        if (WAITING_STATES.has(state)) {
          let removed = false;
          try {
            await job.remove();
            removed = true;
          } catch {
            // A worker took it meanwhile (a locked job cannot be removed): signal it instead.
            state = await job.getState();
          }
          if (removed) {
            await this.giveBackTurn(lab, job);
            return 'removed' as const;
          }
        }
        if (state !== 'active') return 'unknown' as const;
        // The key covers a worker that has the job but has not started its handler yet.
        await this.conn.set(this.keys.cancelKey(runId), '1', 'EX', CANCEL_TTL_S);
        await this.conn.publish(this.keys.cancelChannel, runId);
        return 'signalled' as const;
      }
      return 'unknown' as const;
    });
  }

  /**
   * A dead worker's job stays active, and holds its lab (global concurrency 1), until its lock
   * lapses and a stalled check fails it (30-60 s). The service that knows the worker was its own
   * earlier process drops the lock and the job at once. (With workers on other hosts, the service
   * must first learn that the worker is gone: see the worker design notes.)
   */
  async abandon(runId: string): Promise<void> {
    await this.locked(async () => {
      for (const lab of await this.labs()) {
        const q = this.queueOf(lab);
        const job = await q.getJob(runId);
        if (!job) continue;
        await this.conn.del(q.toKey(`${runId}:lock`));
        await job
          .remove()
          .catch((err: Error) => this.log(`[${runId}] could not drop its job: ${err.message}`));
        return;
      }
    });
  }

  /**
   * A run taken out of the line never had the lab, so it costs its owner no turn: their later
   * waiting runs move up one priority, in their order (each goes to the end of its new priority).
   */
  private async giveBackTurn(lab: string, gone: Job) {
    const owner = whose(gone.data as RunJob);
    for (const j of await this.line(lab))
      if (whose(j.data as RunJob) === owner && j.priority > gone.priority && j.priority > 1)
        await j.changePriority({ priority: j.priority - 1 });
  }

  process(handler: JobHandler): void {
    if (this.workers || this.closed) return;
    this.workers = new RedisLabWorkers({
      url: this.connectUrl,
      hostId: this.hostId,
      keys: this.keys,
      handler,
      labs: (conn) => this.labs(conn),
      onFailed: (job, err) => this.emit('failed', job, err),
      log: this.log,
      slots: this.slots,
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.workers?.close();
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
    // QUIT waits for an answer a Redis that is away would never give: then just drop the socket.
    if (this.conn.status === 'ready') await this.conn.quit().catch(() => this.conn.disconnect());
    else this.conn.disconnect();
  }
}
