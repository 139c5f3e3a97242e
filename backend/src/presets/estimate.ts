// One item of a claim as something a bootstrap can resample: the runs behind it, grouped into
// strata (one per variant, i.e. part and parameter values), and the function from those runs to
// its value. A replicate resamples each variant's repetitions on their own, so an item spanning
// several variants, a ratio of two cells or the equivalence crossing over stream counts keeps
// its structure, and n is the fewest repetitions of any one variant. When every variant has the
// same repetitions, a replicate draws repetitions instead, each with all its variants' runs: a
// repetition's seed (cross traffic, bit errors) then moves every cell together, as it did.

import { fastMean, type SmallSampleInterval, seedFromText, smallSampleCi } from '@lfnlab/metrics';
import { type InlineItem, resolveItems } from './load.js';
import { equivalentCount, goodputSum, measureUnit, type PresetRow, rowMeasure } from './measure.js';
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
  /** Per stratum, each sample's repetition (parallel to `groups`): the bootstrap's blocks. */
  repetitions: number[][];
  /** The item's value from (resampled) groups; NaN where it does not exist. */
  stat: (groups: Groups) => number;
  /** The value on the runs as measured; null when not measured. */
  value: number | null;
  /** Per-run values when the item is a mean over runs (orderings rank these); null otherwise. */
  runs: number[] | null;
  /**
   * Per run (as `runs`), the block it belongs to: its part, the parameters the item's `where`
   * leaves free (the background level, the path) and its repetition, whose seed every variant
   * shares (the same cross traffic, the same bit errors), and the run itself (part/id: one run can
   * give a value to several items, as a pair of stacks does). Orderings compare items within blocks.
   */
  blocks: { setting: string; repetition: number; run: string }[] | null;
  /** Per stratum (as `groups`), its variant (part and parameters) and the runs it holds. */
  variants: { key: string; runs: number }[];
  /** Runs in the smallest and largest stratum (0 when not measured). */
  n: number;
  nMax: number;
  /**
   * Runs made for the variant with the fewest, usable or not (fidelity invalid): above n when the
   * lab could not carry some of them; 0 when none of the item's runs was made.
   */
  tried: number;
  /** Rows that matched the item's `where`. */
  rows: number;
  /** Computed from the configuration alone (closed-form theory): every run gives the same value. */
  deterministic: boolean;
}

export interface EstimateContext {
  /** The runs a finding may use: completed and not fidelity invalid. */
  rows: PresetRow[];
  meta: PresetMeta;
  /** The other runs made (fidelity invalid, failed): they say which variants the lab could not carry. */
  left?: PresetRow[];
  /** Collects, per finding, the variants left out of items that average over several. */
  leftOut?: Map<string, LeftOut>;
}

/** A variant left out of an average: every repetition ran, fewer than MIN_RUNS were usable. */
export interface LeftOut {
  label: string;
  usable: number;
  tried: number;
}

const finite = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

/** Closed-form theory values depend on the configuration only, not on what a run measured. */
function deterministic(m: Measure): boolean {
  if (m.kind === 'metric') return m.scope === 'theory';
  if (m.kind === 'ratio') return deterministic(m.of) && deterministic(m.to);
  return false;
}

/** Mean over every run in groups [from, to): a cell's mean, whichever variants it spans. */
function pooledMean(g: Groups, from = 0, to = g.length): number {
  let sum = 0;
  let count = 0;
  for (let i = from; i < to; i++)
    for (const x of g[i] as number[]) {
      sum += x;
      count++;
    }
  return count ? sum / count : Number.NaN;
}

const meanOfAll = (g: Groups) => pooledMean(g);

function sizes(groups: unknown[][]): { n: number; nMax: number } {
  const ns = groups.map((g) => g.length);
  return ns.length ? { n: Math.min(...ns), nMax: Math.max(...ns) } : { n: 0, nMax: 0 };
}

/** A run's variant: its part and parameter values. */
const variantKey = (r: PresetRow) => JSON.stringify([r.part ?? '', r.params]);

/**
 * Rows split by variant (part and parameter values): the strata a bootstrap resamples within.
 * A cell that spans several variants (a stack over three paths) thus never counts three single
 * runs as three repetitions: its n is the fewest runs of any one variant.
 */
function byVariant<T>(
  rows: PresetRow[],
  value: (r: PresetRow) => T | null,
): { key: string; row: PresetRow; values: T[]; rows: PresetRow[] }[] {
  const out = new Map<string, { key: string; row: PresetRow; values: T[]; rows: PresetRow[] }>();
  for (const r of rows) {
    const v = value(r);
    if (v === null) continue;
    const key = variantKey(r);
    const g = out.get(key) ?? { key, row: r, values: [], rows: [] };
    g.values.push(v);
    g.rows.push(r);
    out.set(key, g);
  }
  return [...out.values()];
}

type Body = Pick<
  Estimate,
  | 'groups'
  | 'repetitions'
  | 'variants'
  | 'stat'
  | 'value'
  | 'runs'
  | 'blocks'
  | 'n'
  | 'nMax'
  | 'rows'
  | 'deterministic'
  | 'tried'
>;

type Stratum = { key: string; values: unknown[]; rows: PresetRow[] };

function body(
  strata: Stratum[],
  stat: (g: Groups) => number,
  rest: Pick<Body, 'runs' | 'rows' | 'deterministic' | 'tried'> & Partial<Pick<Body, 'blocks'>>,
): Body {
  const groups = strata.map((g) => g.values);
  const v = groups.length ? stat(groups) : Number.NaN;
  return {
    groups,
    repetitions: strata.map((g) => g.rows.map((r) => r.repetition)),
    variants: strata.map((g) => ({ key: g.key, runs: g.rows.length })),
    stat,
    value: Number.isNaN(v) ? null : v,
    ...sizes(groups),
    blocks: null,
    ...rest,
  };
}

/** Runs made per variant among `rows` (those not yet made, status missing, do not count). */
function madeByVariant(rows: readonly PresetRow[]): Map<string, { row: PresetRow; count: number }> {
  const out = new Map<string, { row: PresetRow; count: number }>();
  for (const r of rows) {
    if (r.status === 'missing') continue;
    const key = variantKey(r);
    const g = out.get(key) ?? { row: r, count: 0 };
    g.count++;
    out.set(key, g);
  }
  return out;
}

/** "manchester · reno · 16 streams · 0.4 BDP": a variant's part and label, without its repetition. */
function variantWords(r: PresetRow): string {
  const label =
    r.label?.replace(/ · rep \d+$/, '') ??
    Object.entries(r.params)
      .map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' · ');
  return r.part ? `${r.part} · ${label}` : label;
}

/**
 * An item that averages over several variants (a path over every stack and window) loses those the
 * lab could not carry: all their repetitions ran and fewer than MIN_RUNS were usable. More runs
 * would not help them, and keeping them would leave the whole item, and so the finding, undecided.
 * They go only while most of the item's variants stay; each one left out is collected for the
 * finding's sentence. Otherwise they stay, and one with no usable run at all holds the item's n at
 * 0 (`n`). Variants short of runs not yet made stay and keep the item under-run.
 */
function withoutUncarried<S extends { key: string; values: unknown[]; row: PresetRow }>(
  strata: S[],
  /** The runs made and left out (fidelity invalid, failed), per variant. */
  made: Map<string, { row: PresetRow; count: number }>,
  leftOut: Map<string, LeftOut> | undefined,
): { strata: S[]; n?: number } {
  const keys = new Set([...strata.map((g) => g.key), ...made.keys()]);
  const usable = (k: string) => strata.find((g) => g.key === k)?.values.length ?? 0;
  const tried = (k: string) => usable(k) + (made.get(k)?.count ?? 0);
  const uncarried = [...keys].filter((k) => usable(k) < MIN_RUNS && tried(k) >= MIN_RUNS);
  const kept = [...keys].filter((k) => usable(k) >= MIN_RUNS).length;
  if (uncarried.length === 0) return { strata };
  if (keys.size < 2 || 2 * kept < keys.size) return { strata, n: Math.min(...[...keys].map(usable)) };
  for (const k of uncarried) {
    const row = made.get(k)?.row ?? (strata.find((g) => g.key === k)?.row as PresetRow);
    leftOut?.set(k, { label: variantWords(row), usable: usable(k), tried: tried(k) });
  }
  return { strata: strata.filter((g) => !uncarried.includes(g.key)) };
}

/** The fewest runs made for any variant `where` selects, usable or not. */
function triedOf(where: Where, ctx: EstimateContext): number {
  const made = madeByVariant([...ctx.rows, ...(ctx.left ?? [])].filter((r) => rowMatches(r, where)));
  return made.size ? Math.min(...[...made.values()].map((g) => g.count)) : 0;
}

function measured(where: Where, m: Measure, ctx: EstimateContext, missingIsInfinite: boolean): Body {
  const rows = ctx.rows;
  const tried = triedOf(where, ctx);
  const matched = rows.filter((r) => rowMatches(r, where));
  if (m.kind === 'cellRatio') {
    const side = (s: { where: Where; measure: Measure }) =>
      byVariant(
        rows.filter((r) => rowMatches(r, { ...where, ...s.where })),
        (r) => {
          const v = rowMeasure(s.measure, r);
          return finite(v) ? v : null;
        },
      );
    const a = side(m.of);
    const b = side(m.to);
    const stat = (g: Groups) => {
      const d = pooledMean(g, a.length);
      return d === 0 ? Number.NaN : pooledMean(g, 0, a.length) / d;
    };
    const strata = a.length && b.length ? [...a, ...b] : [];
    return body(strata, stat, { runs: null, rows: matched.length, deterministic: false, tried });
  }
  if (m.kind === 'equivalence') {
    const countIn = (r: PresetRow) => Number(r.params[m.countParam]);
    const made = madeByVariant((ctx.left ?? []).filter((r) => rowMatches(r, where)));
    const carried = withoutUncarried(
      byVariant(matched, (r) => {
        const single = goodputSum(r, m.single);
        const many = goodputSum(r, m.many);
        return single === null || many === null ? null : { single, many };
      }).filter((g) => Number.isFinite(countIn(g.row))),
      made,
      ctx.leftOut,
    );
    const variants = carried.strata;
    const countOf = variants.map((g) => countIn(g.row));
    const counts = [...new Set(countOf)];
    // Never reached among the counts kept says "more than the largest" only when no larger count
    // was left out (the lab could not carry it): then it is unknown.
    const largerLeftOut = [...made.values()].some((g) => countIn(g.row) > Math.max(...countOf));
    const stat = (g: Groups) => {
      const pts = counts.map((n) => {
        const rs = g.filter((_, i) => countOf[i] === n).flat() as { single: number; many: number }[];
        return { n, single: fastMean(rs.map((x) => x.single)), many: fastMean(rs.map((x) => x.many)) };
      });
      const e = equivalentCount(pts);
      return e === null ? (missingIsInfinite && !largerLeftOut ? Number.POSITIVE_INFINITY : Number.NaN) : e;
    };
    const b = body(variants, stat, { runs: null, rows: matched.length, deterministic: false, tried });
    return carried.n === undefined ? b : { ...b, n: Math.min(b.n, carried.n) };
  }
  // A row without the measure is a run where the event never happened, when the claim says so.
  const carried = withoutUncarried(
    byVariant(matched, (r) => {
      const v = rowMeasure(m, r);
      return finite(v) ? v : missingIsInfinite ? Number.POSITIVE_INFINITY : null;
    }),
    madeByVariant((ctx.left ?? []).filter((r) => rowMatches(r, where))),
    ctx.leftOut,
  );
  const variants = carried.strata;
  const runs = variants.flatMap((g) => g.values);
  const chosen = new Set(Object.keys(where));
  const free = (r: PresetRow) =>
    Object.entries(r.params)
      .filter(([k]) => !chosen.has(k))
      .sort(([a], [b]) => (a < b ? -1 : 1));
  const b = body(variants, meanOfAll, {
    runs: runs.length ? runs : null,
    blocks: variants.flatMap((g) => {
      const setting = JSON.stringify([g.row.part ?? '', free(g.row)]);
      return g.rows.map((r) => ({ setting, repetition: r.repetition, run: `${r.part ?? ''}/${r.id}` }));
    }),
    rows: matched.length,
    deterministic: deterministic(m),
    tried,
  });
  return carried.n === undefined ? b : { ...b, n: Math.min(b.n, carried.n) };
}

function fromResolved(
  it: Published | InlineItem,
  ctx: EstimateContext,
  missingIsInfinite: boolean,
): Estimate {
  if ('id' in it) {
    const body: Body = it.measure
      ? measured(it.where, it.measure, ctx, missingIsInfinite)
      : {
          groups: [],
          repetitions: [],
          variants: [],
          stat: meanOfAll,
          value: null,
          runs: null,
          blocks: null,
          n: 0,
          nMax: 0,
          rows: 0,
          deterministic: false,
          tried: 0,
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
    unit: measureUnit(it.measure),
    ...measured(it.where, it.measure, ctx, missingIsInfinite),
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
 * The interval of `f` over several items at once (`smallSampleCi`): every item's strata are
 * resampled, or left out one by one, together (paired by repetition where they all have the same
 * repetitions), then each item's value is recomputed and handed to `f` in item order.
 * Seeded by the finding's id, so a finding's interval never changes for the same runs.
 */
export function jointCi(
  items: readonly Estimate[],
  f: (values: number[]) => number,
  seedText: string,
): SmallSampleInterval | null {
  const groups = items.flatMap((e) => e.groups);
  const blocks = items.flatMap((e) => e.repetitions);
  const offsets: number[] = [];
  let at = 0;
  for (const e of items) {
    offsets.push(at);
    at += e.groups.length;
  }
  const statistic = (g: Groups) =>
    f(items.map((e, i) => e.stat(g.slice(offsets[i] as number, (offsets[i] as number) + e.groups.length))));
  return smallSampleCi(groups, statistic, {
    seed: seedFromText(seedText),
    blocks,
  });
}
