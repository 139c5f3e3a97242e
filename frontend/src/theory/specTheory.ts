// The designer's live theory panel: closed-form references for each path, computed from the
// fields as typed (each parsed on its own, so one bad field does not blank the whole panel). The
// formulas are the metric library's own (@lfnlab/metrics/theory, browser-safe), and the
// emulator's BDP and packet error rate (emulator/src/plan/sizing.ts), the ones it sizes paths by.
import { bdpBytes, perFromBer } from '@lfnlab/emulator/sizing';
import { parseAmount, parseDuration, parseRate } from '@lfnlab/emulator/spec';
import { bdpPackets, mathisThroughputBitPerS, nFlowLinkUse, responsivenessS } from '@lfnlab/metrics/theory';
import type { PathForm, SpecForm } from '../designer/formModel';

/** Frame sizes the PER table shows: minimum Ethernet, IPv4 minimum MTU, Ethernet MTU, jumbo. */
export const PER_SIZES_BYTES = [64, 576, 1500, 9000] as const;

export interface PathTheory {
  path: string;
  rttMs: number | null;
  rateBps: number | null;
  bdpBytes: number | null;
  bdpPackets: number | null;
  bufferPackets: number | null;
  per: { bytes: number; per: number }[] | null;
  /** Reno's recovery from one halving, s: ρ = C·RTT²/(2·MSS) (C in segments/s). */
  renoResponsivenessS: number | null;
  /** Loss-limited Reno throughput from the line-error PER at the MTU, bit/s; null without line errors. */
  mathisBps: number | null;
  /** TCP connections sending forward over this path (streams × count). */
  forwardConnections: number;
  /** 1 − 1/2^(N+1) for N synchronised Reno connections (seed 003 eq. 12). */
  expectedLinkUse: number | null;
}

const num = <T>(r: { ok: true; value: T } | { ok: false }): T | null => (r.ok ? r.value : null);

function bufferInPackets(p: PathForm, bdpPkts: number | null, mtu: number): number | null {
  const text =
    p.bufferUnit === 'bdp' ? `${p.buffer}bdp` : p.bufferUnit === 'packets' ? `${p.buffer}pkt` : p.buffer;
  const a = num(parseAmount(text));
  if (!a) return null;
  if ('packets' in a) return a.packets;
  if ('bytes' in a) return a.bytes / mtu;
  return bdpPkts === null ? null : a.bdp * bdpPkts;
}

export function pathTheory(form: SpecForm, p: PathForm): PathTheory {
  const mtu = typeof form.extra.mtu === 'number' ? form.extra.mtu : 1500;
  // TCP payload per segment: MTU less 20 bytes IPv4 and 20 bytes TCP header (timestamps ignored).
  const mss = mtu - 40;
  const rttMs = num(parseDuration(p.rtt.trim()));
  const rateBps = num(parseRate(p.rate.trim()));
  const usable = rttMs !== null && rttMs > 0 && rateBps !== null && rateBps > 0;
  const rttS = (rttMs ?? 0) / 1000;
  const bdpB = usable ? bdpBytes(rateBps, rttMs) : null;
  const bdpP = usable ? bdpPackets(rateBps, rttS, mtu) : null;
  const ber = p.ber.trim() === '' ? 0 : Number(p.ber);
  const berOk = Number.isFinite(ber) && ber >= 0 && ber < 1;
  const per = berOk ? PER_SIZES_BYTES.map((bytes) => ({ bytes, per: perFromBer(ber, bytes) })) : null;
  const perMtu = berOk ? perFromBer(ber, mtu) : 0;
  const forwardConnections = form.flows
    .filter((f) => f.path === p.name && f.direction === 'forward')
    .reduce((n, f) => n + (Number.isFinite(f.streams) ? f.streams : 1) * countOf(f.extra), 0);
  return {
    path: p.name,
    rttMs,
    rateBps,
    bdpBytes: bdpB,
    bdpPackets: bdpP,
    bufferPackets: bufferInPackets(p, bdpP, mtu),
    per,
    renoResponsivenessS: usable ? responsivenessS({ capacityBitPerS: rateBps, rttS, mssBytes: mss }) : null,
    mathisBps: usable && perMtu > 0 ? mathisThroughputBitPerS(mss, rttS, perMtu) : null,
    forwardConnections,
    expectedLinkUse: forwardConnections > 0 ? nFlowLinkUse(forwardConnections) : null,
  };
}

function countOf(extra: Record<string, unknown>): number {
  return typeof extra.count === 'number' && extra.count >= 1 ? extra.count : 1;
}
