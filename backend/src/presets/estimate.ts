// One item of a claim as something a bootstrap can resample: the runs behind it, grouped into
// strata (one per cell it reads), and the function from those runs to its value. Items that
// read several cells at once (a ratio of two cells, the equivalence crossing over stream counts)
// keep each cell's runs in a stratum of its own.

import { type BootstrapInterval, bootstrapCi, fastMean, seedFromText } from '@lfnlab/metrics';
import { type InlineItem, resolveItems } from './load.js';
import { equivalentCount, goodputSum, type PresetRow, rowMeasure } from './measure.js';
import type { Item, Measure, PresetMeta, Published, Where } from './schema.js';
import { MIN_RUNS } from './verdict.js';
import { rowMatches } from './where.js';

type Groups = readonly (readonly unknown[])[];

export interface Estimate {
  name: string;
  label: string;
  /** The published value times its scale; null for an unpublished selection. */
  paper: number | null;
  /** Whether `paper` was scaled by a factor other than 1. */
  scaled: boolean;
  unit: string | null;
  /** Samples per stratum (runs). */
  groups: unknown[][];
  /** The item's value from (resampled) groups; NaN where it does not exist. */
  stat: (groups: Groups) => number;
  /** The value on the runs as measured; null when not measured. */
  value: number | null;
  /** Per-run values when the item is a mean over runs (orderings rank these); null otherwise. */
  runs: number[] | null;
  /** Runs in the smallest and largest stratum (0 when not measured). */
  n: number;
  nMax: number;
  /** Rows that matched the item's `where`. */
  rows: number;
  /** Computed from the configuration alone (closed-form theory): every run gives the same value. */
  deterministic: boolean;
}

export interface EstimateContext {
  rows: PresetRow[];
  meta: PresetMeta;
}

const finite = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

/** Closed-form theory values depend on the configuration only, not on what a run measured. */
function deterministic(m: Measure): boolean {
  if (m.kind === 'metric') return m.scope === 'theory';
  if (m.kind === 'ratio') return deterministic(m.of) && deterministic(m.to);
  return false;
}

function meanGroup(g: Groups): number {
  const xs = g[0] as number[];
  return fastMean(xs);
}

function sizes(groups: unknown[][]): { n: number; nMax: number } {
  const ns = groups.map((g) => g.length);
  return ns.length ? { n: Math.min(...ns), nMax: Math.max(...ns) } : { n: 0, nMax: 0 };
}

type Body = Pick<Estimate, 'groups' | 'stat' | 'value' | 'runs' | 'n' | 'nMax' | 'rows' | 'deterministic'>;

function measured(where: Where, m: Measure, rows: PresetRow[], missingIsInfinite: boolean): Body {
  const matched = rows.filter((r) => rowMatches(r, where));
  if (m.kind === 'cellRatio') {
    const side = (s: { where: Where; measure: Measure }) =>
      rows
        .filter((r) => rowMatches(r, { ...where, ...s.where }))
        .map((r) => rowMeasure(s.measure, r))
        .filter(finite);
    const a = side(m.of);
    const b = side(m.to);
    const stat = (g: Groups) => {
      const d = fastMean(g[1] as number[]);
      return d === 0 ? Number.NaN : fastMean(g[0] as number[]) / d;
    };
    const groups = a.length && b.length ? [a, b] : [];
    const v = groups.length ? stat(groups) : Number.NaN;
    return {
      groups,
      stat,
      value: Number.isNaN(v) ? null : v,
      runs: null,
      ...sizes(groups),
      rows: matched.length,
      deterministic: false,
    };
  }
  if (m.kind === 'equivalence') {
    const byCount = new Map<number, { single: number; many: number }[]>();
    for (const r of matched) {
      const count = Number(r.params[m.countParam]);
      const single = goodputSum(r, m.single);
      const many = goodputSum(r, m.many);
      if (!Number.isFinite(count) || single === null || many === null) continue;
      byCount.set(count, [...(byCount.get(count) ?? []), { single, many }]);
    }
    const counts = [...byCount.keys()];
    const groups = counts.map((c) => byCount.get(c) as unknown[]);
    const stat = (g: Groups) => {
      const pts = g.map((runs, i) => {
        const rs = runs as { single: number; many: number }[];
        return {
          n: counts[i] as number,
          single: fastMean(rs.map((x) => x.single)),
          many: fastMean(rs.map((x) => x.many)),
        };
      });
      const e = equivalentCount(pts);
      return e === null ? (missingIsInfinite ? Number.POSITIVE_INFINITY : Number.NaN) : e;
    };
    const v = groups.length ? stat(groups) : Number.NaN;
    return {
      groups,
      stat,
      value: Number.isNaN(v) ? null : v,
      runs: null,
      ...sizes(groups),
      rows: matched.length,
      deterministic: false,
    };
  }
  // A row without the measure is a run where the event never happened, when the claim says so.
  const values = matched
    .map((r) => rowMeasure(m, r))
    .map((v) => (finite(v) ? v : missingIsInfinite ? Number.POSITIVE_INFINITY : null))
    .filter((v): v is number => v !== null);
  const groups = values.length ? [values] : [];
  return {
    groups,
    stat: meanGroup,
    value: values.length ? fastMean(values) : null,
    runs: values.length ? values : null,
    ...sizes(groups),
    rows: matched.length,
    deterministic: deterministic(m),
  };
}

function fromResolved(
  it: Published | InlineItem,
  ctx: EstimateContext,
  missingIsInfinite: boolean,
): Estimate {
  if ('id' in it) {
    const body: Body = it.measure
      ? measured(it.where, it.measure, ctx.rows, missingIsInfinite)
      : {
          groups: [],
          stat: meanGroup,
          value: null,
          runs: null,
          n: 0,
          nMax: 0,
          rows: 0,
          deterministic: false,
        };
    return {
      name: it.name,
      label: it.label,
      paper: it.value * it.scale,
      scaled: it.scale !== 1,
      unit: it.unit,
      ...body,
    };
  }
  return {
    name: it.label,
    label: it.label,
    paper: null,
    scaled: false,
    unit: null,
    ...measured(it.where, it.measure, ctx.rows, missingIsInfinite),
  };
}

/** The items a claim names (id globs expanded), each as an estimate. */
export function estimates(
  items: readonly Item[],
  ctx: EstimateContext,
  missingIsInfinite = false,
): Estimate[] {
  return resolveItems(items, ctx.meta.published).map((it) => fromResolved(it, ctx, missingIsInfinite));
}

export function estimate(item: Item, ctx: EstimateContext, missingIsInfinite = false): Estimate {
  const [e] = estimates([item], ctx, missingIsInfinite);
  if (!e) throw new Error('an item resolved to nothing');
  return e;
}

/** Items with too few runs for a test to decide on (closed-form ones need only one). */
export function underRun(items: readonly Estimate[]): Estimate[] {
  return items.filter((e) => !e.deterministic && e.n < MIN_RUNS);
}

/**
 * The bootstrap interval of `f` over several items at once: every item's strata are resampled
 * in the same replicate, then each item's value is recomputed and handed to `f` in item order.
 * Seeded by the finding's id, so a finding's interval never changes for the same runs.
 */
export function jointCi(
  items: readonly Estimate[],
  f: (values: number[]) => number,
  seedText: string,
): BootstrapInterval | null {
  const groups = items.flatMap((e) => e.groups);
  const offsets: number[] = [];
  let at = 0;
  for (const e of items) {
    offsets.push(at);
    at += e.groups.length;
  }
  const statistic = (g: Groups) =>
    f(items.map((e, i) => e.stat(g.slice(offsets[i] as number, (offsets[i] as number) + e.groups.length))));
  return bootstrapCi(groups, statistic, { seed: seedFromText(seedText) });
}
