// A started run's plumbing, the same for runs on this service's lab and runs a worker streams in:
// its record marked running, its feed wired to storage and the live hub, and one call to end it.
import type { Plan } from '@lfnlab/emulator';
import type { RunSummary } from '../run/summary.js';
import { liveFeed } from './liveFeed.js';
import { finishRun } from './runEnd.js';
import type { RunFeed, RunOutcome } from './runExecutor.js';
import type { RunServiceDeps } from './runServiceDeps.js';
import type { Run } from './types.js';

/** A run that has started: where its data goes, and the one call that records how it ended. */
export interface ActiveRun {
  run: Run;
  feed: RunFeed;
  /** The run's plan, once the lab has built it. */
  plan(): Plan | undefined;
  /** Storage gets the summary, the record the outcome; later calls do nothing. */
  end(outcome: RunOutcome, summary: RunSummary | null): Promise<void>;
}

export function beginRun(
  d: Pick<RunServiceDeps, 'store' | 'storage' | 'hub' | 'log'>,
  run: Run,
  host: string | null,
  resumed = false,
): ActiveRun {
  if (!resumed) {
    run.status = 'running';
    run.startedAt = new Date().toISOString();
    if (host !== null) run.host = host;
    d.store.save(run);
  }
  const sink = d.storage.forRun({
    runId: run.id,
    user: run.owner,
    preset: run.preset,
    campaign: run.campaign,
  });
  const live = liveFeed(run, sink, d.hub.open(run.id));
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
        await sink.finish(summary).catch((err) => d.log(`[${run.id}] storage: ${(err as Error).message}`));
      finishRun(d, run, {
        status: outcome.status,
        verdict: summary?.verdict ?? null,
        error: outcome.error,
        partial: outcome.status !== 'completed',
      });
    },
  };
}
