// The name a person reads for a campaign variant: `reno · 100 Mbit/s · 120 ms · rep 2`. The id
// (`003-_rtt_120ms_rate_50Mbit_b-r1`) stays what directories, URLs and keys use; this label is only
// shown. It names what tells the variant apart from the campaign's others: the parameters the
// campaign varies (in the file's vary order), and inside an object value (a whole flow or path)
// only the fields that differ between that parameter's values, each with its unit.
import { parseAmount, parseDuration, parseRate } from '@lfnlab/emulator';

/** What of a campaign the label needs: its vary lists and its repetitions. */
export interface LabelContext {
  vary: Record<string, readonly unknown[]>;
  repeat: number;
}

/** Between the parts of a label. */
export const LABEL_SEPARATOR = ' · ';

/** Fields of a flow or path value in the order people say them; others follow as written. */
const FIELD_ORDER = [
  'transport',
  'stack',
  'streams',
  'count',
  'rate',
  'rtt',
  'buffer',
  'window',
  'ber',
  'bytes',
  'duration',
  'start',
  'every',
  'direction',
];

const trim = (x: number) => String(Number(x.toPrecision(6)));
const plural = (n: unknown, one: string, many: string) => `${String(n)} ${Number(n) === 1 ? one : many}`;

/** A rate in the user's vocabulary: 100 Mbit/s, 2.5 Gbit/s; a share of the link as 10 %. */
export function rateText(v: unknown): string {
  if (typeof v === 'string' && /%\s*$/.test(v)) return percentText(v);
  const bps = typeof v === 'number' ? v : typeof v === 'string' ? parseRate(v) : null;
  const n = typeof bps === 'number' ? bps : bps?.ok ? bps.value : null;
  if (n === null) return String(v);
  if (n >= 1e9) return `${trim(n / 1e9)} Gbit/s`;
  if (n >= 1e6) return `${trim(n / 1e6)} Mbit/s`;
  if (n >= 1e3) return `${trim(n / 1e3)} kbit/s`;
  return `${trim(n)} bit/s`;
}

/** A time: 120 ms, 0.38 ms, 60 s (numbers are taken as ms, as the spec normalises them). */
export function timeText(v: unknown): string {
  const p = typeof v === 'string' ? parseDuration(v) : null;
  const ms = typeof v === 'number' ? v : p?.ok ? p.value : null;
  if (ms === null) return String(v);
  return ms >= 1000 ? `${trim(ms / 1000)} s` : `${trim(ms)} ms`;
}

const percentText = (v: string) => v.replace(/\s*%\s*$/, ' %');

/** A buffer or window as written: 0.5 BDP, 100 packets, 64 KiB. */
export function amountText(v: unknown): string {
  if (typeof v !== 'string' && typeof v !== 'number') return String(v);
  const a = parseAmount(v);
  if (!a.ok) return String(v);
  if ('bdp' in a.value) return `${a.value.bdp} BDP`;
  if ('packets' in a.value) return plural(a.value.packets, 'packet', 'packets');
  // A size keeps the unit it was written in (KiB stays KiB, MB stays MB).
  return typeof v === 'string' ? v.trim().replace(/^([\d.eE+-]+)\s*/, '$1 ') : String(v);
}

/** A bit error rate: BER 1e-7, BER 3.87e-11, BER 0. */
export function berText(v: unknown): string {
  if (typeof v !== 'number') return `BER ${String(v)}`;
  return `BER ${v !== 0 && Math.abs(v) < 1e-3 ? v.toExponential().replace('e+', 'e') : String(v)}`;
}

/**
 * A transfer size as written (100 MB, 64 KiB); a bare byte count, as scaling leaves it, in decimal
 * units: 250000000B → 250 MB.
 */
function sizeText(v: unknown): string {
  if (typeof v !== 'string') return String(v);
  const bare = /^\s*(\d+)\s*B\s*$/.exec(v);
  if (bare) {
    const n = Number(bare[1]);
    const [div, unit] = n >= 1e9 ? [1e9, 'GB'] : n >= 1e6 ? [1e6, 'MB'] : n >= 1e3 ? [1e3, 'kB'] : [1, 'B'];
    return `${Number((n / div).toPrecision(3))} ${unit}`;
  }
  return v.trim().replace(/^([\d.eE+-]+)\s*/, '$1 ');
}

/** One UDP cross-traffic source: CBR 10 %, sine 12.5 % ± 7.5 % period 60 s, self-similar 30 %. */
function crossSourceText(src: unknown): string {
  if (!isRecord(src)) return valueText(src);
  const pattern =
    src.pattern === 'selfsimilar'
      ? 'self-similar'
      : src.pattern === 'cbr'
        ? 'CBR'
        : String(src.pattern ?? 'UDP');
  const parts = [pattern];
  if (src.rate !== undefined) parts.push(rateText(src.rate));
  if (src.mean !== undefined) parts.push(rateText(src.mean));
  if (src.amplitude !== undefined) parts.push(`± ${rateText(src.amplitude)}`);
  if (src.period !== undefined) parts.push(`period ${timeText(src.period)}`);
  if (src.hurst !== undefined) parts.push(`H ${String(src.hurst)}`);
  if (src.direction === 'reverse') parts.push('reverse');
  return parts.join(' ');
}

function crossText(v: unknown): string {
  if (Array.isArray(v)) return v.length === 0 ? 'no cross traffic' : v.map(crossSourceText).join(' + ');
  return crossSourceText(v);
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value with no field name to go by. */
function valueText(v: unknown): string {
  if (Array.isArray(v)) return v.length === 0 ? 'none' : v.map(valueText).join(' + ');
  if (isRecord(v)) return objectText(v, Object.keys(v));
  return String(v);
}

/** One field of a spec with its value, in words and units. */
export function fieldText(field: string, v: unknown): string {
  if (isRecord(v) && field !== 'cross') {
    const inner = objectText(v, Object.keys(v));
    return field === 'path' || field === 'flows' ? inner : `${field} ${inner}`;
  }
  switch (field) {
    case 'streams':
      return plural(v, 'stream', 'streams');
    case 'connect':
      return v === 'together' ? 'streams together' : 'streams one by one';
    case 'count':
      return plural(v, 'flow', 'flows');
    case 'sources':
      return plural(v, 'source', 'sources');
    case 'rate':
      return rateText(v);
    case 'rtt':
      return timeText(v);
    case 'buffer':
      return `buffer ${amountText(v)}`;
    case 'window':
      return `window ${amountText(v)}`;
    case 'ber':
      return berText(v);
    case 'bytes':
      return sizeText(v);
    case 'start':
    case 'duration':
    case 'every':
    case 'period':
    case 'jitter':
    case 'sampleInterval':
      return `${field} ${timeText(v)}`;
    case 'mean':
      return `cross mean ${rateText(v)}`;
    case 'amplitude':
      return `± ${rateText(v)}`;
    case 'cross':
      return crossText(v);
    case 'mtu':
      return `MTU ${String(v)}`;
    case 'sampleHz':
      return `${String(v)} Hz sampling`;
    case 'stack':
    case 'transport':
    case 'aqm':
    case 'direction':
    case 'pattern':
    case 'jitterDistribution':
    case 'name':
    case 'path':
      return String(v);
    default:
      return `${field} ${valueText(v)}`;
  }
}

/**
 * The shown fields of an object value, in FIELD_ORDER; a stack with its streams reads `reno (16
 * streams)`, or `reno (16 streams together)` when they connect together.
 */
function objectText(v: Record<string, unknown>, shown: string[]): string {
  const rank = (k: string) => {
    const i = FIELD_ORDER.indexOf(k);
    return i < 0 ? FIELD_ORDER.length : i;
  };
  const keys = shown.filter((k) => v[k] !== undefined).sort((a, b) => rank(a) - rank(b));
  const withStack = keys.includes('stack') || keys.includes('transport');
  return keys
    .flatMap((k) => {
      if ((k === 'streams' || k === 'connect') && withStack) return [];
      if ((k === 'stack' || k === 'transport') && keys.includes('streams')) {
        const name = String(v[k]);
        const together = v.connect === 'together' ? ' together' : '';
        return Number(v.streams) > 1
          ? [`${name} (${plural(v.streams, 'stream', 'streams')}${together})`]
          : [name];
      }
      return [fieldText(k, v[k])];
    })
    .join(LABEL_SEPARATOR);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The last named field of a vary path: `flows[0].stack` → stack, `paths.main.cross[0]` → cross. */
function fieldOf(path: string): string {
  const names = path.match(/[A-Za-z_][\w-]*/g) ?? [];
  // `paths.main`: the value is a path object, named by its fields, not by "main".
  if (names[0] === 'paths' && names.length === 2) return 'path';
  return names[names.length - 1] ?? path;
}

/** The label of one vary parameter's value; an object shows only the fields its values differ in. */
function paramText(path: string, value: unknown, values: readonly unknown[]): string {
  if (isRecord(value) && fieldOf(path) !== 'cross') {
    const keys = [...new Set(values.filter(isRecord).flatMap((x) => Object.keys(x)))];
    const differing = keys.filter((k) => values.some((x) => !isRecord(x) || !same(x[k], value[k])));
    return objectText(value, differing);
  }
  return fieldText(fieldOf(path), value);
}

/**
 * A variant's human label: each varied parameter that has more than one value, in vary order,
 * then `rep N` when the campaign repeats. `base spec` when nothing tells variants apart.
 */
export function variantLabel(
  v: { params: Record<string, unknown>; repetition: number },
  c: LabelContext,
): string {
  const parts = Object.entries(c.vary)
    .filter(([path, values]) => values.length > 1 && Object.hasOwn(v.params, path))
    .map(([path, values]) => paramText(path, v.params[path], values))
    .filter((s) => s !== '');
  if (c.repeat > 1) parts.push(`rep ${v.repetition}`);
  return parts.length ? parts.join(LABEL_SEPARATOR) : 'base spec';
}

/**
 * Labels for a whole campaign's variants, unique: two values that read the same (a vary list with
 * `100Mbit` and `0.1Gbit`) get their combination number, `#3`, so no two rows look alike.
 */
export function uniqueLabels<T extends { id: string; params: Record<string, unknown>; repetition: number }>(
  variants: readonly T[],
  c: LabelContext,
): string[] {
  const labels = variants.map((v) => variantLabel(v, c));
  const counts = new Map<string, number>();
  for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
  return labels.map((l, i) => {
    if ((counts.get(l) ?? 0) < 2) return l;
    const combo = /^(\d+)/.exec(variants[i]?.id ?? '')?.[1];
    return `${l}${LABEL_SEPARATOR}#${combo ? Number(combo) : i + 1}`;
  });
}
