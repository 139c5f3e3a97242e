// How hard a sender backs off on loss: the window right after a reduction over the window before
// it (Reno's β = 0.5, CUBIC's 0.7). Read from the same reductions windowRecoveries finds, so the
// loss response and the recovery time of a run describe the same events.

import { fail } from './guard.js';
import type { WindowRecovery } from './recovery.js';
import { quantileSorted } from './stats.js';

/**
 * Median of bottomWindow / preLossWindow over the reductions given (callers usually drop the first,
 * slow start's exit); NaN when there are none, since a flow that never reduced has no response.
 */
export function windowReductionFactor(reductions: readonly WindowRecovery[]): number {
  if (reductions.length === 0) return Number.NaN;
  const ratios = reductions.map((r, i) => {
    if (!(r.preLossWindow > 0)) fail(`reductions[${i}].preLossWindow must be greater than 0`);
    if (!(r.bottomWindow >= 0)) fail(`reductions[${i}].bottomWindow must not be negative`);
    return r.bottomWindow / r.preLossWindow;
  });
  return quantileSorted(
    ratios.sort((a, b) => a - b),
    0.5,
  );
}
