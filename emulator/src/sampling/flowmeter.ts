// Parser for lfn-flowmeter (emulator/flowmeter): per-tick counters and passive RTT of the TCP
// half-flows crossing the lab when it is a bump in the wire between two external hosts.
//
// Pure: text in, typed records out; the run's demux and the host-side test of the real binary
// share it. Counters in a record are for the interval ending at
// its tick, so they add up over ticks; flight is the value at the tick. Wall/monotonic time become
// fractional ms, as for the other samplers, since ns since the epoch do not fit a double exactly.
//
// Also its argv: a wire's flows as the lab sees them on its two ports.

import { checkDeviceName, checkInt } from '../native/argv.js';
import { type Fail, LineParseError, lineParsers, type SamplingEndBase } from '../native/tsv.js';

export const FLOWMETER_BINARY = 'lfn-flowmeter';

export const FLOWMETER_FORMAT_VERSION = 1;

/** TSV column order of format v1, as printed after `#` on the second header line. */
export const FLOWMETER_COLUMNS = [
  'tick',
  'ts_ns',
  'mono_ns',
  'side',
  'flow',
  'in_bytes',
  'in_pkts',
  'out_bytes',
  'out_pkts',
  'new_bytes',
  'retrans_in',
  'flight_bytes',
  'rtt_n',
  'rtt_min_us',
  'rtt_mean_us',
  'rtt_max_us',
] as const;
export type FlowmeterColumn = (typeof FLOWMETER_COLUMNS)[number];

/** One half-flow (one direction of one connection) over one tick. */
export interface FlowmeterRecord {
  type: 'flow';
  /** Slot number since start; the record covers the interval ending at this slot. */
  tick: number;
  /** CLOCK_REALTIME at the tick, ms since the epoch (fractional). */
  t: number;
  /** CLOCK_MONOTONIC at the tick, ms (fractional). */
  monoMs: number;
  /** The bridged port the half-flow enters on (its source is behind it); it leaves on the other. */
  side: 'a' | 'b';
  /** `src:sport>dst:dport`, the key to follow a half-flow across ticks. */
  flow: string;
  src: string;
  srcPort: number;
  dst: string;
  dstPort: number;
  /** Payload bytes and segments that entered the emulator. */
  inBytes: number;
  inPackets: number;
  /** Payload bytes and segments that left it toward the receiver. */
  outBytes: number;
  outPackets: number;
  /** Payload bytes that left for the first time (new sequence space, or a hole filled): goodput at the exit. */
  newBytes: number;
  /** Data segments that entered at or below the highest sequence already seen entering. */
  retransIn: number;
  /** Highest sequence entered minus the highest ACK entered from the opposite half-flow (0 = unknown). */
  flightBytes: number;
  /** RTT samples from TCP timestamps in this tick; min/mean/max are null without samples. */
  rttN: number;
  rttMinUs: number | null;
  rttMeanUs: number | null;
  rttMaxUs: number | null;
}

/** The program's closing counters: the ticking samplers' own, and what the capture saw. */
export interface FlowmeterEnd extends SamplingEndBase {
  /** Frames read from the capture socket. */
  frames: number;
  /** Of those, frames it could not use (malformed, fragments, a source on the wrong side). */
  ignored: number;
  /** Frames the capture socket lost (PACKET_STATISTICS): counts are short when this is > 0. */
  drops: number;
  /** Half-flows seen over the run. */
  flows: number;
  /** Frames of new half-flows dropped because the table was full. */
  overflows: number;
  /** TSvals not kept because their half-flow's queue was full (fewer RTT samples, none wrong). */
  tsFull: number;
  /** Gaps in the sequence space that left, forgotten for want of room: newBytes is short when > 0. */
  holesFull: number;
  /** Frames timed when read because their kernel stamp was not the tap's (they came through a veth). */
  restamped: number;
}

export type FlowmeterLine = FlowmeterRecord | FlowmeterEnd;

export class FlowmeterParseError extends LineParseError {
  override name = 'FlowmeterParseError';
}

const parsers = lineParsers(FlowmeterParseError);
// Typed as Fail so that TypeScript sees it never returns.
const fail: Fail = parsers.fail;
const { uint, nsToMs, samplingEndBase, keyValues } = parsers;

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function endpoint(text: string, name: string, line: string): [string, number] {
  const colon = text.lastIndexOf(':');
  const addr = text.slice(0, colon);
  const octets = IPV4.exec(addr);
  if (colon < 0 || !octets || octets.slice(1).some((o) => Number(o) > 255))
    fail(`${name} must be an IPv4 address:port (got '${text}')`, line);
  const port = uint(text.slice(colon + 1), `${name} port`, line);
  if (port < 1 || port > 65535) fail(`${name} port must be 1..65535 (got ${port})`, line);
  return [addr, port];
}

function parseRecord(fields: string[], line: string): FlowmeterRecord {
  if (fields.length !== FLOWMETER_COLUMNS.length)
    fail(`expected ${FLOWMETER_COLUMNS.length} tab-separated fields, got ${fields.length}`, line);
  const get = (c: FlowmeterColumn) => fields[FLOWMETER_COLUMNS.indexOf(c)];
  const u = (c: FlowmeterColumn) => uint(get(c), c, line);
  const side = get('side');
  if (side !== 'a' && side !== 'b') fail(`side must be a or b (got '${side}')`, line);
  const flow = get('flow') as string;
  const parts = flow.split('>');
  if (parts.length !== 2) fail(`flow must be src:sport>dst:dport (got '${flow}')`, line);
  const [src, srcPort] = endpoint(parts[0] as string, 'flow source', line);
  const [dst, dstPort] = endpoint(parts[1] as string, 'flow destination', line);
  const rttN = u('rtt_n');
  const rtt = (c: FlowmeterColumn) => {
    const v = u(c);
    return rttN > 0 ? v : null;
  };
  return {
    type: 'flow',
    tick: u('tick'),
    t: nsToMs(get('ts_ns'), 'ts_ns', line),
    monoMs: nsToMs(get('mono_ns'), 'mono_ns', line),
    side,
    flow,
    src,
    srcPort,
    dst,
    dstPort,
    inBytes: u('in_bytes'),
    inPackets: u('in_pkts'),
    outBytes: u('out_bytes'),
    outPackets: u('out_pkts'),
    newBytes: u('new_bytes'),
    retransIn: u('retrans_in'),
    flightBytes: u('flight_bytes'),
    rttN,
    rttMinUs: rtt('rtt_min_us'),
    rttMeanUs: rtt('rtt_mean_us'),
    rttMaxUs: rtt('rtt_max_us'),
  };
}

function parseEnd(text: string): FlowmeterEnd {
  const kv = keyValues(text, '#end\t'.length, 'end key=value');
  const u = (k: string) => uint(kv.get(k), k, text);
  return {
    ...samplingEndBase((k) => kv.get(k), text),
    frames: u('frames'),
    ignored: u('ignored'),
    drops: u('drops'),
    flows: u('flows'),
    overflows: u('overflows'),
    tsFull: u('ts_full'),
    holesFull: u('holes_full'),
    // Older binaries did not say; frames timed when read instead of by their kernel stamp.
    restamped: kv.has('restamped') ? u('restamped') : 0,
  };
}

/**
 * One output line (with or without its line end): a record, the end record, or null for blank and
 * comment lines. Throws FlowmeterParseError, naming the field, on a malformed line or a header of
 * another format version.
 */
export function parseFlowmeterLine(line: string): FlowmeterLine | null {
  const text = line.replace(/[\r\n]+$/, '');
  if (text === '') return null;
  if (text.startsWith('#end\t')) return parseEnd(text);
  if (text.startsWith(`# ${FLOWMETER_BINARY} `)) {
    const version = /^# lfn-flowmeter v(\d+)\b/.exec(text)?.[1];
    if (Number(version) !== FLOWMETER_FORMAT_VERSION)
      fail(
        `format version must be v${FLOWMETER_FORMAT_VERSION} (got ${version ? `v${version}` : 'none'})`,
        text,
      );
    return null;
  }
  if (text.startsWith('#')) return null;
  return parseRecord(text.split('\t'), text);
}

export interface FlowmeterOutput {
  records: FlowmeterRecord[];
  /** Null when the program did not end cleanly (killed, or its output was cut). */
  end: FlowmeterEnd | null;
  /** Lines that did not parse, with why; the rest of the output is still read. */
  malformed: { line: string; error: string }[];
  /** The text ended inside a line (a stream cut mid-write); that line was left out. */
  truncated: boolean;
}

/**
 * A whole output (or what arrived of it). A last line without its newline is left out rather than
 * parsed: cut inside a number it would still parse, as a smaller number.
 */
export function parseFlowmeterOutput(text: string): FlowmeterOutput {
  const lines = text.split('\n');
  const last = lines.pop() ?? '';
  const out: FlowmeterOutput = { records: [], end: null, malformed: [], truncated: last !== '' };
  for (const line of lines) {
    try {
      const r = parseFlowmeterLine(line);
      if (r?.type === 'flow') out.records.push(r);
      else if (r?.type === 'end') out.end = r;
    } catch (e) {
      if (!(e instanceof FlowmeterParseError)) throw e;
      out.malformed.push({ line, error: e.message });
    }
  }
  return out;
}

export interface FlowmeterOptions {
  /** The port facing the sender side, and the one facing the receiver side. */
  a: string;
  b: string;
  hz: number;
  binary?: string;
}

export function flowmeterArgv(o: FlowmeterOptions): string[] {
  return [
    o.binary ?? FLOWMETER_BINARY,
    '--a',
    checkDeviceName(o.a),
    '--b',
    checkDeviceName(o.b),
    '--hz',
    checkInt(o.hz, 1, 100, 'hz'),
  ];
}
