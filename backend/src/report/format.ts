// Text helpers for the report: HTML escaping, numbers with their units, and metric values labelled
// from the registry so every number on the page says what it is and how it was computed.
import { METRICS, type MetricDefinition, type MetricValue } from '@lfnlab/metrics';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escape text for HTML element content and attribute values. */
export function esc(s: unknown): string {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ESC[c] ?? c);
}

export const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** A number with `digits` significant digits, without exponent noise for ordinary magnitudes. */
export function num(x: number | null | undefined, digits = 3): string {
  if (!isNum(x)) return '—';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e-3 && a < 1e9) {
    const decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(a)));
    return x.toFixed(Math.min(decimals, 6));
  }
  return x.toExponential(digits - 1);
}

/** Fixed decimals, or a dash when there is no value. */
export function fixed(x: number | null | undefined, decimals: number): string {
  return isNum(x) ? x.toFixed(decimals) : '—';
}

/** Integer with thin-space thousands separators (ISO style, unambiguous in every locale). */
export function int(x: number | null | undefined): string {
  if (!isNum(x)) return '—';
  return Math.round(x)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
}

export function metricDef(id: string): MetricDefinition | undefined {
  return Object.hasOwn(METRICS, id) ? (METRICS as Record<string, MetricDefinition>)[id] : undefined;
}

/** How a metric is shown: its value converted to a readable unit, and that unit. */
export function metricDisplay(id: string, value: number | null | undefined): { text: string; unit: string } {
  const unit = metricDef(id)?.unit ?? '';
  if (!isNum(value)) return { text: '—', unit: unitFor(id) };
  if (PERCENT.has(id)) return { text: num(value * 100, 3), unit: '%' };
  switch (unit) {
    case 'bit/s':
      return { text: num(value / 1e6, 4), unit: 'Mbit/s' };
    case 'bytes':
      return { text: int(value), unit: 'bytes' };
    case 'ratio':
      return { text: value === 0 ? '0' : Math.abs(value) < 1e-3 ? num(value, 3) : fixed(value, 3), unit: '' };
    case 's':
      return { text: num(value, 3), unit: 's' };
    case 'ms':
      return { text: num(value, 4), unit: 'ms' };
    case 'packets':
      return { text: num(value, 4), unit: 'packets' };
    default:
      return { text: num(value, 3), unit };
  }
}

/** Ratios that read better as percentages (the papers give loss and retransmissions in %). */
const PERCENT = new Set(['retransmit.rate']);

/** The unit a registry unit is displayed in (bit/s metrics are shown in Mbit/s). */
export function displayUnit(unit: string): string {
  return unit === 'bit/s' ? 'Mbit/s' : unit;
}

/** The unit a metric is displayed in. */
export function unitFor(id: string): string {
  if (PERCENT.has(id)) return '%';
  return displayUnit(metricDef(id)?.unit ?? '');
}

/** A metric's title with its unit, for a table header; the definition goes in a tooltip. */
export function metricHeader(id: string, override?: string): string {
  const d = metricDef(id);
  if (!d) return esc(override ?? id);
  const unit = unitFor(id);
  const title = `${d.title}: ${d.definition}${d.source ? ` (${d.source})` : ''}`;
  return `<abbr title="${esc(title)}">${esc(override ?? d.title)}</abbr>${unit ? ` <span class="unit">(${esc(unit)})</span>` : ''}`;
}

/** A table cell for one metric value (its unit in the header, or in the cell), the definition on hover. */
export function metricCell(id: string, value: number | null | undefined, withUnit = false): string {
  const { text, unit } = metricDisplay(id, value);
  const d = metricDef(id);
  const tip = d ? `${d.title}: ${d.definition}` : id;
  const shown = text === '—' || !withUnit ? text : unit && unit !== 'ratio' ? `${text} ${unit}` : text;
  return `<td class="num" title="${esc(tip)}">${esc(shown)}</td>`;
}

export function findMetric(ms: readonly MetricValue[] | undefined, id: string): number | null {
  const m = ms?.find((x) => x.id === id);
  return m && isNum(m.value) ? m.value : null;
}

/** Mean and population σ of the finite values; null when there are none. */
export function meanSd(
  xs: readonly (number | null | undefined)[],
): { mean: number; sd: number; n: number } | null {
  const v = xs.filter(isNum);
  if (v.length === 0) return null;
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length);
  return { mean, sd, n: v.length };
}

export function pm(m: { mean: number; sd: number } | null, digits = 3): string {
  return m ? `${num(m.mean, digits)} ± ${num(m.sd, 2)}` : '—';
}
