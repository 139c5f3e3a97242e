// What drives a lab for one run, apart from what keeps the run's records. The service keeps the
// records (status, service.json, the live hub, storage, quotas); a RunExecutor runs the job on a
// lab, writes the run directory and leaves the lab reset. LocalExecutor does it on this host's
// labs: the service uses it in-process (`lfnlab serve` without workers), and `lfnlab worker` uses
// the same one on its lab host, feeding the service over HTTP instead of directly.
import type { Plan } from '@lfnlab/emulator';
import type { Sample } from '../run/samples.js';
import type { RunSummary } from '../run/summary.js';
import type { LabDriver } from './labDriver.js';
import { ensureSummary } from './partialSummary.js';
import type { RunJob } from './queue.js';

/** Where a run's plan, samples, events and progress go while it runs. */
export interface RunFeed {
  onPlan(plan: Plan): void;
  onSample(s: Sample): void;
  onEvent(type: string, detail: Record<string, unknown>): void;
  onProgress(p: { t: number; dilation: number | null }): void;
}

/** What the driver left: its summary, or what it threw (then no summary). */
export interface DriveResult {
  summary: RunSummary | null;
  thrown: string | null;
  plan: Plan | undefined;
}

/** How a run ended, as its record says it. */
export interface RunOutcome {
  status: RunSummary['status'];
  error: string | null;
}

export interface RunExecutor {
  /** Runs the job into `job.outDir`; never throws (what the driver threw is in `thrown`). */
  drive(job: RunJob, signal: AbortSignal, feed: RunFeed, log: (line: string) => void): Promise<DriveResult>;
  /**
   * A run that did not complete: its summary from what was recorded (summary.json written when
   * missing) and its lab reset. Returns the summary and the error, extended if the reset failed.
   */
  settle(
    job: RunJob,
    outcome: RunOutcome,
    plan: Plan | undefined,
  ): Promise<{ summary: RunSummary; error: string | null }>;
}

/** The run's status and error from what the driver left; `stoppedBy` names who stopped it. */
export function outcomeOf(r: DriveResult, stoppedBy?: string): RunOutcome {
  const status: RunSummary['status'] = r.thrown ? 'failed' : (r.summary?.status ?? 'failed');
  let error = r.thrown ?? r.summary?.error ?? null;
  if (status === 'aborted') error = stoppedBy ? `stopped by ${stoppedBy}` : (error ?? 'aborted');
  return { status, error };
}

export class LocalExecutor implements RunExecutor {
  constructor(private readonly driver: LabDriver) {}

  async drive(job: RunJob, signal: AbortSignal, feed: RunFeed, log: (line: string) => void) {
    let plan: Plan | undefined;
    try {
      const { summary } = await this.driver.run({
        spec: job.spec,
        specText: job.specText,
        outDir: job.outDir,
        labName: job.lab,
        signal,
        log,
        onSample: (s) => feed.onSample(s),
        onEvent: (t, d) => feed.onEvent(t, d),
        onProgress: (p) => feed.onProgress(p),
        onPlan: (p) => {
          plan = p;
          feed.onPlan(p);
        },
      });
      return { summary, thrown: null, plan };
    } catch (err) {
      const thrown = err instanceof Error ? err.message : String(err);
      log(`failed: ${thrown}`);
      return { summary: null, thrown, plan };
    }
  }

  async settle(job: RunJob, outcome: RunOutcome, plan: Plan | undefined) {
    let error = outcome.error;
    const summary = ensureSummary(job.outDir, job.spec, outcome.status, error ?? outcome.status, plan);
    // runExperiment resets the lab on its way out; this covers a driver that threw before that.
    await this.driver.reset(job.lab).catch((err) => {
      error = `${error}; resetting the lab failed too: ${(err as Error).message}`;
    });
    return { summary, error };
  }
}
