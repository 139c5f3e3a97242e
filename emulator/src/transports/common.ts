// Shared parsing and argv pieces for the user-space bulk transports of emulator/transports (lfn-rbudp,
// lfn-psockets, lfn-udt). All three print the same kinds of lines:
//
//   # lfn-X v1 role=send|recv key=value ...      header: settings (the receiver's has the actual port)
//   #tick<TAB>mono_ns<TAB>...                      column names
//   <tick><TAB><mono_ns><TAB>...                   progress row, due every 1/HZ s from the transfer's start
//   #round<TAB>key=value...                        (lfn-rbudp only) one per blast round
//   #end<TAB>key=value...                          last line: counters, digests, CPU time
//   #digest<TAB>sha256=HEX<TAB>bytes=N...          the only line of a --digest run
//
// Time fields become fractional milliseconds (ns since boot or the epoch do not fit a double exactly) and
// carry their unit in the name, as in the sampler parsers; rates stay in bits per second.

import { checkInt, checkIpAddress, checkSeconds, checkSeed } from '../native/argv.js';
import { type Fail, LineParseError, lineParsers, stripLineEnd } from '../native/tsv.js';

/** Output format version the parsers understand (the `v1` in the header). */
export const TRANSPORT_FORMAT_VERSION = 1;

/** The six columns every progress row starts with. */
export const TRANSPORT_COMMON_COLUMNS = [
  'tick',
  'mono_ns',
  'elapsed_ns',
  'bytes',
  'interval_bps',
  'avg_bps',
] as const;

export type TransportRole = 'send' | 'recv';

export class TransportParseError extends LineParseError {
  override name = 'TransportParseError';
}

const parsers = lineParsers(TransportParseError);
export const fail: Fail = parsers.fail;
export const { uint, nsToMs, keyValues } = parsers;

const HEX64 = /^[0-9a-f]{64}$/;

/** A SHA-256 in lower-case hex, or null for '-' (not known, e.g. after an error). */
export function digestOrNull(value: string | undefined, name: string, line: string): string | null {
  if (value === '-') return null;
  if (value !== undefined && HEX64.test(value)) return value;
  return fail(`${name} is not a SHA-256 in hex or '-' (${String(value)})`, line);
}

/** Header line: the role and every `key=value` setting as printed (values are kept as text). */
export interface TransportHeader {
  type: 'header';
  program: string;
  role: TransportRole;
  /** Port in use: for a receiver started with port 0, the one the kernel picked. */
  port: number;
  settings: Record<string, string>;
}

export function parseHeader(program: string, text: string): TransportHeader {
  const m = new RegExp(`^# ${program} v(\\d+)((?: \\S+=\\S*)*)$`).exec(text);
  if (!m) return fail('malformed header', text);
  if (Number(m[1]) !== TRANSPORT_FORMAT_VERSION) fail(`unsupported ${program} format version`, text);
  const settings: Record<string, string> = {};
  for (const pair of (m[2] ?? '').trim().split(' ')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    settings[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const role = settings.role;
  if (role !== 'send' && role !== 'recv') fail('header has no role=send|recv', text);
  return { type: 'header', program, role, port: uint(settings.port, 'port', text), settings };
}

/** Checks a `#tick...` column line against the columns this parser was written for. */
export function checkColumns(text: string, columns: readonly string[]): void {
  if (text !== `#${columns.join('\t')}`) fail('column line differs from the format this parser knows', text);
}

/** The six common columns of a progress row. */
export interface TransportRowBase {
  type: 'row';
  /** Row slot k (due at start + k/HZ); a gap means slots skipped while the program was busy. */
  tick: number;
  /** CLOCK_MONOTONIC when the row was written, ms. */
  monoMs: number;
  /** Since the start of the transfer, ms. */
  elapsedMs: number;
  /** The program's progress counter, payload bytes (see each program's doc for send vs recv). */
  bytes: number;
  /** Bits/s of `bytes` since the previous row (0 in the first row). */
  intervalBitsPerS: number;
  /** Bits/s of `bytes` since the start. */
  avgBitsPerS: number;
}

export function parseRowBase(fields: readonly string[], line: string): TransportRowBase {
  return {
    type: 'row',
    tick: uint(fields[0], 'tick', line),
    monoMs: nsToMs(fields[1], 'mono_ns', line),
    elapsedMs: nsToMs(fields[2], 'elapsed_ns', line),
    bytes: uint(fields[3], 'bytes', line),
    intervalBitsPerS: uint(fields[4], 'interval_bps', line),
    avgBitsPerS: uint(fields[5], 'avg_bps', line),
  };
}

export type TransportEndReason = 'done' | 'error' | 'timeout' | 'signal';
const END_REASONS: readonly TransportEndReason[] = ['done', 'error', 'timeout', 'signal'];

/** Fields of the `#end` record common to all three programs. */
export interface TransportEndBase {
  type: 'end';
  reason: TransportEndReason;
  role: TransportRole;
  /** Payload bytes: sent (send) / delivered in order and hashed (recv). */
  bytes: number;
  /** Transfer time (each program documents its end point), ms. */
  elapsedMs: number;
  avgBitsPerS: number;
  /** This side's SHA-256 of the payload (null if the run failed before it was known). */
  sha256: string | null;
  /** The other side's SHA-256 and byte count as it reported them. */
  peerSha256: string | null;
  peerBytes: number;
  /** Both digests known, equal, and the byte counts agree; null if a digest is missing. */
  match: boolean | null;
  /** Progress rows written, and row slots skipped while busy. */
  rows: number;
  skippedRows: number;
  /** CPU time spent inside SHA-256. */
  hashMs: number;
  /** 'shani' (x86 SHA extensions) or 'c' (portable code). */
  sha256Impl: string;
  /** CPU time of the whole process (all threads), from getrusage. */
  userMs: number;
  sysMs: number;
}

export function parseEndBase(kv: Map<string, string>, line: string): TransportEndBase {
  const reason = parsers.oneOf(kv.get('reason'), END_REASONS, 'unknown end reason', line);
  const role = kv.get('role');
  if (role !== 'send' && role !== 'recv') fail('end record has no role=send|recv', line);
  const match = kv.get('match');
  if (match !== '1' && match !== '0' && match !== '-') fail('match is not 1, 0 or -', line);
  const impl = kv.get('sha256_impl');
  if (impl === undefined || impl === '') fail('sha256_impl is missing', line);
  const u = (k: string) => uint(kv.get(k), k, line);
  return {
    type: 'end',
    reason,
    role,
    bytes: u('bytes'),
    elapsedMs: nsToMs(kv.get('elapsed_ns'), 'elapsed_ns', line),
    avgBitsPerS: u('avg_bps'),
    sha256: digestOrNull(kv.get('sha256'), 'sha256', line),
    peerSha256: digestOrNull(kv.get('peer_sha256'), 'peer_sha256', line),
    peerBytes: u('peer_bytes'),
    match: match === '-' ? null : match === '1',
    rows: u('rows'),
    skippedRows: u('skipped_rows'),
    hashMs: nsToMs(kv.get('hash_ns'), 'hash_ns', line),
    sha256Impl: impl,
    userMs: nsToMs(kv.get('user_ns'), 'user_ns', line),
    sysMs: nsToMs(kv.get('sys_ns'), 'sys_ns', line),
  };
}

/** The one line of a `--digest` run. */
export interface TransportDigest {
  type: 'digest';
  sha256: string;
  bytes: number;
  sha256Impl: string;
}

export function parseDigest(text: string): TransportDigest {
  const kv = keyValues(text, '#digest\t'.length);
  const sha256 = digestOrNull(kv.get('sha256'), 'sha256', text);
  if (sha256 === null) fail('digest line without a digest', text);
  const impl = kv.get('sha256_impl');
  if (impl === undefined || impl === '') fail('sha256_impl is missing', text);
  return { type: 'digest', sha256, bytes: uint(kv.get('bytes'), 'bytes', text), sha256Impl: impl };
}

/**
 * Shared line dispatch: header, column line, digest, end, blank; `row` handles data rows and `extra`
 * any other `#name\t` record (lfn-rbudp's rounds). Comments other than these are rejected, so output of
 * another program or version is never silently taken for this one.
 */
export function dispatchLine<R, E, X = never>(
  program: string,
  columns: readonly string[],
  line: string,
  handlers: {
    row: (fields: string[], text: string) => R;
    end: (kv: Map<string, string>, text: string) => E;
    extra?: (name: string, text: string) => X | undefined;
  },
): R | E | X | TransportHeader | TransportDigest | null {
  const text = stripLineEnd(line);
  if (text === '') return null;
  if (text.startsWith('# ')) return parseHeader(program, text);
  if (text.startsWith('#tick\t')) {
    checkColumns(text, columns);
    return null;
  }
  if (text.startsWith('#end\t')) return handlers.end(keyValues(text, 5), text);
  if (text.startsWith('#digest\t')) return parseDigest(text);
  if (text.startsWith('#')) {
    const name = /^#([a-z]+)\t/.exec(text)?.[1];
    const rec = name !== undefined ? handlers.extra?.(name, text) : undefined;
    if (rec === undefined) fail('unknown record', text);
    return rec;
  }
  const fields = text.split('\t');
  parsers.fieldCount(fields, columns.length, text);
  return handlers.row(fields, text);
}

// ---- argv ----

/** Where the payload comes from: generated from a seed (verifiable without a file), or a regular file. */
export type TransportPayload =
  | { bytes: number; seed?: number | bigint; file?: undefined }
  | { file: string; bytes?: number; seed?: undefined };

export interface TransportReceiverOptions {
  /** Port to listen on; 0 = any free port (read it from the header). Default: the program's. */
  port?: number;
  /** Numeric address to listen on (default 0.0.0.0; '::' for IPv6). */
  bind?: string;
  /** Progress rows per second, 0..1000 (program default 10). */
  reportHz?: number;
  /** Seconds without progress, incl. waiting for the sender, before giving up; 0 = never (default 60). */
  timeoutS?: number;
  /** Program path or name, argv[0]; defaults to the program name (looked up in PATH). */
  binary?: string;
}

export interface TransportSenderOptions {
  /** Receiver's numeric IPv4/IPv6 address (no names: the binaries are static and resolve nothing). */
  connect: string;
  port?: number;
  payload: TransportPayload;
  reportHz?: number;
  timeoutS?: number;
  binary?: string;
}

export function checkBytes(v: number, what: string, min = 1, max = Number.MAX_SAFE_INTEGER): string {
  return checkInt(v, min, max, what);
}

function commonTail(argv: string[], o: { port?: number; reportHz?: number; timeoutS?: number }): void {
  if (o.port !== undefined) argv.push('--port', checkInt(o.port, 0, 65535, 'port'));
  if (o.reportHz !== undefined) argv.push('--report', checkInt(o.reportHz, 0, 1000, 'reportHz'));
  if (o.timeoutS !== undefined) argv.push('--timeout', checkSeconds(o.timeoutS, 'timeoutS'));
}

export function receiverArgv(program: string, o: TransportReceiverOptions): string[] {
  const argv = [o.binary ?? program, '--recv'];
  if (o.bind !== undefined) argv.push('--bind', checkIpAddress(o.bind, 'bind'));
  commonTail(argv, o);
  return argv;
}

function payloadArgs(p: TransportPayload): string[] {
  if (p.file !== undefined) {
    if (p.file === '') throw new RangeError('payload file must not be empty');
    const args = ['--file', p.file];
    if (p.bytes !== undefined) args.push('--bytes', checkBytes(p.bytes, 'payload bytes'));
    return args;
  }
  const args = ['--bytes', checkBytes(p.bytes, 'payload bytes')];
  if (p.seed !== undefined) args.push('--seed', checkSeed(p.seed, 'seed'));
  return args;
}

export function senderArgv(program: string, o: TransportSenderOptions): string[] {
  const connect = checkIpAddress(o.connect, 'connect');
  if (o.port === 0) throw new RangeError('a sender needs a real port, not 0');
  const argv = [o.binary ?? program, '--send', '--connect', connect];
  commonTail(argv, o);
  argv.push(...payloadArgs(o.payload));
  return argv;
}

/** argv of `--digest`: the SHA-256 of a payload without any network (print and exit). */
export function digestArgv(program: string, payload: TransportPayload, binary?: string): string[] {
  return [binary ?? program, '--digest', ...payloadArgs(payload)];
}
