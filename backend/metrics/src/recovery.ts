// Loss recovery measured on a congestion-window series: how long after a window reduction the
// flow is back to the window it had before. Seed 003's responsiveness ρ (theory.ts) predicts this
// for Reno; measured next to it, it shows how much faster a high-speed stack recovers.

import { at, requireFinite, requireInRange, requireNonNegativeList } from './guard.js';
import { checkSeries, type Series } from './series.js';

export interface WindowRecovery {
  /** Time of the last sample before the reduction (s). */
  peakAtS: number;
  /** The window before the reduction (the series' unit: packets or bytes). */
  preLossWindow: number;
  /** Time of the first reduced sample: the loss as the sender reacted to it (s). */
  dropAtS: number;
  /** Lowest window of the reduction (the end of a run of falling samples, e.g. during PRR). */
  bottomWindow: number;
  /**
   * First sample at or above regainFraction × preLossWindow (s), or the peak of a climb a later
   * reduction cut within NEXT_PEAK_TOLERANCE of it; NaN if never reached.
   */
  recoveredAtS: number;
  /** recoveredAtS − dropAtS (s); NaN if the window never came back. */
  recoveryS: number;
}

export interface RecoveryOptions {
  /** A reduction counts as a loss response when the window falls by at least this fraction. */
  minDropFraction?: number;
  /** Fraction of the pre-loss window that counts as recovered; 1 means the full window. */
  regainFraction?: number;
  /** Ignore reductions before this time (s), e.g. the end of slow start. */
  afterS?: number;
}

/**
 * The next loss may come at the window the last one came at, a packet short of it or over it: a
 * climb the next reduction cuts within this share of the target has regained it, at that peak.
 * Without it, a Reno sawtooth whose next peak fell one packet short counted two cycles as one
 * recovery (62 s for a 31 s ρ at 50 Mbit/s × 120 ms, 2 of 3 runs).
 */
export const NEXT_PEAK_TOLERANCE = 0.02;

/** The last index of the run of falling samples that starts at `i` (PRR lowers cwnd over an RTT). */
function fallEnd(v: readonly number[], i: number): number {
  let j = i;
  while (j + 1 < v.length && at(v, j + 1) < at(v, j)) j++;
  return j;
}

/**
 * When the window climbing from index `from` is back at `target`: the first sample at or above it,
 * or the peak before a later reduction when that peak is within NEXT_PEAK_TOLERANCE of it. A loss
 * that cuts the climb further below does not end it: the recovery counts on through it from the
 * first drop. NaN when the window never comes back.
 */
function regainedAt(
  t: readonly number[],
  v: readonly number[],
  from: number,
  target: number,
  minDropFraction: number,
): number {
  for (let k = from; k < v.length; k++) {
    if (at(v, k) >= target) return at(t, k);
    if (k > from && at(v, k) < at(v, k - 1)) {
      const bottom = fallEnd(v, k);
      const peak = at(v, k - 1);
      // A dip smaller than a reduction is climbed through.
      if (at(v, bottom) > (1 - minDropFraction) * peak) {
        k = bottom;
        continue;
      }
      if (peak >= (1 - NEXT_PEAK_TOLERANCE) * target) return at(t, k - 1);
      k = bottom;
    }
  }
  return Number.NaN;
}

/**
 * Finds every window reduction of at least minDropFraction and the time to regain the window held
 * before it. A reduction spread over several falling samples (Linux PRR lowers cwnd across one
 * RTT) is one event. Times have the resolution of the sampling, because the series is a step
 * function: the window is known to be back only at the first sample that shows it.
 */
export function windowRecoveries(
  cwnd: Series,
  { minDropFraction = 0.2, regainFraction = 1, afterS = Number.NEGATIVE_INFINITY }: RecoveryOptions = {},
): WindowRecovery[] {
  checkSeries(cwnd, 'cwnd');
  requireNonNegativeList(cwnd.v, 'cwnd.v');
  requireInRange(minDropFraction, 'minDropFraction', 0, 1, { lowOpen: true, highOpen: true });
  requireInRange(regainFraction, 'regainFraction', 0, 1, { lowOpen: true });
  if (afterS !== Number.NEGATIVE_INFINITY) requireFinite(afterS, 'afterS');
  const { t, v } = cwnd;
  const events: WindowRecovery[] = [];
  let i = 1;
  while (i < v.length) {
    if (at(v, i) >= at(v, i - 1) || at(t, i) < afterS) {
      i++;
      continue;
    }
    const peak = at(v, i - 1);
    const bottomIndex = fallEnd(v, i);
    const bottom = at(v, bottomIndex);
    if (bottom <= (1 - minDropFraction) * peak) {
      const target = regainFraction * peak;
      const recoveredAtS = regainedAt(t, v, bottomIndex + 1, target, minDropFraction);
      events.push({
        peakAtS: at(t, i - 1),
        preLossWindow: peak,
        dropAtS: at(t, i),
        bottomWindow: bottom,
        recoveredAtS,
        recoveryS: recoveredAtS - at(t, i),
      });
    }
    i = bottomIndex + 1;
  }
  return events;
}
