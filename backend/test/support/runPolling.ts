// Waiting for a run of a service started as a process to reach a state: polled with a deadline
// (never a sleep), the processes' output in the failure message.
import type { RunView } from '../../src/service/types.js';
import { until } from './cliProcess.js';

export const isFinal = (r: Pick<RunView, 'status'>) => r.status !== 'queued' && r.status !== 'running';

/**
 * Resolves with the run once it is running and has reached `elapsedS` lab seconds (default 0);
 * `get` reads it (undefined while the service does not list it).
 */
export async function untilRunning(
  get: () => Promise<RunView | undefined>,
  o: { elapsedS?: number; ms?: number; context?: () => string } = {},
): Promise<RunView> {
  let seen: RunView | undefined;
  await until(
    async () => {
      seen = await get();
      return seen?.status === 'running' && seen.progress.elapsedS >= (o.elapsedS ?? 0);
    },
    o.ms ?? 60_000,
    o.context,
  );
  return seen as RunView;
}

/** Resolves with the runs once every one of them has ended (completed, failed or aborted). */
export async function untilAllFinal(
  get: () => Promise<RunView[]>,
  count: number,
  o: { ms?: number; context?: () => string } = {},
): Promise<RunView[]> {
  let seen: RunView[] = [];
  await until(
    async () => {
      seen = await get();
      return seen.length === count && seen.every(isFinal);
    },
    o.ms ?? 60_000,
    o.context,
  );
  return seen;
}
