// SampleWriter: points into InfluxDB in order, in batches (by size and by time), and never lost.
// When InfluxDB does not answer, or answers 5xx, batches go to a spool on disk (spool.ts); a
// background retry replays the spool, oldest first, once InfluxDB answers again, and while there
// is a spool every newer batch joins it behind the older ones, so InfluxDB sees the order points
// were given in. A writer opened on a spool a previous process left replays it.
//
// Delivery is at least once: a write that timed out, or a segment acknowledged just before a crash,
// is sent again. InfluxDB keeps one point per series and timestamp, so a repeat stores nothing new.

import type { Sample } from '../run/samples.js';
import { durationNs, errorText, type InfluxClient, InfluxError, type RetentionPolicy } from './influx.js';
import { lineProtocol, type Point, type RunContext, samplePoint } from './points.js';
import { Spool } from './spool.js';

export interface SampleWriterOptions {
  client: Pick<InfluxClient, 'write' | 'ensureDatabase'>;
  database: string;
  /** Made the database's default (ensureDatabase) before the first write and after failures; writes name it. */
  retentionPolicy?: RetentionPolicy;
  spoolDir: string;
  /** A batch is sent when it has this many lines (default 5000)… */
  batchLines?: number;
  /** …or this long after its first line (default 200 ms). */
  batchMs?: number;
  /** Retry delay after a failed write, doubling to `retryMaxMs` (defaults 250 ms, 5 s). */
  retryMinMs?: number;
  retryMaxMs?: number;
  /** `ready()` waits while more sealed batches than this wait in memory (default 8). */
  maxQueuedBatches?: number;
  log?: (msg: string) => void;
}

export interface WriterStats {
  /** Points given to add(). */
  accepted: number;
  /** Points with no numeric field: no line, nothing to store. */
  empty: number;
  /** Lines InfluxDB acknowledged (replayed ones included). */
  written: number;
  /** Lines put in the spool. */
  spooled: number;
  /** Spooled lines InfluxDB later acknowledged. */
  replayed: number;
  /** Lines InfluxDB refused as malformed (4xx), or that could not be a line at all. Never retried. */
  rejected: number;
  /** Lines found in the spool when this writer opened it. */
  recovered: number;
  /** Lines not yet in InfluxDB: in memory, and in the spool. */
  pending: { memory: number; spool: number };
  spoolSegments: number;
  lastError: string | null;
}

type Outcome = { written: number; rejected: number } | { retry: Error };

/**
 * How many lines a 4xx says were refused: InfluxDB 1.x writes what it can and answers
 * `partial write: unable to parse '…': …\nunable to parse '…': … dropped=N` (dropped: beyond the
 * retention policy, or a field type conflict). Null when the answer does not say.
 */
export function refusedLines(message: string): number | null {
  const unparsed = message.split("unable to parse '").length - 1;
  const dropped = /dropped=(\d+)/.exec(message);
  const n = unparsed + (dropped ? Number(dropped[1]) : 0);
  return n > 0 ? n : null;
}

export class SampleWriter {
  private readonly batchLines: number;
  private readonly batchMs: number;
  private readonly retryMinMs: number;
  private readonly retryMaxMs: number;
  private readonly maxQueued: number;
  private readonly log: (msg: string) => void;
  private readonly counters = {
    accepted: 0,
    empty: 0,
    written: 0,
    spooled: 0,
    replayed: 0,
    rejected: 0,
    recovered: 0,
  };
  private lastError: string | null = null;

  private buffer: string[] = [];
  private batchTimer: NodeJS.Timeout | null = null;
  /** Sealed batches, oldest first, neither sent nor spooled yet. */
  private readonly queue: string[][] = [];
  private queuedLines = 0;
  private ensured = false;
  private retryDelay: number;
  private nextRetryAt = 0;
  private closing = false;
  private closed = false;
  private drainDeadline = 0;
  private wakeUp: (() => void) | null = null;
  private readonly waiters = new Set<() => void>();
  private loop: Promise<void> = Promise.resolve();

  private constructor(
    private readonly o: SampleWriterOptions,
    private readonly spool: Spool,
  ) {
    this.batchLines = o.batchLines ?? 5000;
    this.batchMs = o.batchMs ?? 200;
    this.retryMinMs = o.retryMinMs ?? 250;
    this.retryMaxMs = o.retryMaxMs ?? 5000;
    this.maxQueued = o.maxQueuedBatches ?? 8;
    this.log = o.log ?? ((m) => console.error(`influx writer: ${m}`));
    this.retryDelay = this.retryMinMs;
    this.counters.recovered = spool.lines;
  }

  /** Open the spool (replaying what a previous writer left there) and start writing. */
  static async open(o: SampleWriterOptions): Promise<SampleWriter> {
    if (o.retentionPolicy) durationNs(o.retentionPolicy.duration); // a bad duration fails here, not on every retry
    if (o.batchLines !== undefined && !(o.batchLines >= 1))
      throw new Error(`batchLines must be at least 1 (got ${o.batchLines})`);
    const spool = await Spool.open(o.spoolDir, {
      database: o.database,
      retentionPolicy: o.retentionPolicy?.name ?? null,
    });
    const w = new SampleWriter(o, spool);
    if (spool.lines > 0)
      w.log(`${spool.lines} lines in ${spool.size} segments left in ${spool.dir}: replaying`);
    w.loop = w.run();
    return w;
  }

  /** Take one point; it is written, spooled or counted as rejected from here on. */
  add(p: Point): void {
    if (this.closing) throw new Error('SampleWriter: add() after close()');
    this.counters.accepted += 1;
    const line = lineProtocol(p);
    if (line === null) {
      this.counters.empty += 1;
      return;
    }
    if (/[\r\n]/.test(line)) {
      // Line protocol cannot carry a line break in a tag; such a point would become two lines.
      this.counters.rejected += 1;
      this.log(`rejected a point with a line break in it: ${JSON.stringify(line).slice(0, 300)}`);
      return;
    }
    this.buffer.push(line);
    if (this.buffer.length >= this.batchLines) this.seal();
    else if (!this.batchTimer) this.batchTimer = setTimeout(() => this.seal(), this.batchMs);
  }

  addSample(ctx: RunContext, s: Sample): void {
    this.add(samplePoint(ctx, s));
  }

  stats(): WriterStats {
    return {
      ...this.counters,
      pending: { memory: this.buffer.length + this.queuedLines, spool: this.spool.lines },
      spoolSegments: this.spool.size,
      lastError: this.lastError,
    };
  }

  /** Resolves when few enough batches wait in memory: call it now and then when adding many points. */
  ready(): Promise<void> {
    return this.waitUntil(() => this.queue.length < this.maxQueued);
  }

  /** Everything added so far is in InfluxDB, rejected, or durably in the spool. */
  async flush(): Promise<void> {
    this.seal();
    await this.waitUntil(() => this.queue.length === 0);
  }

  /**
   * Everything added so far, and everything spooled, is in InfluxDB (or rejected). Retries at
   * once, then on the usual schedule; throws after `timeoutMs`.
   */
  async drain(timeoutMs = 30_000): Promise<void> {
    this.seal();
    this.nextRetryAt = 0;
    this.wake();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(`SampleWriter: not drained after ${timeoutMs} ms: ${JSON.stringify(this.stats())}`),
          ),
        timeoutMs,
      );
    });
    try {
      await Promise.race([this.waitUntil(() => this.queue.length === 0 && this.spool.size === 0), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Flush, then keep replaying the spool while InfluxDB takes it (up to `drainMs`, default 5 s),
   * then stop. What is still spooled stays for the next writer on this spool directory.
   */
  async close(opts: { drainMs?: number } = {}): Promise<void> {
    if (this.closed) return;
    this.seal();
    this.closing = true;
    this.drainDeadline = Date.now() + (opts.drainMs ?? 5000);
    this.wake();
    await this.loop;
    this.closed = true;
    this.spool.release();
    const s = this.stats();
    if (s.pending.spool > 0)
      this.log(
        `closed with ${s.pending.spool} lines in ${s.spoolSegments} segments spooled in ${this.spool.dir}`,
      );
  }

  private seal(): void {
    if (this.batchTimer) {
      clearTimeout(this.batchTimer);
      this.batchTimer = null;
    }
    if (this.buffer.length === 0) return;
    this.queue.push(this.buffer);
    this.queuedLines += this.buffer.length;
    this.buffer = [];
    this.wake();
  }

  private wake(): void {
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
  }

  /** Sleep until woken (a new batch, drain, close) or `ms` passed; the timer keeps no process alive. */
  private sleep(ms: number | null): Promise<void> {
    return new Promise((resolve) => {
      let t: NodeJS.Timeout | undefined;
      this.wakeUp = () => {
        clearTimeout(t);
        resolve();
      };
      if (ms !== null) {
        t = setTimeout(() => this.wake(), Math.max(0, ms));
        t.unref();
      }
    });
  }

  private waitUntil(cond: () => boolean): Promise<void> {
    if (cond()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (cond()) {
          this.waiters.delete(check);
          resolve();
        }
      };
      this.waiters.add(check);
    });
  }

  private notify(): void {
    for (const check of [...this.waiters]) check();
  }

  private failed(err: Error): void {
    this.lastError = err.message;
    this.nextRetryAt = Date.now() + this.retryDelay;
    this.retryDelay = Math.min(this.retryDelay * 2, this.retryMaxMs);
  }

  private succeeded(): void {
    if (this.lastError !== null && this.retryDelay > this.retryMinMs) this.log('InfluxDB takes writes again');
    this.retryDelay = this.retryMinMs;
    this.nextRetryAt = 0;
  }

  /** The one worker: sends or spools the queue and replays the spool, strictly oldest first. */
  private async run(): Promise<void> {
    for (;;) {
      try {
        if (this.spool.size > 0 || (this.queue.length > 0 && Date.now() < this.nextRetryAt)) {
          // A backlog: newer batches go behind it, on disk, so none is sent before older ones.
          if (this.queue.length > 0) {
            await this.spoolQueue();
            continue;
          }
          const due = Date.now() >= this.nextRetryAt;
          if (this.closing && (!due || Date.now() >= this.drainDeadline)) return;
          if (!due) {
            await this.sleep(this.nextRetryAt - Date.now());
            continue;
          }
          const segs = this.spool.oldest(this.batchLines);
          const lines: string[] = [];
          for (const seg of segs) lines.push(...(await this.spool.read(seg)));
          if (lines.length === 0) {
            await this.spool.removeOldest(segs.length);
            continue;
          }
          const r = await this.send(lines);
          if ('retry' in r) {
            this.failed(r.retry);
            continue;
          }
          await this.spool.removeOldest(segs.length);
          this.counters.written += r.written;
          this.counters.replayed += r.written;
          this.counters.rejected += r.rejected;
          this.succeeded();
        } else if (this.queue.length > 0) {
          const batch = this.queue[0] as string[];
          const r = await this.send(batch);
          if ('retry' in r) {
            this.log(`InfluxDB does not take writes (${r.retry.message}); spooling to ${this.spool.dir}`);
            this.failed(r.retry);
            await this.spoolQueue();
            continue;
          }
          this.queue.shift();
          this.queuedLines -= batch.length;
          this.counters.written += r.written;
          this.counters.rejected += r.rejected;
          this.succeeded();
        } else {
          if (this.closing) return;
          this.notify();
          await this.sleep(null);
        }
      } catch (err) {
        // The spool's disk failed (full, read-only): keep the batches in memory and try again.
        const e = err instanceof Error ? err : new Error(String(err));
        this.log(`spool ${this.spool.dir}: ${e.message}`);
        this.failed(e);
        if (this.closing && Date.now() >= this.drainDeadline) {
          if (this.queuedLines > 0)
            this.log(`closing with ${this.queuedLines} lines neither written nor spooled`);
          return;
        }
        await this.sleep(this.nextRetryAt - Date.now());
      } finally {
        this.notify();
      }
    }
  }

  /** Move every queued batch to the spool, in order, merged into batches of up to batchLines. */
  private async spoolQueue(): Promise<void> {
    const n = this.queue.length;
    const lines = this.queue.slice(0, n).flat();
    for (let i = 0; i < lines.length; i += this.batchLines) {
      await this.spool.append(lines.slice(i, i + this.batchLines));
    }
    this.queue.splice(0, n);
    this.queuedLines -= lines.length;
    this.counters.spooled += lines.length;
  }

  private async send(lines: string[]): Promise<Outcome> {
    const rp = this.o.retentionPolicy;
    if (rp && !this.ensured) {
      try {
        await this.o.client.ensureDatabase(this.o.database, rp);
        this.ensured = true;
      } catch (err) {
        return { retry: err instanceof Error ? err : new Error(String(err)) };
      }
    }
    try {
      await this.o.client.write(this.o.database, lines, rp?.name);
      return { written: lines.length, rejected: 0 };
    } catch (err) {
      if (!(err instanceof InfluxError))
        return { retry: err instanceof Error ? err : new Error(String(err)) };
      if (err.retryable) {
        this.ensured = false;
        return { retry: err };
      }
      const message = errorText(err.body);
      if (err.status === 413 && lines.length > 1) return this.split(lines);
      const refused = refusedLines(message);
      if (refused !== null && refused <= lines.length) {
        this.log(
          `InfluxDB refused ${refused} of ${lines.length} lines (HTTP ${err.status}): ${message.slice(0, 1000)}`,
        );
        return { written: lines.length - refused, rejected: refused };
      }
      // The answer does not say which lines: halve until it does (resending is harmless).
      if (lines.length > 1) return this.split(lines);
      this.log(
        `InfluxDB refused a line (HTTP ${err.status}): ${message.slice(0, 500)}: ${lines[0]?.slice(0, 300)}`,
      );
      return { written: 0, rejected: 1 };
    }
  }

  private async split(lines: string[]): Promise<Outcome> {
    const mid = Math.ceil(lines.length / 2);
    const a = await this.send(lines.slice(0, mid));
    if ('retry' in a) return a;
    const b = await this.send(lines.slice(mid));
    if ('retry' in b) return b;
    return { written: a.written + b.written, rejected: a.rejected + b.rejected };
  }
}
