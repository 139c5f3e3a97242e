// udt, rbudp and psockets flows after the run: each side's output parsed, the receiver's SHA-256
// compared with the sender's (the run's own check, not the programs' word for it), goodput from the
// receiver's end record, and the receiver's progress rows as the flow's interval samples.
import {
  parsePsocketsLine,
  parseRbudpLine,
  parseUdtLine,
  type RbudpEnd,
  type RbudpRound,
  type Transport,
  type TransportEndBase,
  type TransportEndReason,
  type TransportRowBase,
  type UdtEnd,
  type UdtRow,
} from '@lfnlab/emulator';
import type { ExitEvent } from '@lfnlab/lab-images';
import type { IntervalSample } from './iperf.js';

export type UserTransport = Exclude<Transport, 'tcp'>;

/** One side's output, parsed; lines that do not parse are counted, never fatal. */
export interface TransportSide {
  end: TransportEndBase | null;
  rows: TransportRowBase[];
  rounds: RbudpRound[];
  unparsed: number;
}

export interface TransferResult {
  transport: UserTransport;
  /** Sender's SHA-256 equals the receiver's and every byte arrived; null if a side has no digest. */
  integrity: 'ok' | 'mismatch' | null;
  sha256: { sender: string | null; receiver: string | null };
  bytes: { planned: number; sent: number | null; received: number | null };
  reason: { sender: TransportEndReason | null; receiver: TransportEndReason | null };
  /** Receiver: transfer start to the last byte, s. */
  seconds: number | null;
  /** Received bytes over that time, bit/s of payload. */
  goodputBps: number | null;
  /** rbudp: blast rounds over all chunks, the most one chunk needed, datagrams sent again. */
  rounds: number | null;
  maxRounds: number | null;
  /** Data re-sent: rbudp datagrams, UDT packets (perfmon); null for psockets (TCP's own). */
  retransmitted: number | null;
  /** Each side's parse failures (the raw output is kept beside). */
  unparsed: { sender: number; receiver: number };
}

const PARSERS: Record<UserTransport, (line: string) => { type: string } | null> = {
  rbudp: parseRbudpLine,
  udt: parseUdtLine,
  psockets: parsePsocketsLine,
};

export function parseTransportOutput(
  transport: UserTransport,
  text: string | null | undefined,
): TransportSide {
  const side: TransportSide = { end: null, rows: [], rounds: [], unparsed: 0 };
  for (const line of (text ?? '').split('\n')) {
    try {
      const r = PARSERS[transport](line);
      if (r?.type === 'end') side.end = r as TransportEndBase;
      else if (r?.type === 'row') side.rows.push(r as TransportRowBase);
      else if (r?.type === 'round') side.rounds.push(r as RbudpRound);
    } catch {
      side.unparsed++;
    }
  }
  return side;
}

/** Why a side's exit makes the flow fail, or null when it did its part. */
export function transportExitError(role: 'server' | 'client', e: ExitEvent): string | null {
  if (e.code === 0) return null;
  const who = role === 'server' ? 'receiver' : 'sender';
  // Exit status 3: the transfer completed and the digests differ (the programs' own check).
  if (e.code === 3) return `${who}: the receiver's SHA-256 differs from the sender's`;
  const end = /^#end\t.*$/m.exec(e.stdout ?? '')?.[0];
  const reason = end ? /reason=(\w+)/.exec(end)?.[1] : undefined;
  const why = e.stderr?.trim().split('\n').pop() || (reason ? `ended: ${reason}` : '');
  return `${who}: ${why || `exit ${e.code}${e.signal ? ` (${e.signal})` : ''}`}`;
}

export function transferResult(
  transport: UserTransport,
  plannedBytes: number,
  sender: TransportSide,
  receiver: TransportSide,
): TransferResult {
  const s = sender.end;
  const r = receiver.end;
  const both = s?.sha256 && r?.sha256 ? { s: s.sha256, r: r.sha256 } : null;
  const complete = r?.bytes === plannedBytes && s?.bytes === plannedBytes;
  const seconds = r && r.elapsedMs > 0 ? r.elapsedMs / 1000 : null;
  const rb = transport === 'rbudp' ? (s as RbudpEnd | null) : null;
  const udt = transport === 'udt' ? (s as UdtEnd | null) : null;
  return {
    transport,
    integrity: both === null ? null : both.s === both.r && complete ? 'ok' : 'mismatch',
    sha256: { sender: s?.sha256 ?? null, receiver: r?.sha256 ?? null },
    bytes: { planned: plannedBytes, sent: s?.bytes ?? null, received: r?.bytes ?? null },
    reason: { sender: s?.reason ?? null, receiver: r?.reason ?? null },
    seconds,
    goodputBps: r && seconds ? (r.bytes * 8) / seconds : null,
    rounds: rb?.rounds ?? null,
    maxRounds: rb?.maxRounds ?? null,
    retransmitted: rb ? rb.resent : udt ? udt.retrans : null,
    unparsed: { sender: sender.unparsed, receiver: receiver.unparsed },
  };
}

/** The receiver's progress rows as interval samples (times in s from traffic start). */
export function transferIntervals(flow: string, offsetS: number, receiver: TransportSide): IntervalSample[] {
  const out: IntervalSample[] = [];
  receiver.rows.forEach((row, i) => {
    const prev = receiver.rows[i - 1];
    // The first row has no interval behind it (its rate is 0 by definition).
    if (!prev || row.elapsedMs <= prev.elapsedMs) return;
    const rttUs = (row as Partial<UdtRow>).rttUs;
    out.push({
      kind: 'interval',
      flow,
      t: offsetS + row.elapsedMs / 1000,
      seconds: (row.elapsedMs - prev.elapsedMs) / 1000,
      goodputBps: row.intervalBitsPerS,
      sendBps: null,
      retransmits: null,
      cwndBytes: null,
      rttMs: rttUs === undefined || rttUs === 0 ? null : rttUs / 1000,
      streams: [],
    });
  });
  return out;
}

/** One line for the run's log: what arrived, how fast, and whether it is what was sent. */
export function describeTransfer(flow: string, t: TransferResult): string {
  const mbps = t.goodputBps === null ? '-' : (t.goodputBps / 1e6).toFixed(2);
  const rounds = t.rounds === null ? '' : `, ${t.rounds} round${t.rounds === 1 ? '' : 's'}`;
  const hash = t.sha256.receiver ? ` (sha256 ${t.sha256.receiver.slice(0, 12)}…)` : '';
  return `${flow} (${t.transport}): ${t.bytes.received ?? 0} of ${t.bytes.planned} B in ${t.seconds?.toFixed(1) ?? '-'} s, ${mbps} Mbit/s${rounds}, integrity ${t.integrity ?? 'unknown'}${hash}`;
}
