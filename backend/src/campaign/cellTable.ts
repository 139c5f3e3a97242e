// A campaign's runs gathered into cells (one per variant setting, its repetitions together), each
// measure as a mean with the 95 % interval the findings use: the table a targeted experiment's
// answer quotes, computed the same way every time.
import { fastMean, type SmallSampleInterval, seedFromText, smallSampleCi, stdDev } from '@lfnlab/metrics';
import type { CampaignRow } from './runCampaign.js';
import { LABEL_SEPARATOR, variantLabel } from './variantLabel.js';

export interface CellMeasure {
  n: number;
  mean: number;
  /** Sample standard deviation; null with one run. */
  sd: number | null;
  /** 95 % CI (bootstrap ∪ jackknife t); null with one run, which has no spread to go on. */
  ci: Pick<SmallSampleInterval, 'low' | 'high' | 'bootstrap' | 't'> | null;
}

export interface Cell {
  /** The variant's label without its repetition. */
  label: string;
  params: Record<string, unknown>;
  /** The runs the measures are over, by verdict. */
  verdicts: Record<string, number>;
  /** Completed runs left out (invalid unless asked for), and runs that did not complete. */
  left: { invalid: number; unfinished: number };
  measures: Record<string, CellMeasure>;
}

/** Measures a run row carries, named as results.csv names them. */
function measuresOf(r: CampaignRow): Record<string, number | null> {
  return {
    utilisation_forward: r.utilisationForward,
    jain_forward: r.jainForward,
    ...Object.fromEntries(Object.entries(r.goodputMbps).map(([f, g]) => [`goodput_mbps_${f}`, g])),
  };
}

// A share is between 0 and 1 and a goodput is never negative: the t interval is clipped there.
const BOUNDS: Record<string, readonly [number, number]> = {
  utilisation_forward: [0, Number.POSITIVE_INFINITY],
  jain_forward: [0, 1],
};
const boundsOf = (name: string) => BOUNDS[name] ?? [0, Number.POSITIVE_INFINITY];

/**
 * The label a person reads for the cell: the variant's label less `rep N`; for a table written
 * before labels, the label the campaign would give it, from the values its runs vary.
 */
export function cellLabel(r: CampaignRow, rows: readonly CampaignRow[] = [r]): string {
  if (r.label === undefined) {
    const vary: Record<string, unknown[]> = {};
    for (const x of rows)
      for (const [k, v] of Object.entries(x.params)) {
        const values = vary[k] ?? [];
        if (!values.some((y) => JSON.stringify(y) === JSON.stringify(v))) values.push(v);
        vary[k] = values;
      }
    return variantLabel(r, { vary, repeat: 1 });
  }
  const parts = r.label.split(LABEL_SEPARATOR).filter((p) => !/^rep \d+$/.test(p));
  return parts.length > 0 ? parts.join(LABEL_SEPARATOR) : 'base spec';
}

const keyOf = (params: Record<string, unknown>) =>
  JSON.stringify(
    Object.keys(params)
      .sort()
      .map((k) => [k, params[k]]),
  );

/** A mean over runs with its interval, seeded by the cell and measure so a table reprints alike. */
export function cellMeasure(values: readonly number[], seedText: string, name: string): CellMeasure {
  const mean = fastMean(values);
  if (values.length < 2) return { n: values.length, mean, sd: null, ci: null };
  const ci: SmallSampleInterval | null = smallSampleCi([values], (g) => fastMean(g[0] as number[]), {
    seed: seedFromText(seedText),
    bounds: boundsOf(name),
  });
  return {
    n: values.length,
    mean,
    sd: stdDev(values, { sample: true }),
    ci: ci && { low: ci.low, high: ci.high, bootstrap: ci.bootstrap, t: ci.t },
  };
}

/**
 * The cells of a campaign by label (numbers in labels compared as numbers). Invalid runs (the lab could not
 * carry them) are left out and counted unless `withInvalid`; runs that did not complete are counted.
 */
export function cellsOf(rows: readonly CampaignRow[], { withInvalid = false } = {}): Cell[] {
  const cells = new Map<string, { label: string; params: Record<string, unknown>; rows: CampaignRow[] }>();
  for (const r of rows) {
    const key = keyOf(r.params);
    const cell = cells.get(key) ?? { label: cellLabel(r, rows), params: r.params, rows: [] };
    cell.rows.push(r);
    cells.set(key, cell);
  }
  const byLabel = [...cells.values()].sort((a, b) => a.label.localeCompare(b.label, 'en', { numeric: true }));
  return byLabel.map(({ label, params, rows: all }) => {
    const completed = all.filter((r) => r.status === 'completed');
    const used = completed.filter((r) => withInvalid || r.verdict !== 'invalid');
    const verdicts: Record<string, number> = {};
    for (const r of used) verdicts[r.verdict ?? 'unjudged'] = (verdicts[r.verdict ?? 'unjudged'] ?? 0) + 1;
    const names = [...new Set(used.flatMap((r) => Object.keys(measuresOf(r))))];
    const measures: Record<string, CellMeasure> = {};
    for (const name of names) {
      const values = used
        .map((r) => measuresOf(r)[name])
        .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
      if (values.length > 0) measures[name] = cellMeasure(values, `${label}/${name}`, name);
    }
    return {
      label,
      params,
      verdicts,
      left: { invalid: completed.length - used.length, unfinished: all.length - completed.length },
      measures,
    };
  });
}
