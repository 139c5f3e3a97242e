// Types and parsers for lfn-udpgen and lfn-udpsink (emulator/traffic): UDP cross traffic
// whose rate follows a pattern (constant, sine, self-similar on/off aggregate), and the sink that counts
// what arrived. Both print one TSV line per report interval and a final `#end` summary.
//
// Rates and byte counts are at the IP layer: UDP payload + 28 bytes of UDP/IPv4 headers (48 for IPv6)
// per datagram, so a 1472-byte payload is one 1500-byte MTU packet. A tc qdisc on an Ethernet device
// sees 14 bytes more per datagram (the Ethernet header), which the numbers here do not include.
//
// Field names carry their unit. Wall/monotonic instants and durations become fractional milliseconds
// (nanoseconds since the epoch do not fit a double exactly); one-way delays become microseconds, like the
// TCP sampler's RTTs.

import { LineParseError, lineParsers, RUN_END_REASONS, stripLineEnd } from '../native/tsv.js';

export const UDP_GEN_BINARY = 'lfn-udpgen';
export const UDP_SINK_BINARY = 'lfn-udpsink';
/** Output format version the parsers understand (the `v1` in both programs' header line). */
export const UDP_FORMAT_VERSION = 1;
/** UDP + IPv4 header bytes counted per datagram in every rate and byte figure (IPv6: 48). */
export const UDP_IPV4_OVERHEAD_BYTES = 28;
export const UDP_IPV6_OVERHEAD_BYTES = 48;
/** Default payload: 1472 + 28 = one 1500-byte IPv4 packet. */
export const UDP_DEFAULT_SIZE_BYTES = 1472;

/** TSV column order of a generator interval line, as printed after `#` on its column line. */
export const UDP_GEN_COLUMNS = [
  'tick',
  'ts_ns',
  'mono_ns',
  'interval_ns',
  'datagrams',
  'ip_bytes',
  'intended_bps',
  'late',
  'skipped',
  'errors',
] as const;

/** TSV column order of a sink interval line. */
export const UDP_SINK_COLUMNS = [
  'tick',
  'ts_ns',
  'mono_ns',
  'interval_ns',
  'datagrams',
  'ip_bytes',
  'lost',
  'reordered',
  'duplicate',
  'owd_min_ns',
  'owd_mean_ns',
  'owd_max_ns',
  'sock_drops',
] as const;

/** Constant rate. */
export interface CbrPattern {
  kind: 'cbr';
  /** bit/s at the IP layer. */
  rateBps: number;
}

/** rate(t) = mean + amplitude · sin(2πt / period), t in seconds since the generator's start. */
export interface SinePattern {
  kind: 'sine';
  meanBps: number;
  /** 0..meanBps, so the rate never goes negative. */
  amplitudeBps: number;
  periodS: number;
}

/**
 * Superposed on/off sources: on and off periods are Pareto with shape α = 3 − 2H and mean `onOffMeanS`;
 * each source sends at 2·mean/sources while on, so the expected aggregate is `meanBps` at every instant
 * and the peak (all on) is twice that. The realised mean over a finite run varies with the seed.
 */
export interface SelfSimilarPattern {
  kind: 'selfsimilar';
  meanBps: number;
  /** Hurst parameter, 0.5..0.99 (0.5: short-range dependent; towards 1: ever longer bursts). */
  hurst: number;
  /** Sources superposed, 1..1024; the generator's default is 16. */
  sources?: number;
  /** Mean on period = mean off period, 0.001..10000 s (default 0.1); sources / onOffMeanS ≤ 100000. */
  onOffMeanS?: number;
  /** PRNG seed, 0..2^64−1 (generator default 1): the same seed gives the same schedule. */
  seed?: number | bigint;
}

export type UdpPattern = CbrPattern | SinePattern | SelfSimilarPattern;
/** Patterns whose rate is a fixed function of time (the self-similar one depends on its random draws). */
export type DeterministicUdpPattern = CbrPattern | SinePattern;

/** The fields both programs' report intervals start with (parsed by intervalBase). */
export interface UdpIntervalBase {
  type: 'interval';
  /** Interval number from 0. */
  tick: number;
  /** CLOCK_REALTIME at the interval's start, ms since the epoch (fractional). */
  timeMs: number;
  /** CLOCK_MONOTONIC at the interval's start, ms (fractional). */
  monoMs: number;
  /** Length, ms: 1000/hz except for the last interval, which ends at the stop. */
  intervalMs: number;
  /** Datagrams handed to the kernel (generator) / received, duplicates included (sink). */
  datagrams: number;
  ipBytes: number;
  /** ipBytes · 8 / interval, bit/s at the IP layer: what was actually sent (generator) / received (sink). */
  rateBps: number;
}

/** One generator report interval. */
export interface UdpGenInterval extends UdpIntervalBase {
  /** Mean of the pattern's rate over the interval, bit/s. */
  intendedBps: number;
  /** Datagrams sent when the next one was already due (at least one gap behind schedule). */
  late: number;
  /** Datagrams dropped from the schedule (more than max-lag overdue); they took no sequence number. */
  skipped: number;
  /** Sends the kernel refused (not sent, no sequence number). */
  errors: number;
}

/** The fields both programs' end records have (parsed by endBase). */
export interface UdpEndBase {
  type: 'end';
  reason: (typeof RUN_END_REASONS)[number];
  /** IP bytes sent (generator) / received (sink). */
  ipBytes: number;
  elapsedMs: number;
  /** CPU time the program used, user + system (includes the kernel's work for its sends / receives). */
  cpuMs: number;
}

export interface UdpGenEnd extends UdpEndBase {
  sent: number;
  late: number;
  skipped: number;
  errors: number;
  /** Mean of the pattern's rate over all intervals written, bit/s. */
  intendedBps: number;
  /** Largest delay of a sent datagram after its due time. */
  maxLateMs: number;
}

/** One sink report interval; datagrams belong to it by their kernel receive timestamp. */
export interface UdpSinkInterval extends UdpIntervalBase {
  /** Sequence numbers skipped over in this interval (a later reordered arrival may fill one). */
  lost: number;
  /** Arrivals below the highest sequence number seen; each fills a gap counted in `lost`. */
  reordered: number;
  duplicate: number;
  /** One-way delay over the interval, µs; null when nothing arrived. Needs a clock shared with the sender. */
  owdMinUs: number | null;
  owdMeanUs: number | null;
  owdMaxUs: number | null;
  /** Datagrams the kernel dropped for a full receive buffer (seen with the next arrival). */
  sockDrops: number;
}

export interface UdpSinkEnd extends UdpEndBase {
  received: number;
  /** Gaps never filled: datagrams missing below maxSeq. Ones after the last arrival are not counted. */
  lost: number;
  reordered: number;
  duplicate: number;
  /** Datagrams from a second sender or shorter than the 16-byte header. */
  ignored: number;
  sockDrops: number;
  firstSeq: number | null;
  maxSeq: number | null;
  owdMinUs: number | null;
  owdMeanUs: number | null;
  owdMaxUs: number | null;
}

/** The `# lfn-udpgen v1 key=value ...` / `# lfn-udpsink v1 ...` line: the run's parameters. */
export interface UdpHeader {
  program: typeof UDP_GEN_BINARY | typeof UDP_SINK_BINARY;
  version: number;
  /** Every key=value pair as printed (pattern parameters, size, report_hz, ...). */
  params: Record<string, string>;
  /** CLOCK_MONOTONIC at the start (generator: when datagram 0 is due; sink: interval 0), ms. */
  startMonoMs: number;
  /** CLOCK_REALTIME at the start, ms since the epoch. */
  startTimeMs: number;
}

export class UdpParseError extends LineParseError {
  override name = 'UdpParseError';
}

const parsers = lineParsers(UdpParseError);
const { fail, uint, nsToMs, oneOf } = parsers;

/** Signed ns → µs, or null for '-'. */
function owdUs(value: string | undefined, name: string, line: string): number | null {
  if (value === '-') return null;
  if (value !== undefined && /^-?\d{1,19}$/.test(value)) return Number(value) / 1000;
  return fail(`${name} is neither an integer nor '-' (${String(value)})`, line);
}

function optUint(value: string | undefined, name: string, line: string): number | null {
  return value === '-' ? null : uint(value, name, line);
}

function endBase(kv: Map<string, string>, text: string): UdpEndBase {
  return {
    type: 'end',
    reason: oneOf(kv.get('reason'), RUN_END_REASONS, 'unknown end reason', text),
    ipBytes: uint(kv.get('ip_bytes'), 'ip_bytes', text),
    elapsedMs: nsToMs(kv.get('elapsed_ns'), 'elapsed_ns', text),
    cpuMs: nsToMs(kv.get('cpu_ns'), 'cpu_ns', text),
  };
}

function rate(ipBytes: number, intervalMs: number): number {
  return intervalMs > 0 ? (ipBytes * 8 * 1000) / intervalMs : 0;
}

/**
 * Parses one header line of either program (`# lfn-udpgen v1 ...`, `# lfn-udpsink v1 ...`); null for any
 * other line. Throws UdpParseError for a version it does not know or a header without its start time.
 */
export function parseUdpHeader(line: string): UdpHeader | null {
  const text = stripLineEnd(line);
  const m = /^# (lfn-udpgen|lfn-udpsink) /.exec(text);
  if (!m) return null;
  const program = m[1] as UdpHeader['program'];
  parsers.checkVersion(text, program, UDP_FORMAT_VERSION);
  const params: Record<string, string> = {};
  for (const word of text.slice(m[0].length).split(' ').slice(1)) {
    const eq = word.indexOf('=');
    if (eq <= 0) fail('malformed header field', text);
    params[word.slice(0, eq)] = word.slice(eq + 1);
  }
  return {
    program,
    version: UDP_FORMAT_VERSION,
    params,
    startMonoMs: nsToMs(params.start_mono_ns, 'start_mono_ns', text),
    startTimeMs: nsToMs(params.start_ts_ns, 'start_ts_ns', text),
  };
}

/** Columns both programs' interval rows have. */
type IntervalColumn = (typeof UDP_GEN_COLUMNS)[number] & (typeof UDP_SINK_COLUMNS)[number];

/** The fields both programs' interval rows start with, and the rate they give. */
function intervalBase(get: (column: IntervalColumn) => string | undefined, text: string): UdpIntervalBase {
  const u = (c: IntervalColumn) => uint(get(c), c, text);
  const intervalMs = nsToMs(get('interval_ns'), 'interval_ns', text);
  const ipBytes = u('ip_bytes');
  return {
    type: 'interval',
    tick: u('tick'),
    timeMs: nsToMs(get('ts_ns'), 'ts_ns', text),
    monoMs: nsToMs(get('mono_ns'), 'mono_ns', text),
    intervalMs,
    datagrams: u('datagrams'),
    ipBytes,
    rateBps: rate(ipBytes, intervalMs),
  };
}

/** One interval row of `columns`: the shared fields, then the program's own ones from `own`. */
function intervalRow<C extends string, Own>(
  columns: readonly C[],
  fields: string[],
  text: string,
  own: (get: (column: C) => string | undefined, u: (column: C) => number) => Own,
): UdpIntervalBase & Own {
  const get = parsers.row(fields, columns, text);
  const u = (c: C) => uint(get(c), c, text);
  // Both column lists contain every IntervalColumn (that type is their intersection).
  return { ...intervalBase(get as (column: IntervalColumn) => string | undefined, text), ...own(get, u) };
}

/**
 * Parses one line of lfn-udpgen output (trailing CR/LF ignored). Returns null for the header, the column
 * line, other comments and blank lines. Throws UdpParseError for anything malformed, so a format mismatch
 * is never silently dropped.
 */
export function parseUdpGenLine(line: string): UdpGenInterval | UdpGenEnd | null {
  return parsers.tsvLine(UDP_GEN_BINARY, UDP_FORMAT_VERSION, line, {
    end: (kv, text): UdpGenEnd => {
      const u = (k: string) => uint(kv.get(k), k, text);
      return {
        ...endBase(kv, text),
        sent: u('sent'),
        late: u('late'),
        skipped: u('skipped'),
        errors: u('errors'),
        intendedBps: u('intended_bps'),
        maxLateMs: nsToMs(kv.get('max_late_ns'), 'max_late_ns', text),
      };
    },
    row: (fields, text): UdpGenInterval =>
      intervalRow(UDP_GEN_COLUMNS, fields, text, (_get, u) => ({
        intendedBps: u('intended_bps'),
        late: u('late'),
        skipped: u('skipped'),
        errors: u('errors'),
      })),
  });
}

/** Parses one line of lfn-udpsink output; null for header, comment and blank lines, throws if malformed. */
export function parseUdpSinkLine(line: string): UdpSinkInterval | UdpSinkEnd | null {
  return parsers.tsvLine(UDP_SINK_BINARY, UDP_FORMAT_VERSION, line, {
    end: (kv, text): UdpSinkEnd => {
      const u = (k: string) => uint(kv.get(k), k, text);
      return {
        ...endBase(kv, text),
        received: u('received'),
        lost: u('lost'),
        reordered: u('reordered'),
        duplicate: u('duplicate'),
        ignored: u('ignored'),
        sockDrops: u('sock_drops'),
        firstSeq: optUint(kv.get('first_seq'), 'first_seq', text),
        maxSeq: optUint(kv.get('max_seq'), 'max_seq', text),
        owdMinUs: owdUs(kv.get('owd_min_ns'), 'owd_min_ns', text),
        owdMeanUs: owdUs(kv.get('owd_mean_ns'), 'owd_mean_ns', text),
        owdMaxUs: owdUs(kv.get('owd_max_ns'), 'owd_max_ns', text),
      };
    },
    row: (fields, text): UdpSinkInterval =>
      intervalRow(UDP_SINK_COLUMNS, fields, text, (get, u) => ({
        lost: u('lost'),
        reordered: u('reordered'),
        duplicate: u('duplicate'),
        owdMinUs: owdUs(get('owd_min_ns'), 'owd_min_ns', text),
        owdMeanUs: owdUs(get('owd_mean_ns'), 'owd_mean_ns', text),
        owdMaxUs: owdUs(get('owd_max_ns'), 'owd_max_ns', text),
        sockDrops: u('sock_drops'),
      })),
  });
}
