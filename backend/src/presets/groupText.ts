// How a dimensionless group's numbers read, the same in `lfnlab preset show` and the preset report.
import type { DimensionlessGroup } from './scaling.js';

/** Three significant digits; '-' for an unknown value. */
export const groupValue = (v: number | null): string =>
  v === null ? '-' : v === 0 ? '0' : Math.abs(v) >= 1000 ? v.toFixed(0) : v.toPrecision(3);

export const preservedText = (g: DimensionlessGroup): string =>
  g.preserved === null ? 'unknown' : g.preserved ? 'yes' : 'no';
