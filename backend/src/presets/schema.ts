// The meta file that goes with a paper preset (presets/<name>.meta.yaml): which paper and experiment,
// what it found, the published numbers (each with its table/figure reference and the result field it
// corresponds to), the scaling rule, the claims to check, and how to shorten it for CI. The campaign
// files themselves stay plain campaign files (CampaignSchema is strict), one per part.
import { z } from 'zod';
import { PatternSchema } from '../campaign/pattern.js';
import { ReproduceSchema } from './reproduceSchema.js';
import { type Where, WhereSchema } from './where.js';

/** Where a number or a claim comes from in the paper. The seed texts carry no page breaks, so `page` is optional. */
export const RefSchema = z
  .strictObject({
    table: z.string().optional(),
    figure: z.string().optional(),
    section: z.string().optional(),
    equation: z.string().optional(),
    slide: z.string().optional(),
    page: z.number().int().positive().nullable().optional(),
    note: z.string().optional(),
  })
  .refine((r) => Boolean(r.table || r.figure || r.section || r.equation || r.slide), {
    error: 'a reference needs a table, figure, section, equation or slide',
  });
export type Ref = z.output<typeof RefSchema>;

// The selector (`where` and its patterns) is defined with its matching and checking in where.ts.
export { PatternSchema } from '../campaign/pattern.js';
export { type Where, WhereSchema } from './where.js';

/** A flow name, a name pattern with `*`, or a list of either. */
const FlowsSchema = z.union([z.string(), z.array(z.string()).min(1)]);

const metricScope = z.enum(['flow', 'group', 'theory']);

/** How a number is measured in one of our runs (row-level) or a set of runs (cell-level). */
export type Measure =
  | { kind: 'goodput'; flows: string | string[]; agg?: 'sum' | 'mean' | undefined }
  | { kind: 'goodputSd'; flows: string | string[] }
  | { kind: 'stability'; flows: string | string[] }
  | { kind: 'jain'; flows?: string | string[] | undefined }
  | { kind: 'utilisation' }
  | { kind: 'performance'; alpha: number }
  | { kind: 'asymmetry'; a: string; b: string }
  | {
      kind: 'asymmetryOf';
      subject: unknown;
      params: [string, string];
      flows: [string, string];
      exclude?: unknown[] | Record<string, unknown[]> | undefined;
    }
  | { kind: 'share'; flow: string; of: string | string[] }
  | {
      kind: 'metric';
      scope: 'flow' | 'group' | 'theory';
      id: string;
      flows?: string | string[] | undefined;
    }
  | { kind: 'activeSets'; field: 'jain' | 'efficiency' | 'performance' }
  | { kind: 'loadedRtt' }
  | { kind: 'ratio'; of: Measure; to: Measure }
  | { kind: 'equivalence'; single: string; many: string; countParam: string }
  | { kind: 'cellRatio'; of: { where: Where; measure: Measure }; to: { where: Where; measure: Measure } };

export const MeasureSchema: z.ZodType<Measure> = z.lazy(() =>
  z.discriminatedUnion('kind', [
    /** Whole-run goodput (CampaignRow.goodputMbps), Mbit/s; summed (default) or averaged over the flows. */
    z.strictObject({
      kind: z.literal('goodput'),
      flows: FlowsSchema,
      agg: z.enum(['sum', 'mean']).optional(),
    }),
    /** σ of the flow's 5 s interval goodputs (run metric throughput.sd), Mbit/s, averaged over the flows. */
    z.strictObject({ kind: z.literal('goodputSd'), flows: FlowsSchema }),
    /** Stability index σ/μ over 5 s intervals (run metric stability.sigma_over_mu), averaged over the flows. */
    z.strictObject({ kind: z.literal('stability'), flows: FlowsSchema }),
    /** Jain's index: CampaignRow.jainForward, or over the named flows' goodputs. */
    z.strictObject({ kind: z.literal('jain'), flows: FlowsSchema.optional() }),
    /** CampaignRow.utilisationForward: delivered bits over what the forward bottleneck could carry. */
    z.strictObject({ kind: z.literal('utilisation') }),
    /** Seed 001 eq. 10 from the row: α·utilisation + (1−α)·Jain. */
    z.strictObject({ kind: z.literal('performance'), alpha: z.number().gt(0).lt(1) }),
    /** Seed 000 §5.2: (x_a − x_b)/(x_a + x_b) of two flows' goodputs. */
    z.strictObject({ kind: z.literal('asymmetry'), a: z.string(), b: z.string() }),
    /**
     * Asymmetry of `subject` against whatever shares the link with it: in a row where the parameter
     * params[i] matches the subject, A = (x_i − x_other)/(x_i + x_other) with x from flows[i]; rows
     * where the partner matches the subject or an `exclude` pattern (a list, or a list per part) are skipped.
     */
    z.strictObject({
      kind: z.literal('asymmetryOf'),
      subject: PatternSchema,
      params: z.tuple([z.string(), z.string()]),
      flows: z.tuple([z.string(), z.string()]),
      exclude: z.union([z.array(PatternSchema), z.record(z.string(), z.array(PatternSchema))]).optional(),
    }),
    /** One flow's goodput over the sum of `of` (the late flow's share, seed 002). */
    z.strictObject({ kind: z.literal('share'), flow: z.string(), of: FlowsSchema }),
    /** A metric id from summary.json's metrics: per flow (averaged over `flows`), forward group, or theory. */
    z.strictObject({
      kind: z.literal('metric'),
      scope: metricScope,
      id: z.string(),
      flows: FlowsSchema.optional(),
    }),
    /** Mean over the forward group's active sets (seed 001 DST: per 50 s period). */
    z.strictObject({ kind: z.literal('activeSets'), field: z.enum(['jain', 'efficiency', 'performance']) }),
    /** The RTT probe's mean while flows ran (summary.json paths[0].loadedRtt.meanMs), ms. */
    z.strictObject({ kind: z.literal('loadedRtt') }),
    /** One row-level measure over another, in the same row. */
    z.strictObject({ kind: z.literal('ratio'), of: MeasureSchema, to: MeasureSchema }),
    /**
     * Seed 002's equivalence (cell-level): over the cell's rows, the number of `many` flows/streams
     * (the parameter `countParam`) whose aggregate goodput equals the `single` flow's.
     */
    z.strictObject({
      kind: z.literal('equivalence'),
      single: z.string(),
      many: z.string(),
      countParam: z.string(),
    }),
    /** Cell-level: the mean of one selection of rows over the mean of another. */
    z.strictObject({
      kind: z.literal('cellRatio'),
      of: z.strictObject({ where: WhereSchema, measure: MeasureSchema }),
      to: z.strictObject({ where: WhereSchema, measure: MeasureSchema }),
    }),
  ]),
);

/** A published value as written in the meta file: a number, or "238±15" (value ± σ). */
export const ValueSchema = z.union([
  z.number(),
  z.string().regex(/^\s*-?\d+(\.\d+)?(e-?\d+)?\s*(±\s*\d+(\.\d+)?(e-?\d+)?)?\s*$/, {
    error: 'must be a number or "value±sd", e.g. "238±15"',
  }),
]);

export function parseValue(v: number | string): { value: number; sd?: number } {
  if (typeof v === 'number') return { value: v };
  const [a, b] = v.split('±').map((s) => Number(s.trim()));
  return b === undefined || Number.isNaN(b) ? { value: a as number } : { value: a as number, sd: b };
}

const SdFromSchema = z.union([z.literal('rows'), MeasureSchema]);

/** One published number with everything needed to put ours beside it. */
export const PublishedSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][\w.-]*$/, { error: 'must be an id: letters, digits, _ . -' }),
  /** Short name used in orderings (a stack, a path). */
  name: z.string().optional(),
  label: z.string().optional(),
  value: ValueSchema,
  unit: z.string(),
  ref: RefSchema,
  where: WhereSchema.default({}),
  /** The result field it corresponds to; null for context numbers that no run measures (yet). */
  measure: MeasureSchema.nullable(),
  /** Where our σ comes from: a measure (e.g. goodputSd) or the spread across matching rows. */
  sdFrom: SdFromSchema.optional(),
  /** Multiply the published value (and σ) by this to compare with ours (e.g. capacity ratio 100/622). */
  scale: z.number().positive().default(1),
  note: z.string().optional(),
});
export type PublishedInput = z.input<typeof PublishedSchema>;

/** A paper table written as a grid: rows × columns of values, each cell one published number. */
export const TableSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][\w-]*$/),
  ref: RefSchema,
  unit: z.string(),
  /** Base measure; rows and columns may override fields (merged: table ← row ← column). */
  measure: z.record(z.string(), z.unknown()).nullable(),
  sdFrom: SdFromSchema.optional(),
  scale: z.number().positive().default(1),
  where: WhereSchema.default({}),
  note: z.string().optional(),
  columns: z
    .array(
      z.strictObject({
        key: z.string().regex(/^[\w-]+$/),
        label: z.string(),
        where: WhereSchema.default({}),
        measure: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .min(1),
  rows: z
    .array(
      z.strictObject({
        key: z.string().regex(/^[\w.-]+$/),
        label: z.string(),
        where: WhereSchema.default({}),
        measure: z.record(z.string(), z.unknown()).optional(),
        sdFrom: SdFromSchema.optional(),
        scale: z.number().positive().optional(),
        ref: RefSchema.optional(),
        note: z.string().optional(),
        /** One value per column, in column order; null where the paper has none. */
        values: z.array(ValueSchema.nullable()),
      }),
    )
    .min(1),
});

/** An item a claim talks about: a published id (or an id glob with `*`), or an unpublished selection. */
export const ItemSchema = z.union([
  z.string(),
  z.strictObject({ label: z.string(), where: WhereSchema.default({}), measure: MeasureSchema }),
]);
export type Item = z.output<typeof ItemSchema>;

const Tie = z.strictObject({ rel: z.number().min(0).optional(), abs: z.number().min(0).optional() });
const claimBase = {
  id: z.string().regex(/^[A-Za-z0-9][\w.-]*$/),
  /** What the paper found, in our own words. */
  text: z.string().min(10),
  ref: RefSchema,
};
const Op = z.enum(['>', '>=', '<', '<=']);

export const ClaimSchema = z.discriminatedUnion('kind', [
  /** The paper's ranking of items (from their published values, or `paperOrder` tiers, highest first). */
  z.strictObject({
    ...claimBase,
    kind: z.literal('ordering'),
    subject: z.string(),
    items: z.array(ItemSchema).min(1),
    paperOrder: z.array(z.array(z.string()).min(1)).optional(),
    /** Differences within this are ties (not counted in the paper's order; half credit in ours). */
    tie: Tie.optional(),
    minAgreement: z.number().min(0).max(1).default(0.75),
  }),
  /** Each pair [a, b] says the paper has a above b. */
  z.strictObject({
    ...claimBase,
    kind: z.literal('pairs'),
    subject: z.string(),
    pairs: z.array(z.tuple([ItemSchema, ItemSchema])).min(1),
    tie: Tie.optional(),
    minAgreement: z.number().min(0).max(1).default(0.75),
  }),
  /** Our value of one item compared with a bound; `missing: infinite` counts "never happened" as +∞. */
  z.strictObject({
    ...claimBase,
    kind: z.literal('threshold'),
    item: ItemSchema,
    op: Op,
    value: z.number(),
    missing: z.enum(['unknown', 'infinite']).default('unknown'),
  }),
  /** The share of items whose value passes a bound, against the paper's share (minus `slack`). */
  z.strictObject({
    ...claimBase,
    kind: z.literal('share'),
    items: z.array(ItemSchema).min(1),
    op: Op,
    value: z.number(),
    share: z.number().min(0).max(1),
    slack: z.number().min(0).max(1).default(0.1),
  }),
  /** Our value within a tolerance of the published (scaled) value. */
  z.strictObject({
    ...claimBase,
    kind: z.literal('close'),
    item: ItemSchema,
    /** The paper's value when the item is not a published id. */
    value: z.number().optional(),
    tolerance: z.strictObject({
      rel: z.number().min(0).optional(),
      abs: z.number().min(0).optional(),
      factor: z.number().min(1).optional(),
    }),
  }),
  /** Two of our values within a tolerance of each other (the paper says they are about the same). */
  z.strictObject({
    ...claimBase,
    kind: z.literal('similar'),
    items: z.tuple([ItemSchema, ItemSchema]),
    tolerance: z.strictObject({ rel: z.number().min(0).optional(), abs: z.number().min(0).optional() }),
  }),
  /** Signs (+, 0 within the deadband, −) of published values against ours. */
  z.strictObject({
    ...claimBase,
    kind: z.literal('signs'),
    subject: z.string(),
    items: z.array(ItemSchema).min(1),
    deadband: z.number().min(0),
    minAgreement: z.number().min(0).max(1).default(0.75),
  }),
]);
export type Claim = z.output<typeof ClaimSchema>;

export const MetaSchema = z.strictObject({
  paper: z.strictObject({
    id: z.enum(['000', '001', '002', '003', '004']),
    short: z.string(),
    title: z.string(),
  }),
  experiment: z.string(),
  /** What the paper found, 1–3 sentences in our own words. */
  finding: z.string().min(20),
  scaling: z.strictObject({
    rule: z.string().min(20),
    /** Our bottleneck rate over the paper's (1 when rates are kept). */
    rateFactor: z.number().positive(),
    rttFactor: z.number().positive().default(1),
    /** Our full run length over the paper's. */
    timeFactor: z.number().positive(),
    /**
     * Dimensionless groups (scaling.ts) the scaling does not keep and no module parameter can
     * restore: which (ids, `*` wildcards), the claims they bear on, and what that likely does to them.
     */
    caveats: z
      .array(
        z.strictObject({
          groups: z.array(z.string().regex(/^[\w.*/]+$/)).min(1),
          claims: z.array(z.string()).min(1),
          effect: z.string().min(20),
        }),
      )
      .default([]),
  }),
  /** Campaign files of this preset, by part name; default { main: '<name>.yaml' }. */
  parts: z.record(z.string().regex(/^[\w-]+$/), z.string().regex(/^[\w.-]+\.yaml$/)).optional(),
  ci: z.strictObject({
    /** Every run shortened to this many seconds. */
    seconds: z.number().int().min(2).max(60),
    /** Keep at most this many values of every varied parameter (first, last, evenly between). */
    values: z.number().int().min(1).optional(),
  }),
  reproduce: ReproduceSchema.optional(),
  /** What the paper did that the spec cannot express yet. */
  notExpressed: z.array(z.string()).default([]),
  published: z.array(PublishedSchema).default([]),
  tables: z.array(TableSchema).default([]),
  claims: z.array(ClaimSchema).default([]),
});
export type MetaInput = z.input<typeof MetaSchema>;
export type MetaFile = z.output<typeof MetaSchema>;

/** A published number after tables are expanded: value and σ parsed, measure resolved. */
export interface Published {
  id: string;
  name: string;
  label: string;
  value: number;
  sd: number | null;
  unit: string;
  ref: Ref;
  where: Where;
  measure: Measure | null;
  sdFrom: 'rows' | Measure | null;
  scale: number;
  note: string | null;
}

export interface PresetMeta extends Omit<MetaFile, 'published' | 'tables'> {
  name: string;
  published: Published[];
}

/** "Table 1, §4.4" */
export function formatRef(r: Ref): string {
  const parts = [r.table, r.figure, r.equation, r.slide ? `slide “${r.slide}”` : undefined, r.section];
  if (r.page) parts.push(`p. ${r.page}`);
  return parts.filter(Boolean).join(', ');
}
