// Types, parser and argv builders for lfn-rbudp (emulator/transports/rbudp.c): Reliable Blast UDP. The sender
// blasts each chunk of the payload as UDP datagrams at a fixed, paced rate, the receiver answers over a TCP
// control connection with a bitmap of what is missing, and the sender re-blasts just that, round after round.

import {
  checkBytes,
  keyValues,
  nsToMs,
  TRANSPORT_COMMON_COLUMNS,
  type TransportEndBase,
  type TransportReceiverOptions,
  type TransportRowBase,
  type TransportSenderOptions,
  uint,
} from './common.js';
import { pushSockbuf, type TransportRecord, transportProgram } from './program.js';

export const RBUDP_BINARY = 'lfn-rbudp';
export const RBUDP_DEFAULT_PORT = 5310;

export const RBUDP_COLUMNS = [
  ...TRANSPORT_COMMON_COLUMNS,
  'chunk',
  'round',
  'datagrams',
  'resent',
  'dups',
  'done_bytes',
] as const;

/**
 * Progress row. `bytes`: distinct payload bytes sent for the first time (send) / received, in any order
 * (recv). Columns without meaning for a role are 0.
 */
export interface RbudpRow extends TransportRowBase {
  /** Chunk being transferred, from 0. */
  chunk: number;
  /** Round within that chunk, from 1 (0 in rows written before the first blast). */
  round: number;
  /** Datagrams sent (send) / valid datagrams received incl. duplicates (recv), total. */
  datagrams: number;
  /** Retransmitted datagrams sent (send) / received (recv), total. */
  resent: number;
  /** Duplicate datagrams received (recv only). */
  dups: number;
  /** Payload bytes of chunks the receiver confirmed (send) / received in order and hashed (recv). */
  doneBytes: number;
}

/** One blast round of one chunk, written when the round's bitmap has been sent (recv) or received (send). */
export interface RbudpRound {
  type: 'round';
  chunk: number;
  round: number;
  /** Datagrams sent in the round (send) / new in the round (recv). */
  datagrams: number;
  /** Payload bytes in those datagrams. */
  bytes: number;
  /** Duplicates received in the round (recv; 0 for send). */
  dups: number;
  /** Datagrams still missing after the round; 0 ends the chunk. */
  missing: number;
  /** First to last send (send) / first to last datagram received (recv). */
  blastMs: number;
  /** Round start to the bitmap's arrival (send) / previous report, or start, to this report (recv). */
  roundMs: number;
  monoMs: number;
}

export interface RbudpEnd extends TransportEndBase {
  chunks: number;
  /** Rounds over all chunks, and the most any one chunk needed. */
  rounds: number;
  maxRounds: number;
  datagrams: number;
  resent: number;
  dups: number;
  /** Datagrams of an earlier chunk (late retransmissions), ignored. */
  stale: number;
  /** Malformed datagrams or ones of another session, ignored. */
  bad: number;
  /** Times the sender fell more than 1 ms behind its pacing schedule and let it slip. */
  paceResets: number;
  /** Datagrams the sender's own stack refused (ENOBUFS); they come back as missing. */
  sendDrops: number;
  /** Actual UDP socket buffer (send buffer for the sender, receive buffer for the receiver), bytes. */
  sockbufBytes: number;
}

export type RbudpRecord = TransportRecord<RbudpRow, RbudpEnd, RbudpRound>;

function parseRound(text: string): RbudpRound {
  const kv = keyValues(text, '#round\t'.length);
  const u = (k: string) => uint(kv.get(k), k, text);
  return {
    type: 'round',
    chunk: u('chunk'),
    round: u('round'),
    datagrams: u('datagrams'),
    bytes: u('bytes'),
    dups: u('dups'),
    missing: u('missing'),
    blastMs: nsToMs(kv.get('blast_ns'), 'blast_ns', text),
    roundMs: nsToMs(kv.get('round_ns'), 'round_ns', text),
    monoMs: nsToMs(kv.get('mono_ns'), 'mono_ns', text),
  };
}

export interface RbudpReceiverOptions extends TransportReceiverOptions {
  /** UDP receive buffer, forced past net.core.rmem_max as root (program default 8 MiB; 0 = system's). */
  sockbufBytes?: number;
}

export interface RbudpSenderOptions extends TransportSenderOptions {
  /**
   * Blast rate, bits per second of UDP payload (the 16-byte RBUDP header included, IP/UDP headers not, like
   * iperf -u -b). Required: RBUDP has no congestion control, the rate is a guess of the bottleneck.
   */
  rateBitsPerS: number;
  /** UDP payload per datagram incl. the 16-byte header, 64..65507 (default 1472: a 1500-byte MTU). */
  datagramBytes?: number;
  /** Bytes blasted before waiting for a bitmap; the receiver holds one in memory (default 64 MiB). */
  chunkBytes?: number;
  /** UDP send buffer, forced as root (program default 8 MiB; 0 = system's). */
  sockbufBytes?: number;
}

const rbudp = transportProgram<RbudpRow, RbudpEnd, RbudpReceiverOptions, RbudpSenderOptions, RbudpRound>({
  program: RBUDP_BINARY,
  columns: RBUDP_COLUMNS,
  row: (f, text) => ({
    chunk: uint(f[6], 'chunk', text),
    round: uint(f[7], 'round', text),
    datagrams: uint(f[8], 'datagrams', text),
    resent: uint(f[9], 'resent', text),
    dups: uint(f[10], 'dups', text),
    doneBytes: uint(f[11], 'done_bytes', text),
  }),
  end: (u) => ({
    chunks: u('chunks'),
    rounds: u('rounds'),
    maxRounds: u('max_rounds'),
    datagrams: u('datagrams'),
    resent: u('resent'),
    dups: u('dups'),
    stale: u('stale'),
    bad: u('bad'),
    paceResets: u('pace_resets'),
    sendDrops: u('send_drops'),
    sockbufBytes: u('sockbuf'),
  }),
  extra: (name, text) => (name === 'round' ? parseRound(text) : undefined),
  receiverArgs: (argv, opts) => pushSockbuf(argv, opts.sockbufBytes),
  senderArgs: (argv, opts) => {
    argv.push('--rate', checkBytes(opts.rateBitsPerS, 'rateBitsPerS', 1000, 100e9));
    if (opts.datagramBytes !== undefined)
      argv.push('--datagram', checkBytes(opts.datagramBytes, 'datagramBytes', 64, 65507));
    if (opts.chunkBytes !== undefined)
      argv.push('--chunk', checkBytes(opts.chunkBytes, 'chunkBytes', 1, 2 ** 32));
    pushSockbuf(argv, opts.sockbufBytes);
  },
});

/** Parses one line of lfn-rbudp output; see TransportProgram.parseLine. */
export const parseRbudpLine: (line: string) => RbudpRecord | null = rbudp.parseLine;
/** argv of an RBUDP receiver (see TransportProgram.receiverArgv). */
export const rbudpReceiverArgv = rbudp.receiverArgv;
/** argv of an RBUDP sender (see TransportProgram.senderArgv). */
export const rbudpSenderArgv = rbudp.senderArgv;
export const rbudpDigestArgv = rbudp.digestArgv;
