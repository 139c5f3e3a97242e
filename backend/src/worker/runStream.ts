// A run's plan, samples, events and progress on their way from the worker's driver to the
// service: gathered into numbered batches, sent one at a time every `everyMs` (an empty one too:
// it tells the service the worker is alive), each repeated until the service acknowledges it.
// The service refusing a batch (409: it ended the run, e.g. it took the worker for dead), or not
// answering for the client's whole retry time, is reported once through `onRefused`, and the
// stream sends nothing more: the run is then not worth going on with.
import type { Plan } from '@lfnlab/emulator';
import type { Sample } from '../run/samples.js';
import type { RunFeed } from '../service/runExecutor.js';
import type { WorkerBatch } from '../service/workerRuns.js';
import { type ServiceClient, ServiceRefused } from './serviceClient.js';

export interface RunStreamOptions {
  client: ServiceClient;
  runId: string;
  log: (line: string) => void;
  onRefused: (why: string) => void;
  /** How often a batch goes (default 500 ms). */
  everyMs?: number;
}

export class RunStream {
  private seq = 0;
  private plan: Plan | undefined;
  private samples: Sample[] = [];
  private events: WorkerBatch['events'] = [];
  private progress: WorkerBatch['progress'];
  private readonly timer: NodeJS.Timeout;
  /** The batch being sent, so batches go one at a time and in order. */
  private sending: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  refused = false;

  constructor(private readonly o: RunStreamOptions) {
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

  /** Queues what has gathered as the next batch (an empty one keeps the run alive on the service). */
  private flush(): Promise<void> {
    if (this.refused || this.failure) return this.sending;
    const batch: WorkerBatch = {
      seq: ++this.seq,
      ...(this.plan ? { plan: this.plan } : {}),
      samples: this.samples,
      events: this.events,
      ...(this.progress ? { progress: this.progress } : {}),
    };
    this.plan = undefined;
    this.samples = [];
    this.events = [];
    this.progress = undefined;
    this.sending = this.sending.then(async () => {
      if (this.refused || this.failure) return;
      try {
        await this.o.client.batch(this.o.runId, batch);
      } catch (err) {
        if (err instanceof ServiceRefused && err.status !== 401) {
          this.refused = true;
          this.o.onRefused(err.message);
        } else {
          this.failure = err as Error;
          this.o.onRefused(`streaming to the service failed: ${(err as Error).message}`);
        }
      }
    });
    return this.sending;
  }

  /** Sends what is left and waits for every batch's acknowledgement; throws if one never came. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    if (this.failure) throw this.failure;
  }

  /** Stops sending (the run is abandoned); nothing more is flushed. */
  stop(): void {
    clearInterval(this.timer);
  }
}
