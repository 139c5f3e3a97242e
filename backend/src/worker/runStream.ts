// A run's plan, samples, events and progress on their way from the worker's driver to the
// service: gathered into numbered batches every `everyMs` (an empty one too while nothing is
// pending: it tells the service the worker is alive), each written to the run's spool on disk
// and sent from there in order, one at a time, deleted once the service acknowledges it. While
// the service is away (down, restarting, unreachable) the run goes on and its batches wait on
// disk; when it answers again they are replayed oldest first (the service ignores a batch it has
// already applied, by its number). The service refusing a batch (409: it ended the run, e.g. it
// took the worker for dead; 401: the token was revoked) is reported once through `onRefused`, and
// the stream sends nothing more: the run is then not worth going on with.
import type { Plan } from '@lfnlab/emulator';
import type { Sample } from '../run/samples.js';
import type { RunFeed } from '../service/runExecutor.js';
import type { WorkerBatch } from '../service/workerRuns.js';
import { BatchSpool } from './batchSpool.js';
import { type ServiceClient, ServiceRefused } from './serviceClient.js';

export interface RunStreamOptions {
  client: ServiceClient;
  runId: string;
  /** The run's spool directory (removed when the stream ends). */
  spoolDir: string;
  log: (line: string) => void;
  onRefused: (why: string) => void;
  /** How often a batch is made (default 500 ms). */
  everyMs?: number;
  /** The longest wait between two tries while the service is away (default 2 s). */
  retryEveryMs?: number;
  /** How long close() waits for the service to take the spooled batches (default 1 h). */
  drainForMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class RunStream {
  private seq = 0;
  private plan: Plan | undefined;
  private samples: Sample[] = [];
  private events: WorkerBatch['events'] = [];
  private progress: WorkerBatch['progress'];
  private readonly timer: NodeJS.Timeout;
  private readonly spool: BatchSpool;
  /** The sending loop, while it runs. */
  private sender: Promise<void> | null = null;
  private stopped = false;
  /** Since when the service has not answered (null while it does). */
  private awaySince: number | null = null;
  refused = false;

  constructor(private readonly o: RunStreamOptions) {
    this.spool = new BatchSpool(o.spoolDir);
    this.timer = setInterval(() => this.flush(), o.everyMs ?? 500);
  }

  readonly feed: RunFeed = {
    onPlan: (p) => {
      this.plan = p;
    },
    onSample: (s) => {
      this.samples.push(s);
    },
    onEvent: (type, detail) => {
      this.events.push({ type, detail, after: this.samples.length });
    },
    onProgress: (p) => {
      this.progress = { t: p.t, dilation: p.dilation };
    },
  };

  /** Batches still on disk, not yet acknowledged. */
  get pending(): number {
    return this.spool.size;
  }

  /** What has gathered becomes the next batch on disk; then the sender is woken. */
  private flush(): void {
    if (this.refused || this.stopped) return;
    const empty = !this.plan && !this.samples.length && !this.events.length && !this.progress;
    // An empty batch only says "alive": pointless behind batches still waiting to go.
    if (!(empty && this.spool.size > 0)) {
      this.spool.put({
        seq: ++this.seq,
        ...(this.plan ? { plan: this.plan } : {}),
        samples: this.samples,
        events: this.events,
        ...(this.progress ? { progress: this.progress } : {}),
      });
      this.plan = undefined;
      this.samples = [];
      this.events = [];
      this.progress = undefined;
    }
    this.sender ??= this.send().finally(() => {
      this.sender = null;
    });
  }

  /** Sends the spool's batches oldest first until it is empty, waiting out a service that is away. */
  private async send(): Promise<void> {
    let wait = 250;
    for (let b = this.spool.head(); b && !this.refused && !this.stopped; b = this.spool.head()) {
      try {
        await this.o.client.batchOnce(this.o.runId, b);
        this.spool.ack(b.seq);
        wait = 250;
        if (this.awaySince !== null) {
          this.o.log(
            `the service answers again after ${Math.round((Date.now() - this.awaySince) / 1000)} s; replaying ${this.spool.size} spooled batch(es)`,
          );
          this.awaySince = null;
        }
      } catch (err) {
        if (err instanceof ServiceRefused) {
          this.refused = true;
          this.o.onRefused(err.message);
          return;
        }
        if (this.awaySince === null) {
          this.awaySince = Date.now();
          this.o.log(
            `${(err as Error).message}; the run goes on, its batches wait in ${this.o.spoolDir} until the service is back`,
          );
        }
        await sleep(wait);
        wait = Math.min(wait * 2, this.o.retryEveryMs ?? 2000);
      }
    }
  }

  /**
   * The last batch goes to disk, then every spooled batch to the service; resolves once all are
   * acknowledged (or the service refused the run: `refused`), throws when `forMs` (default
   * drainForMs) passes first.
   */
  async close(forMs = this.o.drainForMs ?? 3_600_000): Promise<void> {
    clearInterval(this.timer);
    this.flush();
    const deadline = Date.now() + forMs;
    while (!this.refused && this.spool.size > 0) {
      if (Date.now() > deadline)
        throw new Error(
          `the service took not all of the run's batches within ${Math.round(forMs / 1000)} s; ${this.spool.size} left in ${this.o.spoolDir}`,
        );
      // The sender runs until the spool is empty: look at the deadline now and then meanwhile.
      await Promise.race([
        this.sender ?? Promise.resolve(),
        sleep(Math.min(250, Math.max(1, deadline - Date.now()))),
      ]);
      if (!this.sender && this.spool.size > 0 && !this.refused)
        this.sender = this.send().finally(() => {
          this.sender = null;
        });
    }
  }

  /** Stops making and sending batches; the spool is removed (the run is handed over or abandoned). */
  stop(): void {
    clearInterval(this.timer);
    this.stopped = true;
    this.spool.remove();
  }
}
