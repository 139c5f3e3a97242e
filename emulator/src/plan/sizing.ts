// Sizes the emulator derives from a path: BDP, buffers in packets, the delay stage's netem limit,
// socket buffer ceilings and the packet error rate a BER gives. Pure arithmetic, unit-tested.
import type { Amount } from '../spec/units.js';

export const ETH_HEADER = 14;
/** A pure ACK with the timestamp option: 20 B IP + 32 B TCP + 14 B Ethernet. */
export const ACK_FRAME_BYTES = 66;

/** Frame size as netem and the bottleneck count it: the MTU plus the Ethernet header. */
export const frameBytes = (mtu: number) => mtu + ETH_HEADER;

/** TCP payload of a full segment: the MTU less 20 B IP, 20 B TCP and the 12 B timestamp option. */
export const tcpPayloadBytes = (mtu: number) => mtu - 52;

/** The most goodput a saturated bottleneck can carry, as a share of its rate (1448/1514 at MTU 1500). */
export const goodputCeiling = (mtu: number) => tcpPayloadBytes(mtu) / frameBytes(mtu);

/** Bandwidth-delay product in bytes: rate (bit/s) × RTT (ms). */
export const bdpBytes = (rateBps: number, rttMs: number) => (rateBps * rttMs) / 1000 / 8;

/** A buffer amount in packets of `frame` bytes; never below 2, which netem needs to pass traffic at all. */
export function bufferPackets(amount: Amount, bdp: number, frame: number): number {
  if ('packets' in amount) return amount.packets;
  const bytes = 'bytes' in amount ? amount.bytes : amount.bdp * bdp;
  return Math.max(2, Math.ceil(bytes / frame));
}

/** A window (socket buffer) in bytes. */
export function windowBytes(amount: Amount, bdp: number, mtu: number): number {
  if ('packets' in amount) return amount.packets * mtu;
  if ('bytes' in amount) return amount.bytes;
  return Math.max(2048, Math.ceil(amount.bdp * bdp));
}

/**
 * netem's `limit` for a delay stage. Every packet in the delay line counts against it, and its
 * default of 1000 silently caps throughput (1000 × 1514 B per 50 ms ≈ 240 Mbit/s). A stage
 * carries this direction's data (at most its bottleneck rate in full frames) plus one ACK per
 * data segment of the other direction; hold 1.5× that for the one-way delay, plus slack for
 * bursts of small packets.
 */
export function delayLimitPackets(
  rateHereBps: number,
  rateOtherBps: number,
  oneWayMs: number,
  frame: number,
) {
  const pps = (rateHereBps + rateOtherBps) / (8 * frame);
  return Math.ceil((1.5 * pps * oneWayMs) / 1000) + 1000;
}

/**
 * Packet error rate for an L-byte frame at bit error rate `ber`: 1 − (1 − ber)^(8L), computed as
 * −expm1(8L·log1p(−ber)) so tiny BERs keep their precision.
 */
export function perFromBer(ber: number, frameLen: number): number {
  if (ber <= 0) return 0;
  if (ber >= 1) return 1;
  return -Math.expm1(8 * frameLen * Math.log1p(-ber));
}

/**
 * Ceiling for tcp_rmem/tcp_wmem and rmem_max/wmem_max: at least twice what a flow can keep in
 * flight on this path (BDP plus a full bottleneck buffer), and never below 4 MiB; rounded up to a
 * MiB so the value reads well in the record.
 */
export function socketBufferMax(bdp: number, bufferBytes: number): number {
  const MiB = 1 << 20;
  return Math.max(4 * MiB, Math.ceil((2 * (bdp + bufferBytes)) / MiB) * MiB);
}

/** Percent for tc, in plain decimal (tc also reads exponents, but people read the dry run). */
export function tcPercent(probability: number): string {
  const pct = probability * 100;
  const s = pct.toFixed(12).replace(/0+$/, '').replace(/\.$/, '');
  return `${s}%`;
}

/** Rate in tc's own words (kbit, mbit, gbit are powers of 1000 in tc). */
export function tcRate(bps: number): string {
  if (bps % 1e9 === 0) return `${bps / 1e9}gbit`;
  if (bps % 1e6 === 0) return `${bps / 1e6}mbit`;
  if (bps % 1e3 === 0) return `${bps / 1e3}kbit`;
  return `${Math.round(bps)}bit`;
}

/** A time in tc's words; netem keeps nanoseconds, so microseconds are exact. */
export function tcTime(ms: number): string {
  const us = Math.round(ms * 1000);
  return us % 1000 === 0 ? `${us / 1000}ms` : `${us}us`;
}
