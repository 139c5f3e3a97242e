// Closed-form references to put next to measurements: pipe size, loss-limited Reno throughput,
// line errors, AIMD link use and Reno's recovery time. The BDP in bytes and the packet error rate
// from a BER are the emulator's (@lfnlab/emulator/sizing: bdpBytes, perFromBer), not repeated here.

import { bdpBytes } from '@lfnlab/emulator/sizing';
import { fail, requireInRange, requireNonNegative, requirePositive } from './guard.js';

/**
 * Bytes in flight needed to fill the pipe, β·C·RTT/8: the emulator's bdpBytes (the one BDP, RTT in
 * ms) with its input checked and scaled by payloadRatio, seed 003's β (payload bits / line bits,
 * ≈0.9 for TCP over SONET there); 1 gives the plain bandwidth-delay product.
 */
function pipeBytes(capacityBitPerS: number, rttS: number, payloadRatio: number): number {
  requirePositive(capacityBitPerS, 'capacityBitPerS');
  requirePositive(rttS, 'rttS');
  requireInRange(payloadRatio, 'payloadRatio', 0, 1, { lowOpen: true });
  return payloadRatio * bdpBytes(capacityBitPerS, rttS * 1000);
}

/** The pipe in packets of packetBytes (seed 003 eq. 11), not rounded: buffers are sized from it. */
export function bdpPackets(
  capacityBitPerS: number,
  rttS: number,
  packetBytes: number,
  payloadRatio = 1,
): number {
  requirePositive(packetBytes, 'packetBytes');
  return pipeBytes(capacityBitPerS, rttS, payloadRatio) / packetBytes;
}

/** Mathis et al.'s constant for periodic loss without delayed ACKs: √(3/2). */
export const MATHIS_C = Math.sqrt(3 / 2);

/** Loss-limited Reno throughput (bit/s): (MSS/RTT)·C/√p. */
export function mathisThroughputBitPerS(
  mssBytes: number,
  rttS: number,
  lossRate: number,
  c = MATHIS_C,
): number {
  requirePositive(mssBytes, 'mssBytes');
  requirePositive(rttS, 'rttS');
  requireInRange(lossRate, 'lossRate', 0, 1, { lowOpen: true });
  requirePositive(c, 'c');
  return ((8 * mssBytes) / rttS) * (c / Math.sqrt(lossRate));
}

/** The inverse: the highest loss rate at which Reno can still sustain the given throughput. */
export function mathisMaxLossRate(
  throughputBitPerS: number,
  mssBytes: number,
  rttS: number,
  c = MATHIS_C,
): number {
  requirePositive(throughputBitPerS, 'throughputBitPerS');
  requirePositive(mssBytes, 'mssBytes');
  requirePositive(rttS, 'rttS');
  requirePositive(c, 'c');
  return ((8 * mssBytes * c) / (rttS * throughputBitPerS)) ** 2;
}

/**
 * Line errors per second on a link (seed 003 §III.B). uncorrectedFraction is the share that
 * forward error correction leaves through (the paper assumes 10 %).
 */
export function lineErrorsPerS(ber: number, lineRateBitPerS: number, uncorrectedFraction = 1): number {
  requireInRange(ber, 'ber', 0, 1);
  requireNonNegative(lineRateBitPerS, 'lineRateBitPerS');
  requireInRange(uncorrectedFraction, 'uncorrectedFraction', 0, 1);
  return ber * lineRateBitPerS * uncorrectedFraction;
}

/**
 * Fraction of the link used by N synchronised Reno flows with no other traffic: 1 − 1/2^(N+1)
 * (seed 003 eq. 12). One flow sawtooths between C/2 and C, hence 75 %.
 */
export function nFlowLinkUse(flows: number): number {
  requirePositive(flows, 'flows');
  if (!Number.isInteger(flows)) fail(`flows must be a whole number (got ${flows})`);
  return 1 - 2 ** -(flows + 1);
}

export interface ResponsivenessInput {
  capacityBitPerS: number;
  rttS: number;
  /** The additive increase per RTT: one MSS for Reno. */
  mssBytes: number;
  /** Seed 003's β (payload / line bits); its worked cases all use 0.9. Default 1. */
  payloadRatio?: number;
}

/**
 * Seed 003's responsiveness ρ = β·C·RTT²/(16·MSS) with C in bit/s and MSS in bytes (eq. 6, the
 * bit/byte form of C·RTT²/(2·MSS)): seconds for Reno to climb back from half the pipe to all of it
 * at one MSS per RTT. Not rounded to whole RTTs; the paper's published ρ values are not either.
 */
export function responsivenessS({
  capacityBitPerS,
  rttS,
  mssBytes,
  payloadRatio = 1,
}: ResponsivenessInput): number {
  return increments({ capacityBitPerS, rttS, mssBytes, payloadRatio }) * rttS;
}

/**
 * Seed 003's N_inc (eq. 7): how many one-MSS increments, one per RTT, the climb takes. Rounded up,
 * as the paper does, since a window grows in whole steps.
 */
export function recoveryIncrements(input: ResponsivenessInput): number {
  return Math.ceil(increments(input) - 1e-9);
}

function increments({ capacityBitPerS, rttS, mssBytes, payloadRatio = 1 }: ResponsivenessInput): number {
  // Half the pipe, in segments: the window lost to one multiplicative decrease.
  return pipeBytes(capacityBitPerS, rttS, payloadRatio) / (2 * requirePositive(mssBytes, 'mssBytes'));
}

/**
 * Seed 003 eq. (15), the proposed "TCP Grid" decrease: a flow holding a fraction α of the link
 * drops to α/(1+α), the share it would keep if one more flow joined, instead of halving.
 */
export function gridDecreaseShare(share: number): number {
  requireInRange(share, 'share', 0, 1);
  return share / (1 + share);
}
