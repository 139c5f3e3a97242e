// Types, parser and argv builder for lfn-tcpsampler (emulator/sampler), the per-flow TCP sampler that
// runs inside a sender namespace and streams one line per socket per tick.
//
// Field names carry their unit because the kernel's units are kept as they are (µs, bytes/s, packets);
// converting would hide where a number came from. The one exception is wall/monotonic time, turned into
// fractional milliseconds because nanoseconds since the epoch do not fit a double exactly.

import { checkInt, checkPort, checkSeconds } from '../native/argv.js';
import { type Fail, LineParseError, lineParsers, type SamplingEndBase } from '../native/tsv.js';

export const TCP_SAMPLER_BINARY = 'lfn-tcpsampler';
/** Output format version the sampler writes (the `v2` in the TSV header, `version` in JSONL). */
export const TCP_SAMPLER_FORMAT_VERSION = 2;
/** Versions the parser reads: v1, kept in older runs' raw files, lacks v2's vegas_* columns. */
const READABLE_VERSIONS = [1, TCP_SAMPLER_FORMAT_VERSION] as const;

/** TSV column order of format v1. */
const V1_COLUMNS = [
  'tick',
  'ts_ns',
  'mono_ns',
  'laddr',
  'lport',
  'raddr',
  'rport',
  'state',
  'cc',
  'cwnd',
  'ssthresh',
  'srtt_us',
  'rttvar_us',
  'min_rtt_us',
  'mss',
  'pacing_rate',
  'delivery_rate',
  'app_limited',
  'bytes_acked',
  'bytes_sent',
  'bytes_retrans',
  'bytes_received',
  'total_retrans',
  'retransmits',
  'lost',
  'unacked',
  'sacked',
  'delivered',
  'delivered_ce',
  'data_segs_out',
  'notsent_bytes',
  'busy_us',
  'rwnd_limited_us',
  'sndbuf_limited_us',
  'snd_wnd',
  'rto_us',
  'ca_state',
  'info_len',
  'cookie',
] as const;

/** TSV column order of format v2, as printed after `#` on the sampler's second header line. */
export const TCP_SAMPLER_COLUMNS = [
  ...V1_COLUMNS,
  'vegas_len',
  'vegas_enabled',
  'vegas_rttcnt',
  'vegas_rtt',
  'vegas_minrtt',
] as const;
export type TcpSamplerColumn = (typeof TCP_SAMPLER_COLUMNS)[number];

export const TCP_STATES = [
  'established',
  'syn-sent',
  'syn-recv',
  'fin-wait-1',
  'fin-wait-2',
  'time-wait',
  'close',
  'close-wait',
  'last-ack',
  'listen',
  'closing',
] as const;
export type TcpState = (typeof TCP_STATES)[number];

/** One socket at one tick. Counters the running kernel's tcp_info lacks are 0 (see `infoLen`). */
export interface TcpSample {
  type: 'sample';
  /** Slot number since the sampler started; a gap means skipped slots. */
  tick: number;
  /** CLOCK_REALTIME at the start of the tick, ms since the epoch (fractional). */
  timeMs: number;
  /** CLOCK_MONOTONIC at the start of the tick, ms (fractional). */
  monoMs: number;
  localAddr: string;
  localPort: number;
  remoteAddr: string;
  remotePort: number;
  /** State name; 'unknown' if the kernel reported a state this format does not know. */
  state: TcpState | 'unknown';
  /** Congestion-control name, null if the kernel sent none (e.g. time-wait). */
  cc: string | null;
  cwndPackets: number;
  /** null while ssthresh is still "infinite" (slow start never left). */
  ssthreshPackets: number | null;
  srttUs: number;
  rttvarUs: number;
  /** null until the first RTT sample. */
  minRttUs: number | null;
  mssBytes: number;
  /** null when the socket is not paced (the kernel reports ~0). */
  pacingRateBytesPerS: number | null;
  deliveryRateBytesPerS: number;
  /** The delivery-rate sample was taken while the application, not the network, limited sending. */
  appLimited: boolean;
  bytesAcked: number;
  bytesSent: number;
  bytesRetrans: number;
  bytesReceived: number;
  /** Retransmitted segments over the socket's lifetime. */
  totalRetrans: number;
  /** Consecutive unrecovered RTO retransmissions right now. */
  retransmits: number;
  lostPackets: number;
  unackedPackets: number;
  sackedPackets: number;
  deliveredPackets: number;
  deliveredCePackets: number;
  dataSegsOut: number;
  notsentBytes: number;
  busyUs: number;
  rwndLimitedUs: number;
  sndbufLimitedUs: number;
  sndWndBytes: number;
  rtoUs: number;
  /** 0 open, 1 disorder, 2 cwr, 3 recovery, 4 loss. */
  caState: number;
  /** Bytes of tcp_info the kernel returned; 0 means no tcp_info (all counters are 0). */
  infoLen: number;
  /** Kernel socket cookie (decimal): identifies the socket across ticks even if ports are reused. */
  cookie: string;
  /**
   * The stack's own state as it fills struct tcpvegas_info (INET_DIAG_VEGASINFO), raw: the four
   * fields mean what each stack makes them mean (Vegas: enabled, RTTs this round, last RTT µs,
   * base RTT µs; tcp_hstcplp: inference on, reactions, smoothed queueing delay µs, threshold µs;
   * see each module's get_info). null when the stack gives none, and in format v1 records.
   */
  vegas: VegasInfo | null;
}

export interface VegasInfo {
  enabled: number;
  rttcnt: number;
  rtt: number;
  minrtt: number;
}

/** The sampler's last line: a tick is one netlink dump, an error a tick whose dump failed. */
export type SamplerEnd = SamplingEndBase;

export class SamplerParseError extends LineParseError {
  override name = 'SamplerParseError';
}

const U32_MAX = 4294967295;
const INFINITE_SSTHRESH = 2147483647;
// ~0ULL as a double; JSON.parse and Number() both round 18446744073709551615 up to 2^64.
const U64_MAX_AS_NUMBER = 2 ** 64;

const parsers = lineParsers(SamplerParseError);
const fail: Fail = parsers.fail;
const { uint, nsToMs, str } = parsers;

const KNOWN_STATES: ReadonlySet<string> = new Set(TCP_STATES);

function buildSample(get: (column: TcpSamplerColumn) => unknown, line: string): TcpSample {
  const u = (c: TcpSamplerColumn) => uint(get(c), c, line);
  const ssthresh = u('ssthresh');
  const minRtt = u('min_rtt_us');
  const pacing = u('pacing_rate');
  const state = str(get('state'), 'state', line);
  const cc = get('cc');
  if (cc !== null && typeof cc !== 'string') fail('cc is not a string', line);
  return {
    type: 'sample',
    tick: u('tick'),
    timeMs: nsToMs(get('ts_ns'), 'ts_ns', line),
    monoMs: nsToMs(get('mono_ns'), 'mono_ns', line),
    localAddr: str(get('laddr'), 'laddr', line),
    localPort: u('lport'),
    remoteAddr: str(get('raddr'), 'raddr', line),
    remotePort: u('rport'),
    state: KNOWN_STATES.has(state) ? (state as TcpState) : 'unknown',
    cc: cc === null || cc === '-' || cc === '' ? null : cc,
    cwndPackets: u('cwnd'),
    ssthreshPackets: ssthresh >= INFINITE_SSTHRESH ? null : ssthresh,
    srttUs: u('srtt_us'),
    rttvarUs: u('rttvar_us'),
    minRttUs: minRtt >= U32_MAX ? null : minRtt,
    mssBytes: u('mss'),
    pacingRateBytesPerS: pacing >= U64_MAX_AS_NUMBER ? null : pacing,
    deliveryRateBytesPerS: u('delivery_rate'),
    appLimited: u('app_limited') !== 0,
    bytesAcked: u('bytes_acked'),
    bytesSent: u('bytes_sent'),
    bytesRetrans: u('bytes_retrans'),
    bytesReceived: u('bytes_received'),
    totalRetrans: u('total_retrans'),
    retransmits: u('retransmits'),
    lostPackets: u('lost'),
    unackedPackets: u('unacked'),
    sackedPackets: u('sacked'),
    deliveredPackets: u('delivered'),
    deliveredCePackets: u('delivered_ce'),
    dataSegsOut: u('data_segs_out'),
    notsentBytes: u('notsent_bytes'),
    busyUs: u('busy_us'),
    rwndLimitedUs: u('rwnd_limited_us'),
    sndbufLimitedUs: u('sndbuf_limited_us'),
    sndWndBytes: u('snd_wnd'),
    rtoUs: u('rto_us'),
    caState: u('ca_state'),
    infoLen: u('info_len'),
    // Kept as text: a u64 cookie need not fit a double, and JSONL already hands it over as a number.
    cookie: String(u('cookie')),
    vegas: vegasInfo(get, line),
  };
}

/** The vegas_* columns when the stack answered (vegas_len > 0); absent in format v1. */
function vegasInfo(get: (column: TcpSamplerColumn) => unknown, line: string): VegasInfo | null {
  const len = get('vegas_len');
  if (len === undefined || uint(len, 'vegas_len', line) === 0) return null;
  const u = (c: TcpSamplerColumn) => uint(get(c), c, line);
  return {
    enabled: u('vegas_enabled'),
    rttcnt: u('vegas_rttcnt'),
    rtt: u('vegas_rtt'),
    minrtt: u('vegas_minrtt'),
  };
}

/**
 * Parses one line of lfn-tcpsampler output (TSV or JSONL; trailing CR/LF ignored).
 * Returns null for header, comment and blank lines, and for the JSONL start record.
 * Throws SamplerParseError for anything malformed, so a format mismatch is never silently dropped.
 */
export function parseSamplerLine(line: string): TcpSample | SamplerEnd | null {
  return parsers.tsvLine(TCP_SAMPLER_BINARY, READABLE_VERSIONS, line, {
    json: (text) =>
      parsers.jsonLine<TcpSample | SamplerEnd>(TCP_SAMPLER_BINARY, READABLE_VERSIONS, text, {
        sample: (get) => buildSample(get, text),
        end: (get) => parsers.samplingEndBase(get, text),
      }),
    end: (kv, text) => parsers.samplingEndBase((k) => kv.get(k), text),
    // A row's field count tells the versions apart: v2 only added columns at the end.
    row: (fields, text) =>
      buildSample(
        parsers.row<TcpSamplerColumn>(
          fields,
          fields.length === V1_COLUMNS.length ? V1_COLUMNS : TCP_SAMPLER_COLUMNS,
          text,
        ),
        text,
      ),
  });
}

export interface TcpSamplerOptions {
  /** Samples per second, integer 1..100. */
  hz: number;
  /** Seconds to run; 0 = until SIGTERM/SIGINT. */
  durationS: number;
  /** Match sockets whose local or remote port is one of these (e.g. iperf3 server ports). */
  ports?: readonly number[];
  /** Inclusive port ranges, matched like `ports`. */
  portRanges?: readonly { lo: number; hi: number }[];
  /** States to include; the sampler's default is established only. */
  states?: readonly TcpState[] | 'all' | 'connected';
  /**
   * Socket families to dump (sampler default: both). Each one costs a walk of the kernel's TCP hash per
   * tick. It is the socket's family: IPv4 peers accepted by a dual-stack `::` listener (iperf3's default
   * server) are inet6 sockets, while an iperf3 client connecting to an IPv4 address has an inet socket.
   */
  family?: 'inet' | 'inet6' | 'both';
  /** Defaults to tsv, the compact format. */
  format?: 'tsv' | 'jsonl';
  /** Program path or name, argv[0]; defaults to `lfn-tcpsampler` (looked up in PATH). */
  binary?: string;
}

/**
 * argv (argv[0] = program) for running the sampler, to hand to spawn/execFile or to append to
 * `['ip', 'netns', 'exec', ns]`. Never joined into a shell string. At least one port or range is
 * required so a run never samples every socket in the namespace by accident.
 */
export function tcpSamplerArgv(opts: TcpSamplerOptions): string[] {
  const { hz, durationS, ports = [], portRanges = [], states, family, format = 'tsv' } = opts;
  const hzArg = checkInt(hz, 1, 100, 'hz');
  const durationArg = checkSeconds(durationS, 'durationS');
  if (ports.length === 0 && portRanges.length === 0)
    throw new RangeError('give at least one port or port range');
  const argv = [opts.binary ?? TCP_SAMPLER_BINARY, '--hz', hzArg, '--duration', durationArg];
  for (const p of ports) argv.push('--port', checkPort(p, 'port'));
  for (const { lo, hi } of portRanges) {
    const range = `${checkPort(lo, 'port range start')}-${checkPort(hi, 'port range end')}`;
    if (lo > hi) throw new RangeError(`port range ${lo}-${hi} is reversed`);
    argv.push('--ports', range);
  }
  if (states !== undefined) {
    const list = typeof states === 'string' ? [states] : states;
    if (list.length === 0) throw new RangeError('states must not be empty');
    for (const s of list) {
      if (s !== 'all' && s !== 'connected' && !KNOWN_STATES.has(s))
        throw new RangeError(`unknown TCP state '${s}'`);
    }
    argv.push('--state', list.join(','));
  }
  if (family !== undefined) argv.push('--family', family);
  argv.push('--format', format);
  return argv;
}
