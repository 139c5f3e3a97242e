// Number formatting with units, so no figure on screen goes without one.

const nf = (digits: number) => new Intl.NumberFormat('en', { maximumSignificantDigits: digits });
const sig3 = nf(3);

export const dash = '—';

export function fmt(x: number | null | undefined, unit = '', digits = 3): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return dash;
  const s = digits === 3 ? sig3.format(x) : nf(digits).format(x);
  return unit ? `${s} ${unit}` : s;
}

/** bit/s in the most readable of bit/s … Gbit/s. */
export function fmtRate(bps: number | null | undefined): string {
  if (bps === null || bps === undefined || !Number.isFinite(bps)) return dash;
  if (Math.abs(bps) >= 1e9) return fmt(bps / 1e9, 'Gbit/s');
  if (Math.abs(bps) >= 1e6) return fmt(bps / 1e6, 'Mbit/s');
  if (Math.abs(bps) >= 1e3) return fmt(bps / 1e3, 'kbit/s');
  return fmt(bps, 'bit/s');
}

/** Bytes with binary prefixes, as buffers and windows are usually read. */
export function fmtBytes(b: number | null | undefined): string {
  if (b === null || b === undefined || !Number.isFinite(b)) return dash;
  if (Math.abs(b) >= 1024 ** 3) return fmt(b / 1024 ** 3, 'GiB');
  if (Math.abs(b) >= 1024 ** 2) return fmt(b / 1024 ** 2, 'MiB');
  if (Math.abs(b) >= 1024) return fmt(b / 1024, 'KiB');
  return fmt(b, 'B');
}

/** Seconds as "1 h 02 min", "3 min 20 s" or "12.5 s". */
export function fmtDuration(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s)) return dash;
  if (s < 60) return fmt(s, 's');
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = Math.round(s % 60);
  if (h) return `${h} h ${String(m).padStart(2, '0')} min`;
  return `${m} min ${String(sec).padStart(2, '0')} s`;
}

export const fmtPct = (ratio: number | null | undefined) =>
  ratio === null || ratio === undefined || !Number.isFinite(ratio) ? dash : `${sig3.format(ratio * 100)} %`;

/** Mean ± σ in one cell. */
export function fmtMeanSd(
  mean: number | null | undefined,
  sd: number | null | undefined,
  unit: string,
): string {
  if (mean === null || mean === undefined || !Number.isFinite(mean)) return dash;
  if (sd === null || sd === undefined || !Number.isFinite(sd)) return fmt(mean, unit);
  return `${sig3.format(mean)} ± ${sig3.format(sd)} ${unit}`;
}

/** Scientific notation for tiny probabilities (PER, BER) that fixed digits would print as 0. */
export function fmtProb(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return dash;
  if (p === 0) return '0';
  if (p >= 0.001) return sig3.format(p);
  return p.toExponential(2);
}

export const fmtDate = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'short', timeStyle: 'medium' }) : dash;
