// Types, parser and argv builders for lfn-psockets (emulator/transports/psockets.c): PSockets-style striping.
// The payload is cut into blocks and block b travels on TCP connection b mod N, so each of the N streams
// carries every N-th block; the receiver reassembles them in order. `streams: 1` is plain single-flow TCP.

import {
  checkBytes,
  digestArgv,
  dispatchLine,
  parseEndBase,
  parseRowBase,
  receiverArgv,
  senderArgv,
  TRANSPORT_COMMON_COLUMNS,
  type TransportDigest,
  type TransportEndBase,
  type TransportHeader,
  type TransportPayload,
  type TransportReceiverOptions,
  type TransportRowBase,
  type TransportSenderOptions,
  uint,
} from './common.js';

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

export type PsocketsRecord = TransportHeader | PsocketsRow | PsocketsEnd | TransportDigest;

/**
 * Parses one line of lfn-psockets output (trailing CR/LF ignored). Returns null for the column line and
 * blank lines; throws TransportParseError for anything malformed or of another format version.
 */
export function parsePsocketsLine(line: string): PsocketsRecord | null {
  return dispatchLine(PSOCKETS_BINARY, PSOCKETS_COLUMNS, line, {
    row: (f, text): PsocketsRow => ({
      ...parseRowBase(f, text),
      inOrderBytes: uint(f[6], 'in_order', text),
      streamsActive: uint(f[7], 'streams_active', text),
      minStreamBytes: uint(f[8], 'min_stream_bytes', text),
      maxStreamBytes: uint(f[9], 'max_stream_bytes', text),
    }),
    end: (kv, text): PsocketsEnd => ({
      ...parseEndBase(kv, text),
      streams: uint(kv.get('streams'), 'streams', text),
      blockBytes: uint(kv.get('block'), 'block', text),
      windowBlocks: uint(kv.get('window'), 'window', text),
    }),
  });
}

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

function tcpArgs(argv: string[], o: PsocketsTcpOptions): string[] {
  if (o.windowBlocks !== undefined)
    argv.push('--window', checkBytes(o.windowBlocks, 'windowBlocks', 1, 1 << 20));
  if (o.sockbufBytes !== undefined)
    argv.push('--sockbuf', checkBytes(o.sockbufBytes, 'sockbufBytes', 0, 2 ** 30));
  if (o.cc !== undefined) {
    if (!/^[A-Za-z0-9_-]{1,15}$/.test(o.cc))
      throw new RangeError(`cc is not a congestion control name ('${o.cc}')`);
    argv.push('--cc', o.cc);
  }
  return argv;
}

/** argv (argv[0] = program) of a striping receiver; prefix `['ip', 'netns', 'exec', ns]` as needed. */
export function psocketsReceiverArgv(opts: PsocketsReceiverOptions = {}): string[] {
  return tcpArgs(receiverArgv(PSOCKETS_BINARY, opts), opts);
}

/** argv (argv[0] = program) of a striping sender. Never joined into a shell string. */
export function psocketsSenderArgv(opts: PsocketsSenderOptions): string[] {
  const argv = senderArgv(PSOCKETS_BINARY, opts);
  argv.push('--streams', checkBytes(opts.streams, 'streams', 1, PSOCKETS_MAX_STREAMS));
  if (opts.blockBytes !== undefined)
    argv.push('--block', checkBytes(opts.blockBytes, 'blockBytes', 512, 64 * 2 ** 20));
  return tcpArgs(argv, opts);
}

export function psocketsDigestArgv(payload: TransportPayload, binary?: string): string[] {
  return digestArgv(PSOCKETS_BINARY, payload, binary);
}
