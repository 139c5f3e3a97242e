// Line parsing shared by the parsers of the lab's own C programs (emulator/sampling, emulator/traffic,
// emulator/transports). They all print tab-separated rows, `#` comment lines and key=value records, and
// the parsers treat them alike: every malformed field throws, naming the field and quoting the line, so
// a format mismatch is never silently dropped.
//
// Each parser keeps its own error class (callers test for it), so the helpers come from a factory that is
// given that class. Time fields become fractional milliseconds because nanoseconds since boot or the epoch
// do not fit a double exactly.

/** Base of every parser's error class: the message ends with the offending line (cut at 120 chars). */
export class LineParseError extends Error {
  constructor(
    message: string,
    readonly line: string,
  ) {
    super(`${message}: ${line.length > 120 ? `${line.slice(0, 120)}…` : line}`);
    this.name = 'LineParseError';
  }
}

export type LineParseErrorClass = new (message: string, line: string) => LineParseError;

/** Throws the parser's error. Assign it to a const with this type so TypeScript sees that it never returns. */
export type Fail = (message: string, line: string) => never;

/** Why a sampler or traffic program stopped (the `reason` of its end record). */
export const RUN_END_REASONS = ['duration', 'signal', 'error'] as const;

/**
 * The `#end` fields both ticking samplers (lfn-tcpsampler, lfn-qdiscstat) write; each program's end type
 * adds its own and says what a tick and an error are for it.
 */
export interface SamplingEndBase {
  type: 'end';
  reason: (typeof RUN_END_REASONS)[number];
  /** Ticks run. */
  ticks: number;
  /** Ticks whose work ran past the start of the next slot. */
  late: number;
  /** Slots dropped because a late tick overran them. */
  skipped: number;
  /** Record lines written. */
  records: number;
  errors: number;
  /** Longest tick's work (reading and output). */
  maxWorkMs: number;
  elapsedMs: number;
  /** CPU time of the program's process, user + system (includes the kernel's work for its reads). */
  cpuMs: number;
}

/** Trailing CR/LF removed: every parser accepts lines with or without their terminator. */
export function stripLineEnd(line: string): string {
  return line.replace(/[\r\n]+$/, '');
}

const UINT_TEXT = /^\d{1,20}$/;

/** What a `# <program> vN ...` TSV format's lines hand to the parser (see `tsvLine`). */
export interface TsvLineHandlers<R, E, J> {
  /** A data row, split at tabs. */
  row: (fields: string[], text: string) => R;
  /** The `#end<TAB>key=value...` record. */
  end: (kv: Map<string, string>, text: string) => E;
  /** Formats that also print JSONL: a line starting with '{'. Without it such a line is a data row. */
  json?: (text: string) => J;
}

/** The format version a parser reads, or the versions it reads (a newer one added columns at the end). */
export type Versions = number | readonly number[];
const readable = (v: Versions, found: unknown) =>
  typeof v === 'number' ? found === v : typeof found === 'number' && v.includes(found);

const columnIndexes = new WeakMap<readonly string[], Map<string, number>>();

function columnIndex(columns: readonly string[]): Map<string, number> {
  let index = columnIndexes.get(columns);
  if (index === undefined) {
    index = new Map(columns.map((c, i) => [c, i]));
    columnIndexes.set(columns, index);
  }
  return index;
}

/** The field parsers, bound to one parser's error class. */
export function lineParsers(ErrorClass: LineParseErrorClass) {
  const fail: Fail = (message, line) => {
    throw new ErrorClass(message, line);
  };

  /** An unsigned integer: a JSON number, or up to 20 decimal digits (u64 values past 2^53 get rounded). */
  function uint(value: unknown, name: string, line: string): number {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
    if (typeof value === 'string' && UINT_TEXT.test(value)) return Number(value);
    return fail(`${name} is not a non-negative integer (${String(value)})`, line);
  }

  /** ns → fractional ms, splitting the digits so values past 2^53 ns keep their sub-µs part. */
  function nsToMs(value: unknown, name: string, line: string): number {
    if (typeof value === 'string' && UINT_TEXT.test(value)) {
      const cut = Math.max(0, value.length - 6);
      return Number(value.slice(0, cut) || '0') + Number(value.slice(cut)) / 1e6;
    }
    return uint(value, name, line) / 1e6;
  }

  /** A non-empty string. */
  function str(value: unknown, name: string, line: string): string {
    if (typeof value === 'string' && value.length > 0) return value;
    return fail(`${name} is missing`, line);
  }

  /** `value` if it is one of `allowed`. */
  function oneOf<T extends string>(value: unknown, allowed: readonly T[], message: string, line: string): T {
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) fail(message, line);
    return value as T;
  }

  /** The fields every sampler's end record has (SamplingEndBase), read from TSV or JSONL through `get`. */
  function samplingEndBase(get: (key: string) => unknown, line: string): SamplingEndBase {
    const u = (k: string) => uint(get(k), k, line);
    return {
      type: 'end',
      reason: oneOf(get('reason'), RUN_END_REASONS, 'unknown end reason', line),
      ticks: u('ticks'),
      late: u('late'),
      skipped: u('skipped'),
      records: u('records'),
      errors: u('errors'),
      maxWorkMs: nsToMs(get('max_work_ns'), 'max_work_ns', line),
      elapsedMs: nsToMs(get('elapsed_ns'), 'elapsed_ns', line),
      cpuMs: nsToMs(get('cpu_ns'), 'cpu_ns', line),
    };
  }

  /** Splits `#name<TAB>k=v<TAB>k=v...` (the part after `prefixLength`) into a map; a field without a key fails. */
  function keyValues(text: string, prefixLength: number, what = 'key=value'): Map<string, string> {
    const kv = new Map<string, string>();
    for (const part of text.slice(prefixLength).split('\t')) {
      const eq = part.indexOf('=');
      if (eq <= 0) fail(`malformed ${what} field`, text);
      kv.set(part.slice(0, eq), part.slice(eq + 1));
    }
    return kv;
  }

  /** Fails unless a data row has exactly `count` fields. */
  function fieldCount(fields: readonly string[], count: number, text: string): void {
    if (fields.length !== count) fail(`expected ${count} tab-separated fields, got ${fields.length}`, text);
  }

  /** A data row of `columns`, read by column name; fails unless it has one field per column. */
  function row<C extends string>(
    fields: readonly string[],
    columns: readonly C[],
    text: string,
  ): (column: C) => string | undefined {
    fieldCount(fields, columns.length, text);
    const index = columnIndex(columns);
    return (c) => fields[index.get(c) ?? -1];
  }

  /** Fails unless a `# <program> vN ...` header is of format version `version` (or one of them). */
  function checkVersion(text: string, program: string, version: Versions): void {
    const found = new RegExp(`^# ${program} v(\\d+)\\b`).exec(text)?.[1];
    if (!readable(version, Number(found))) fail(`unsupported ${program} format version`, text);
  }

  /**
   * The line dispatch of the sampler and traffic formats (trailing CR/LF ignored): blank lines, the
   * program's `# <program> vN ...` header (after its version is checked) and any other `#` comment give
   * null; `#end` goes to `handlers.end`, a line starting with '{' to `handlers.json` if given, and anything
   * else to `handlers.row`.
   */
  function tsvLine<R, E, J = never>(
    program: string,
    version: Versions,
    line: string,
    handlers: TsvLineHandlers<R, E, J>,
  ): R | E | J | null {
    const text = stripLineEnd(line);
    if (text === '') return null;
    if (handlers.json && text.startsWith('{')) return handlers.json(text);
    if (text.startsWith('#end\t')) return handlers.end(keyValues(text, '#end\t'.length, 'end'), text);
    if (text.startsWith(`# ${program} `)) {
      checkVersion(text, program, version);
      return null;
    }
    if (text.startsWith('#')) return null;
    return handlers.row(text.split('\t'), text);
  }

  /**
   * One JSONL record: its `type` picks the builder, which reads fields through `get` (own keys only, never
   * the prototype's). The `start` record only has its `version` checked and gives null.
   */
  function jsonLine<T>(
    program: string,
    version: Versions,
    line: string,
    builders: Record<string, (get: (key: string) => unknown, rec: Record<string, unknown>) => T>,
  ): T | null {
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch {
      return fail('invalid JSON', line);
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return fail('not a JSON object', line);
    const rec = obj as Record<string, unknown>;
    const get = (k: string) => (Object.hasOwn(rec, k) ? rec[k] : undefined);
    const type = rec.type;
    if (type === 'start') {
      if (!readable(version, rec.version)) fail(`unsupported ${program} format version`, line);
      return null;
    }
    const build = typeof type === 'string' && Object.hasOwn(builders, type) ? builders[type] : undefined;
    if (build === undefined) return fail('unknown record type', line);
    return build(get, rec);
  }

  return {
    fail,
    uint,
    nsToMs,
    str,
    oneOf,
    samplingEndBase,
    keyValues,
    fieldCount,
    row,
    checkVersion,
    tsvLine,
    jsonLine,
  };
}
