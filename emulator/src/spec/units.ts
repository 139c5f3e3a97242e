// Parsers for the unit-carrying strings a spec is written in ("100Mbit", "50ms", "64KiB", "0.2bdp").
// Each returns a Result so the schema can name the field and the allowed form in its message.

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(error: string): Parsed<T> => ({ ok: false, error });

const NUMBER = String.raw`(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)`;

function split(text: string): { n: number; unit: string } | undefined {
  const m = new RegExp(`^\\s*${NUMBER}\\s*([A-Za-z/%]*)\\s*$`).exec(text);
  if (!m?.[1]) return undefined;
  return { n: Number(m[1]), unit: m[2] ?? '' };
}

/** Rates in bits per second. tc's vocabulary (kbit, mbit, gbit) in any case, with an optional "/s". */
const RATE_UNITS: Record<string, number> = {
  bit: 1,
  kbit: 1e3,
  mbit: 1e6,
  gbit: 1e9,
  bps: 1,
  kbps: 1e3,
  mbps: 1e6,
  gbps: 1e9,
};
export const RATE_FORM = "a number with kbit, Mbit or Gbit, e.g. '100Mbit' or '1.5Gbit/s'";

export function parseRate(text: string): Parsed<number> {
  const s = split(text);
  if (!s) return fail(`must be ${RATE_FORM}`);
  const unit = s.unit.replace(/\/s$/i, '');
  const bytes = /^([kKmMgG]?)B(ps)?$/.exec(unit);
  if (bytes) {
    return fail(`'${text}' is in bytes; write bits, e.g. '${s.n * 8}${(bytes[1] ?? '').toUpperCase()}bit'`);
  }
  const mult = RATE_UNITS[unit.toLowerCase()];
  if (mult === undefined) return fail(`unknown rate unit '${s.unit}'; ${RATE_FORM}`);
  return ok(s.n * mult);
}

/** Durations in milliseconds. */
const TIME_UNITS: Record<string, number> = { us: 1e-3, ms: 1, s: 1e3, min: 60e3, h: 3600e3 };
export const TIME_FORM = "a number with us, ms, s, min or h, e.g. '50ms' or '20s'";

export function parseDuration(text: string): Parsed<number> {
  const s = split(text);
  if (!s) return fail(`must be ${TIME_FORM}`);
  const mult = TIME_UNITS[s.unit];
  if (mult === undefined) {
    return fail(s.unit ? `unknown time unit '${s.unit}'; ${TIME_FORM}` : `needs a unit; ${TIME_FORM}`);
  }
  return ok(s.n * mult);
}

/** Sizes in bytes. K/M/G are powers of 1000, Ki/Mi/Gi powers of 1024, as iperf3 users expect both. */
const SIZE_UNITS: Record<string, number> = {
  B: 1,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
};
export const SIZE_FORM = "a number with B, KB, KiB, MB, MiB, GB or GiB, e.g. '64KiB'";

export function parseSize(text: string): Parsed<number> {
  const s = split(text);
  if (!s) return fail(`must be ${SIZE_FORM}`);
  const mult = SIZE_UNITS[s.unit];
  if (mult === undefined) {
    if (/bit$/i.test(s.unit)) return fail(`'${text}' is a rate; a size is ${SIZE_FORM}`);
    return fail(s.unit ? `unknown size unit '${s.unit}'; ${SIZE_FORM}` : `needs a unit; ${SIZE_FORM}`);
  }
  return ok(Math.round(s.n * mult));
}

/** A buffer or window given in packets, bytes, or as a multiple of the path's bandwidth-delay product. */
export type Amount = { packets: number } | { bytes: number } | { bdp: number };
export const AMOUNT_FORM =
  "packets (e.g. 100 or '100pkt'), a size (e.g. '256KiB') or a BDP multiple (e.g. '0.2bdp')";

export function parseAmount(input: string | number): Parsed<Amount> {
  if (typeof input === 'number') {
    return Number.isInteger(input)
      ? ok({ packets: input })
      : fail(`packets must be a whole number (got ${input})`);
  }
  const s = split(input);
  if (!s) return fail(`must be ${AMOUNT_FORM}`);
  if (/^bdp$/i.test(s.unit)) return ok({ bdp: s.n });
  if (s.unit === '' || /^(pkt|pkts|packets?|p)$/i.test(s.unit)) {
    return Number.isInteger(s.n) ? ok({ packets: s.n }) : fail(`packets must be a whole number (got ${s.n})`);
  }
  const size = parseSize(input);
  return size.ok ? ok({ bytes: size.value }) : fail(`must be ${AMOUNT_FORM}`);
}

/** Inverse formatting, for messages and for tc's own vocabulary. */
export function formatRate(bps: number): string {
  if (bps >= 1e9 && bps % 1e6 === 0) return `${trim(bps / 1e9)}Gbit`;
  if (bps >= 1e6) return `${trim(bps / 1e6)}Mbit`;
  if (bps >= 1e3) return `${trim(bps / 1e3)}kbit`;
  return `${trim(bps)}bit`;
}

export function formatMs(ms: number): string {
  if (ms !== 0 && ms < 1) return `${trim(ms * 1000)}us`;
  if (ms >= 1000 && ms % 1000 === 0) return `${trim(ms / 1000)}s`;
  return `${trim(ms)}ms`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 2 && bytes % 1024 ** 2 === 0) return `${bytes / 1024 ** 2}MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024}KiB`;
  return `${bytes}B`;
}

const trim = (x: number) => String(Number(x.toPrecision(10)));
