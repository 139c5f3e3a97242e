// The cross-traffic generator's intended rate, computed as lfn-udpgen computes it, so a sink's
// interval rates can be compared with the pattern.

import type { DeterministicUdpPattern, UdpPattern } from './udp.js';

function deterministic(pattern: UdpPattern): DeterministicUdpPattern {
  if (pattern.kind === 'selfsimilar') {
    throw new RangeError(
      'a self-similar rate depends on the random on/off draws; use the generator reports (intendedBps)',
    );
  }
  return pattern;
}

/** Intended bits in [0, t]: the integral of the rate from the generator's start. */
function intendedBits(pattern: DeterministicUdpPattern, tS: number): number {
  if (tS <= 0) return 0;
  if (pattern.kind === 'cbr') return pattern.rateBps * tS;
  const w = (2 * Math.PI) / pattern.periodS;
  return pattern.meanBps * tS + (pattern.amplitudeBps / w) * (1 - Math.cos(w * tS));
}

/**
 * The generator's instantaneous rate, bit/s at the IP layer, `tS` seconds after its start (the header's
 * start_mono_ns): constant for cbr, mean + amplitude · sin(2πt/period) for sine, 0 before the start.
 * Self-similar patterns throw: their rate depends on the random draws (see the reports' intendedBps).
 */
export function intendedRate(pattern: DeterministicUdpPattern, tS: number): number {
  const p = deterministic(pattern);
  if (tS < 0) return 0;
  if (p.kind === 'cbr') return p.rateBps;
  return p.meanBps + p.amplitudeBps * Math.sin((2 * Math.PI * tS) / p.periodS);
}

/**
 * Mean of `intendedRate` over [fromS, toS] (seconds since the generator's start), exactly as the
 * generator's `intended_bps` column computes it for its own intervals; use it to compare a sink's
 * interval rates with the pattern.
 */
export function intendedMeanRate(pattern: DeterministicUdpPattern, fromS: number, toS: number): number {
  const p = deterministic(pattern);
  if (!(toS > fromS)) throw new RangeError(`need fromS < toS (got ${fromS}, ${toS})`);
  return (intendedBits(p, toS) - intendedBits(p, fromS)) / (toS - fromS);
}
