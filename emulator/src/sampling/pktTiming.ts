// Argv builder and parser for lfn-pkttiming (emulator/timing): per direction of a path, the
// bottleneck's busy dequeue gaps (as a histogram of nanoseconds per byte) and the delay stage's
// added delay, per capture window. The verdict judges them (backend/src/run/timingChecks.ts).
import { checkDeviceName, checkInt, checkSeconds } from '../native/argv.js';

export const PKT_TIMING_BINARY = 'lfn-pkttiming';
export const PKT_TIMING_FORMAT_VERSION = 1;
/** Busy-gap bins: bin b covers [BIN_MIN · BIN_STEP^b, BIN_MIN · BIN_STEP^(b+1)) ns per byte. */
export const PKT_TIMING_BIN_MIN = 0.01;
export const PKT_TIMING_BIN_STEP = 1.01;

export interface PktTimingDirection {
  /** e.g. main.forward */
  name: string;
  /** The bottleneck's IFB and the device after the delay stage, in the router namespace. */
  ifb: string;
  egress: string;
}

export interface PktTimingOptions {
  dirs: PktTimingDirection[];
  windowMs: number;
  everyMs: number;
  maxPerWindow?: number;
  durationS?: number;
}

export function pktTimingArgv(o: PktTimingOptions): string[] {
  if (o.dirs.length === 0 || o.dirs.length > 32) throw new RangeError('pkttiming needs 1 to 32 directions');
  const argv = [PKT_TIMING_BINARY];
  for (const d of o.dirs) {
    if (!/^[\w.:-]{1,63}$/.test(d.name))
      throw new RangeError(`pkttiming direction name '${d.name}' is not plain`);
    argv.push('--dir', `${d.name},${checkDeviceName(d.ifb)},${checkDeviceName(d.egress)}`);
  }
  argv.push('--window-ms', checkInt(o.windowMs, 10, 60_000, '--window-ms'));
  argv.push('--every-ms', checkInt(o.everyMs, 10, 60_000, '--every-ms'));
  if (o.windowMs > o.everyMs) throw new RangeError('--window-ms must not exceed --every-ms');
  if (o.maxPerWindow !== undefined)
    argv.push('--max-per-window', checkInt(o.maxPerWindow, 1, 1e9, '--max-per-window'));
  argv.push('--duration', checkSeconds(o.durationS ?? 0, '--duration'));
  return argv;
}

/** One direction over one capture window. Times in ms; delays in ms. */
export interface PktTimingWindow {
  type: 'window';
  tick: number;
  /** CLOCK_REALTIME at the window's end, ms since the epoch. */
  timeMs: number;
  monoMs: number;
  dir: string;
  departures: number;
  /** Departures whose arrival was seen (in this window). */
  matched: number;
  /** Departures that left a busy queue: the gaps judged. */
  busy: number;
  egressed: number;
  delay: { n: number; minMs: number; p1Ms: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** Frames the capture socket itself lost in this window (it is left out when > 0). */
  captureDrops: number;
  /** bin index → busy gaps */
  bins: Map<number, number>;
}

export interface PktTimingEnd {
  type: 'end';
  reason: string;
  windows: number;
  records: number;
  captured: number;
  arrivals: number;
  drops: number;
}

export type PktTimingLine = PktTimingWindow | PktTimingEnd | null;

const nsToMs = (s: string) => Number(s) / 1e6;

/** One output line; null for header lines. Throws on a malformed record. */
export function parsePktTimingLine(line: string): PktTimingLine {
  const l = line.replace(/\r?\n$/, '');
  if (l.startsWith('#end')) {
    const kv = Object.fromEntries(
      l
        .split('\t')
        .slice(1)
        .map((p) => p.split('=') as [string, string]),
    );
    return {
      type: 'end',
      reason: kv.reason ?? '?',
      windows: Number(kv.windows),
      records: Number(kv.records),
      captured: Number(kv.captured),
      arrivals: Number(kv.arrivals),
      drops: Number(kv.drops),
    };
  }
  if (l.startsWith('#')) {
    const v = /^#lfn-pkttiming\tv(\d+)/.exec(l);
    if (v && Number(v[1]) !== PKT_TIMING_FORMAT_VERSION)
      throw new Error(`lfn-pkttiming format v${v[1]}; this parser reads v${PKT_TIMING_FORMAT_VERSION}`);
    return null;
  }
  const f = l.split('\t');
  if (f[0] !== 'w' || f.length !== 17) throw new Error(`not a lfn-pkttiming record: ${l.slice(0, 80)}`);
  const bins = new Map<number, number>();
  if (f[16] !== '-')
    for (const bc of (f[16] as string).split(',')) {
      const [b, c] = bc.split(':').map(Number);
      if (!Number.isInteger(b) || !Number.isInteger(c)) throw new Error(`bad bin '${bc}'`);
      bins.set(b as number, c as number);
    }
  const n = (i: number) => Number(f[i]);
  return {
    type: 'window',
    tick: n(1),
    timeMs: nsToMs(f[2] as string),
    monoMs: nsToMs(f[3] as string),
    dir: f[4] as string,
    departures: n(5),
    matched: n(6),
    busy: n(7),
    egressed: n(8),
    delay: {
      n: n(9),
      minMs: nsToMs(f[10] as string),
      p1Ms: nsToMs(f[11] as string),
      p50Ms: nsToMs(f[12] as string),
      p99Ms: nsToMs(f[13] as string),
      maxMs: nsToMs(f[14] as string),
    },
    captureDrops: n(15),
    bins,
  };
}

/** The ns-per-byte range a bin covers. */
export const binRange = (b: number): [number, number] => {
  const lo = PKT_TIMING_BIN_MIN * PKT_TIMING_BIN_STEP ** b;
  return [lo, lo * PKT_TIMING_BIN_STEP];
};
