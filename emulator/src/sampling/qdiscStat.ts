// Types, parser and argv builder for lfn-qdiscstat (emulator/sampler), the qdisc-counter and CPU-time
// poller that runs inside the router namespace and streams one line per qdisc per tick, plus optionally
// one line of /proc/stat CPU counters per tick.
//
// Counters are kept raw and cumulative, as the kernel reports them: rates and percentages come from the
// difference of two records (see cpuPercent), so a consumer can pick its own window. Wall/monotonic time
// is turned into fractional milliseconds because nanoseconds since the epoch do not fit a double exactly.

import { checkDeviceName, checkInt, checkSeconds } from '../native/argv.js';
import { type Fail, LineParseError, lineParsers, type SamplingEndBase } from '../native/tsv.js';

export const QDISC_STAT_BINARY = 'lfn-qdiscstat';
/** Output format version the parser understands (the `v1` in the TSV header, `version` in JSONL). */
export const QDISC_STAT_FORMAT_VERSION = 1;

/** TSV column order of a qdisc record (first field `q`), as printed after `#` on its header line. */
export const QDISC_STAT_QDISC_COLUMNS = [
  'q',
  'tick',
  'ts_ns',
  'mono_ns',
  'dev',
  'ifindex',
  'kind',
  'handle',
  'parent',
  'bytes',
  'packets',
  'qlen',
  'backlog_bytes',
  'drops',
  'requeues',
  'overlimits',
] as const;
export type QdiscStatColumn = (typeof QDISC_STAT_QDISC_COLUMNS)[number];

/** The /proc/stat counters of a cpu record, in output order. */
export const CPU_TIME_FIELDS = [
  'user',
  'nice',
  'system',
  'irq',
  'softirq',
  'idle',
  'iowait',
  'steal',
] as const;
export type CpuTimeField = (typeof CPU_TIME_FIELDS)[number];

const CPU_PREFIX = ['c', 'tick', 'ts_ns', 'mono_ns', 'user_hz', 'ncpu'] as const;

/**
 * TSV column order of a cpu record (first field `c`): a fixed prefix and the totals, then `ncpu` groups
 * of `cpu` + the 8 counters. The header line shows one such group with each name prefixed by `*`.
 */
export const QDISC_STAT_CPU_COLUMNS = [
  ...CPU_PREFIX,
  ...CPU_TIME_FIELDS,
  '*cpu',
  ...CPU_TIME_FIELDS.map((f) => `*${f}` as const),
] as const;

/** One qdisc at one tick. Counters are cumulative over the qdisc's lifetime unless noted. */
export interface QdiscRecord {
  type: 'qdisc';
  /** Slot number since the poller started; a gap means skipped slots. */
  tick: number;
  /** CLOCK_REALTIME at the start of the tick, ms since the epoch (fractional). */
  timeMs: number;
  /** CLOCK_MONOTONIC at the start of the tick, ms (fractional). */
  monoMs: number;
  /** Device name. */
  dev: string;
  ifindex: number;
  /** Qdisc type: tbf, htb, netem, fq_codel, pfifo, noqueue, ingress, ... */
  kind: string;
  /** tc notation, e.g. `1:`, `0:`, `ffff:`. */
  handle: string;
  /** `root`, or the parent class in tc notation (`1:1`, `:1`, `ffff:fff1` for ingress/clsact). */
  parent: string;
  /** Bytes dequeued, i.e. passed on by this qdisc. */
  bytes: number;
  packets: number;
  /** Packets queued at this instant (a gauge, not cumulative). */
  qlen: number;
  /** Bytes queued at this instant (a gauge, not cumulative). */
  backlogBytes: number;
  drops: number;
  /** Packets the driver handed back; always 0 on kernels without TCA_STATS2. */
  requeues: number;
  /** Times the qdisc was over its rate or limit (throttle events). */
  overlimits: number;
}

/** Cumulative CPU time in jiffies (1/userHz s), as in /proc/stat. */
export type CpuTimes = Record<CpuTimeField, number>;

export interface QdiscCpuRecord {
  type: 'cpu';
  tick: number;
  timeMs: number;
  monoMs: number;
  /** Jiffies per second of the counters (USER_HZ, normally 100). */
  userHz: number;
  /** Sums over all CPUs. */
  total: CpuTimes;
  /** Online CPUs at this tick, by CPU number (offline CPUs are absent, so numbers may have gaps). */
  cpus: (CpuTimes & { cpu: number })[];
}

/**
 * The poller's last line. `records` counts qdisc lines, `cpuRecords` cpu lines; `errors` counts failed
 * qdisc dumps plus failed /proc/stat reads, and a tick's work is the dump, /proc/stat and the output.
 */
export interface QdiscStatEnd extends SamplingEndBase {
  cpuRecords: number;
  /** Qdiscs not reported because their device was deleted before the poller could name it. */
  vanished: number;
  /**
   * The part of cpuMs spent before the poller started: `ip netns exec` runs in the same process before it
   * execs the poller. The polling cost is (cpuMs − startupCpuMs) / elapsedMs.
   */
  startupCpuMs: number;
}

export type QdiscStatLine = QdiscRecord | QdiscCpuRecord | QdiscStatEnd;

export class QdiscStatParseError extends LineParseError {
  override name = 'QdiscStatParseError';
}

const parsers = lineParsers(QdiscStatParseError);
const fail: Fail = parsers.fail;
const { uint, nsToMs, str } = parsers;

function buildQdisc(get: (column: QdiscStatColumn) => unknown, line: string): QdiscRecord {
  const u = (c: QdiscStatColumn) => uint(get(c), c, line);
  return {
    type: 'qdisc',
    tick: u('tick'),
    timeMs: nsToMs(get('ts_ns'), 'ts_ns', line),
    monoMs: nsToMs(get('mono_ns'), 'mono_ns', line),
    dev: str(get('dev'), 'dev', line),
    ifindex: u('ifindex'),
    kind: str(get('kind'), 'kind', line),
    handle: str(get('handle'), 'handle', line),
    parent: str(get('parent'), 'parent', line),
    bytes: u('bytes'),
    packets: u('packets'),
    qlen: u('qlen'),
    backlogBytes: u('backlog_bytes'),
    drops: u('drops'),
    requeues: u('requeues'),
    overlimits: u('overlimits'),
  };
}

function cpuTimes(get: (field: CpuTimeField) => unknown, where: string, line: string): CpuTimes {
  const t = {} as CpuTimes;
  for (const f of CPU_TIME_FIELDS) t[f] = uint(get(f), `${where}${f}`, line);
  return t;
}

function buildEnd(get: (key: string) => unknown, line: string): QdiscStatEnd {
  const u = (k: string) => uint(get(k), k, line);
  return {
    ...parsers.samplingEndBase(get, line),
    cpuRecords: u('cpu_records'),
    vanished: u('vanished'),
    startupCpuMs: nsToMs(get('startup_cpu_ns'), 'startup_cpu_ns', line),
  };
}

const CPU_GROUP = 1 + CPU_TIME_FIELDS.length;
const CPU_FIXED = CPU_PREFIX.length + CPU_TIME_FIELDS.length;

function parseTsvCpu(fields: string[], line: string): QdiscCpuRecord {
  const at = (i: number) => fields[i];
  const ncpu = uint(at(5), 'ncpu', line);
  const expected = CPU_FIXED + ncpu * CPU_GROUP;
  if (fields.length !== expected) {
    fail(`expected ${expected} tab-separated fields for ncpu=${ncpu}, got ${fields.length}`, line);
  }
  const cpus: QdiscCpuRecord['cpus'] = [];
  for (let i = 0; i < ncpu; i++) {
    const base = CPU_FIXED + i * CPU_GROUP;
    const cpu = uint(at(base), `cpus[${i}].cpu`, line);
    const times = cpuTimes((f) => at(base + 1 + CPU_TIME_FIELDS.indexOf(f)), `cpus[${i}].`, line);
    cpus.push({ cpu, ...times });
  }
  return {
    type: 'cpu',
    tick: uint(at(1), 'tick', line),
    timeMs: nsToMs(at(2), 'ts_ns', line),
    monoMs: nsToMs(at(3), 'mono_ns', line),
    userHz: positive(uint(at(4), 'user_hz', line), 'user_hz', line),
    total: cpuTimes((f) => at(CPU_PREFIX.length + CPU_TIME_FIELDS.indexOf(f)), 'total.', line),
    cpus,
  };
}

function positive(n: number, name: string, line: string): number {
  return n > 0 ? n : fail(`${name} must be positive`, line);
}

function parseJsonCpu(
  rec: Record<string, unknown>,
  get: (k: string) => unknown,
  line: string,
): QdiscCpuRecord {
  const list = rec.cpus;
  if (!Array.isArray(list)) fail('cpus is not an array', line);
  const ncpu = uint(get('ncpu'), 'ncpu', line);
  if (list.length !== ncpu) fail(`ncpu=${ncpu} but cpus has ${list.length} entries`, line);
  const cpus = list.map((entry: unknown, i) => {
    if (typeof entry !== 'object' || entry === null) return fail(`cpus[${i}] is not an object`, line);
    const e = entry as Record<string, unknown>;
    const pick = (k: string) => (Object.hasOwn(e, k) ? e[k] : undefined);
    return { cpu: uint(pick('cpu'), `cpus[${i}].cpu`, line), ...cpuTimes(pick, `cpus[${i}].`, line) };
  });
  return {
    type: 'cpu',
    tick: uint(get('tick'), 'tick', line),
    timeMs: nsToMs(get('ts_ns'), 'ts_ns', line),
    monoMs: nsToMs(get('mono_ns'), 'mono_ns', line),
    userHz: positive(uint(get('user_hz'), 'user_hz', line), 'user_hz', line),
    total: cpuTimes(get, 'total.', line),
    cpus,
  };
}

/**
 * Parses one line of lfn-qdiscstat output (TSV or JSONL; trailing CR/LF ignored).
 * Returns null for header, comment and blank lines, and for the JSONL start record.
 * Throws QdiscStatParseError for anything malformed, so a format mismatch is never silently dropped.
 */
export function parseQdiscStatLine(line: string): QdiscStatLine | null {
  return parsers.tsvLine(QDISC_STAT_BINARY, QDISC_STAT_FORMAT_VERSION, line, {
    json: (text) =>
      parsers.jsonLine<QdiscStatLine>(QDISC_STAT_BINARY, QDISC_STAT_FORMAT_VERSION, text, {
        qdisc: (get) => buildQdisc(get, text),
        cpu: (get, rec) => parseJsonCpu(rec, get, text),
        end: (get) => buildEnd(get, text),
      }),
    end: (kv, text) => buildEnd((k) => kv.get(k), text),
    row: (fields, text) => {
      switch (fields[0]) {
        case 'q':
          return buildQdisc(parsers.row(fields, QDISC_STAT_QDISC_COLUMNS, text), text);
        case 'c':
          return parseTsvCpu(fields, text);
        default:
          return fail(`unknown record kind '${fields[0] ?? ''}' (expected q or c)`, text);
      }
    },
  });
}

export interface QdiscStatOptions {
  /** Samples per second, integer 1..100. */
  hz: number;
  /** Seconds to run; 0 = until SIGTERM/SIGINT. */
  durationS: number;
  /** Only qdiscs of these devices (matched by name at every tick); default all devices. */
  devs?: readonly string[];
  /** Also emit one /proc/stat cpu record per tick. */
  cpu?: boolean;
  /** Defaults to tsv, the compact format. */
  format?: 'tsv' | 'jsonl';
  /** Program path or name, argv[0]; defaults to `lfn-qdiscstat` (looked up in PATH). */
  binary?: string;
}

/**
 * argv (argv[0] = program) for running the poller, to hand to spawn/execFile or to append to
 * `['ip', 'netns', 'exec', ns]`. Never joined into a shell string.
 */
export function qdiscStatArgv(opts: QdiscStatOptions): string[] {
  const { hz, durationS, devs = [], cpu = false, format = 'tsv' } = opts;
  const hzArg = checkInt(hz, 1, 100, 'hz');
  const durationArg = checkSeconds(durationS, 'durationS');
  if (devs.length > 64) throw new RangeError(`at most 64 devs (got ${devs.length})`);
  const argv = [opts.binary ?? QDISC_STAT_BINARY, '--hz', hzArg, '--duration', durationArg];
  for (const dev of devs) argv.push('--dev', checkDeviceName(dev));
  if (cpu) argv.push('--cpu');
  argv.push('--format', format);
  return argv;
}

/** Shares of CPU time between two cpu records, in percent of the elapsed jiffies (0..100 each). */
export interface CpuShares extends Record<CpuTimeField, number> {
  /** Jiffies that elapsed (sum of all counter deltas); 0 means the shares carry no information. */
  jiffies: number;
  /** Busy: 100 − idle − iowait (so it includes irq, softirq and steal). */
  total: number;
}

export interface CpuPercent extends CpuShares {
  /** Per CPU present in both records, by CPU number. */
  perCpu: (CpuShares & { cpu: number })[];
}

function shares(prev: CpuTimes, cur: CpuTimes): CpuShares {
  // A per-CPU iowait can go backwards (the kernel says so); count such a step as zero.
  const delta = {} as CpuTimes;
  let jiffies = 0;
  for (const f of CPU_TIME_FIELDS) {
    delta[f] = Math.max(0, cur[f] - prev[f]);
    jiffies += delta[f];
  }
  const pct = (n: number) => (jiffies > 0 ? (100 * n) / jiffies : 0);
  const out = { jiffies, total: pct(jiffies - delta.idle - delta.iowait) } as CpuShares;
  for (const f of CPU_TIME_FIELDS) out[f] = pct(delta[f]);
  return out;
}

/**
 * Percentages of CPU time spent in each state between two cpu records of one run. Counters advance in
 * whole jiffies (10 ms at USER_HZ 100), so records a single 100 Hz tick apart give 0/100 values; compare
 * records at least ~10 jiffies apart for useful numbers. Shares are 0 when no jiffy elapsed (jiffies = 0).
 */
export function cpuPercent(prev: QdiscCpuRecord, cur: QdiscCpuRecord): CpuPercent {
  if (prev.userHz !== cur.userHz) throw new RangeError('cpu records have different user_hz');
  if (cur.tick < prev.tick)
    throw new RangeError(`cpu records out of order (tick ${prev.tick} > ${cur.tick})`);
  const before = new Map(prev.cpus.map((c) => [c.cpu, c]));
  const perCpu: CpuPercent['perCpu'] = [];
  for (const c of cur.cpus) {
    const p = before.get(c.cpu);
    if (p) perCpu.push({ cpu: c.cpu, ...shares(p, c) });
  }
  return { ...shares(prev.total, cur.total), perCpu };
}
