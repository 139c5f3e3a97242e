// Numbers in comparison sentences and tables: three significant digits, percentages rounded.

/** Three significant digits, no exponent for ordinary magnitudes. */
export function fmt(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  if (x === Number.POSITIVE_INFINITY) return '∞';
  if (x === Number.NEGATIVE_INFINITY) return '−∞';
  if (!Number.isFinite(x)) return '—';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e-3 && a < 1e6) return String(Number(x.toPrecision(3)));
  return x.toExponential(2);
}

export const pct = (x: number) => `${Math.round(x * 100)} %`;
