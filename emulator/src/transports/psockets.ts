// Types, parser and argv builders for lfn-psockets (emulator/transports/psockets.c): PSockets-style striping.
// The payload is cut into blocks and block b travels on TCP connection b mod N, so each of the N streams
// carries every N-th block; the receiver reassembles them in order. `streams: 1` is plain single-flow TCP.

import {
  checkBytes,
  TRANSPORT_COMMON_COLUMNS,
  type TransportEndBase,
  type TransportReceiverOptions,
  type TransportRowBase,
  type TransportSenderOptions,
  uint,
} from './common.js';
import { pushSockbuf, type TransportRecord, transportProgram } from './program.js';

export const PSOCKETS_BINARY = 'lfn-psockets';
export const PSOCKETS_DEFAULT_PORT = 5320;
export const PSOCKETS_MAX_STREAMS = 1024;

export const PSOCKETS_COLUMNS = [
  ...TRANSPORT_COMMON_COLUMNS,
  'in_order',
  'streams_active',
  'min_stream_bytes',
  'max_stream_bytes',
] as const;

/** Progress row. `bytes`: payload bytes written to (send) / read from (recv) the sockets, all streams. */
export interface PsocketsRow extends TransportRowBase {
  /** In-order prefix: fully written to the sockets (send) / reassembled and hashed (recv), bytes. */
  inOrderBytes: number;
  /** Streams with blocks still to write (send) / read (recv). */
  streamsActive: number;
  /** Payload bytes of the stream that has moved least / most (a wide gap = imbalance). */
  minStreamBytes: number;
  maxStreamBytes: number;
}

export interface PsocketsEnd extends TransportEndBase {
  streams: number;
  blockBytes: number;
  /** Blocks this side buffered. */
  windowBlocks: number;
}

export type PsocketsRecord = TransportRecord<PsocketsRow, PsocketsEnd>;

interface PsocketsTcpOptions {
  /** Blocks this side buffers for striping/reassembly (program default: 4 per stream, at least 16). */
  windowBlocks?: number;
  /** SO_SNDBUF/SO_RCVBUF of every connection, forced as root; turns autotuning off (default: autotune). */
  sockbufBytes?: number;
  /** TCP congestion control of this side's connections (default: the namespace's). */
  cc?: string;
}

export interface PsocketsReceiverOptions extends TransportReceiverOptions, PsocketsTcpOptions {}

export interface PsocketsSenderOptions extends TransportSenderOptions, PsocketsTcpOptions {
  /** Parallel TCP connections, 1..1024 (program default 4). */
  streams: number;
  /** Stripe unit, 512..64 MiB bytes (program default 128 KiB). */
  blockBytes?: number;
}

function tcpArgs(argv: string[], o: PsocketsTcpOptions): void {
  if (o.windowBlocks !== undefined)
    argv.push('--window', checkBytes(o.windowBlocks, 'windowBlocks', 1, 1 << 20));
  pushSockbuf(argv, o.sockbufBytes);
  if (o.cc !== undefined) {
    if (!/^[A-Za-z0-9_-]{1,15}$/.test(o.cc))
      throw new RangeError(`cc is not a congestion control name ('${o.cc}')`);
    argv.push('--cc', o.cc);
  }
}

const psockets = transportProgram<PsocketsRow, PsocketsEnd, PsocketsReceiverOptions, PsocketsSenderOptions>({
  program: PSOCKETS_BINARY,
  columns: PSOCKETS_COLUMNS,
  row: (f, text) => ({
    inOrderBytes: uint(f[6], 'in_order', text),
    streamsActive: uint(f[7], 'streams_active', text),
    minStreamBytes: uint(f[8], 'min_stream_bytes', text),
    maxStreamBytes: uint(f[9], 'max_stream_bytes', text),
  }),
  end: (u) => ({ streams: u('streams'), blockBytes: u('block'), windowBlocks: u('window') }),
  receiverArgs: tcpArgs,
  senderArgs: (argv, opts) => {
    argv.push('--streams', checkBytes(opts.streams, 'streams', 1, PSOCKETS_MAX_STREAMS));
    if (opts.blockBytes !== undefined)
      argv.push('--block', checkBytes(opts.blockBytes, 'blockBytes', 512, 64 * 2 ** 20));
    tcpArgs(argv, opts);
  },
});

/** Parses one line of lfn-psockets output; see TransportProgram.parseLine. */
export const parsePsocketsLine: (line: string) => PsocketsRecord | null = psockets.parseLine;
/** argv of a striping receiver (see TransportProgram.receiverArgv). */
export const psocketsReceiverArgv = psockets.receiverArgv;
/** argv of a striping sender (see TransportProgram.senderArgv). */
export const psocketsSenderArgv = psockets.senderArgv;
export const psocketsDigestArgv = psockets.digestArgv;
