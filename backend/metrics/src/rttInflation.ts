// Queueing delay a flow causes, as a ratio: the RTT the probe saw while traffic ran over the RTT
// of the idle path. 1 is no queue at all; a full 1-BDP buffer in front of a busy link gives about 2.

import { requireNonNegativeList, requirePositive } from './guard.js';
import { mean } from './stats.js';

/** Mean loaded RTT (ms, each probe sample counted once) over the idle RTT (ms). */
export function rttInflation(loadedRttMs: readonly number[], idleRttMs: number): number {
  requireNonNegativeList(loadedRttMs, 'loadedRttMs');
  requirePositive(idleRttMs, 'idleRttMs');
  return mean(loadedRttMs) / idleRttMs;
}
