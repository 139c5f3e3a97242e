// Response shapes of the API, for the OpenAPI document and the serializer alike (a reply that does
// not fit its schema is a 500, so the schemas stay true). Documents whose shape the run or the
// spec language decides (summary, record, a validated spec) are objects of any fields here.
import { z } from 'zod';
import type { FindingCell, FindingView, PresetFindingsView } from '../presets/findingsView.js';
import { SHORTEN_RANGE_TEXT, SHORTEN_S } from '../presets/pick.js';
import type { VerdictTest } from '../presets/verdict.js';
import { ROLES } from '../service/types.js';

export const ProblemSchema = z.object({ path: z.string(), message: z.string() });
export const ErrorBody = z
  .object({ error: z.string(), problems: z.array(ProblemSchema).optional() })
  .describe('An error: what went wrong, and each problem with the field it is about');

export const Ok = z.object({ ok: z.boolean() });

export const UserSchema = z.object({
  id: z.string(),
  username: z.string(),
  role: z.enum(ROLES),
  class: z.string().nullable(),
});
export const Me = z.object({ user: UserSchema, csrfToken: z.string().nullable() });
export const TokenInfo = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export const TokenCreated = z.object({ id: z.string(), name: z.string(), token: z.string() });

export const QuotaReply = z.object({
  concurrentRuns: z.number(),
  maxDurationS: z.number(),
  maxRateMbps: z.number(),
  maxFlows: z.number(),
});
export const QuotasReply = z.object(
  Object.fromEntries(ROLES.map((r) => [r, QuotaReply])) as Record<(typeof ROLES)[number], typeof QuotaReply>,
);

export const StoredSpecSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['spec', 'campaign']),
  text: z.string(),
  owner: z.string(),
  ownerId: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const RunSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** A campaign's run: its variant's label (`reno · 100 Mbit/s · rep 2`); null or absent otherwise. */
  label: z.string().nullable().optional(),
  owner: z.string(),
  ownerId: z.string(),
  status: z.enum(['queued', 'running', 'completed', 'failed', 'aborted']),
  verdict: z.enum(['valid', 'suspect', 'invalid']).nullable(),
  preset: z.string().nullable(),
  campaign: z.string().nullable(),
  lab: z.string(),
  /** The lab host whose `lfnlab worker` ran it; absent for runs on the service's own labs. */
  host: z.string().nullable().optional(),
  /** Which of that worker's labs ran it. */
  hostLab: z.string().nullable().optional(),
  stacks: z.array(z.string()),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  progress: z.object({
    elapsedS: z.number(),
    totalS: z.number(),
    /** Lab seconds per wall second, once the lab has reported its pace. */
    dilation: z.number().nullable().optional(),
    /** Wall seconds left, at that pace. */
    etaS: z.number().nullable().optional(),
  }),
  error: z.string().nullable(),
  partial: z.boolean(),
  /** The spec as validated (see docs/SPEC.md). */
  spec: z.unknown(),
  /**
   * While queued: its place on its lab and when it is expected to start; null otherwise (and for
   * a route that answers a stored run without asking the queue).
   */
  queue: z
    .object({
      position: z.number().int(),
      ahead: z.number().int(),
      estimatedWaitS: z.number(),
      estimatedStartAt: z.string(),
    })
    .nullable()
    .default(null),
});
const BoardEntry = z.object({
  runId: z.string().nullable(),
  name: z.string().nullable(),
  label: z.string().nullable(),
  owner: z.string().nullable(),
  mine: z.boolean(),
  status: z.enum(['queued', 'running']),
  position: z.number().int().nullable(),
  estimatedStartAt: z.string().nullable(),
});
export const QueueBoardSchema = z.object({
  labs: z.array(z.object({ lab: z.string(), running: BoardEntry.nullable(), waiting: z.array(BoardEntry) })),
  myFirstAhead: z.number().int().nullable(),
  myQueued: z.number().int(),
});
export const ReplaySchema = z.object({
  samples: z.array(z.looseObject({ kind: z.string(), t: z.number() })),
  references: z.array(
    z.object({ path: z.string(), rateMbps: z.number(), bufferPackets: z.number().nullable() }),
  ),
  recorded: z.number().int(),
});
export const StartedRuns = RunSchema.extend({ queuedRuns: z.array(z.string()) });

/** A module parameter an added stack's source declares writable (the owner may set it). */
const DeclaredParamSchema = z.object({
  name: z.string(),
  type: z.string(),
  default: z.number(),
  description: z.string().nullable(),
});

/** A stack a spec may name on this service: built in, or added with `lfnlab stack add`. */
export const StackSchema = z.object({
  name: z.string(),
  origin: z.enum(['mainline', 'out-of-tree', 'added']),
  family: z.enum(['loss', 'delay', 'hybrid', 'model']),
  /** Added stacks: their settable parameters (`stackParams`), so the designer's schema takes them. */
  params: z.array(DeclaredParamSchema).optional(),
});

export const LabSchema = z.object({
  name: z.string(),
  state: z.string(),
  accel: z.enum(['tcg', 'kvm', 'remote']).nullable(),
  cpus: z.number().nullable(),
  kernel: z.string().nullable(),
  stacks: z.array(z.string()),
  bootMs: z.number().nullable(),
});
/** After boot/down/reset: the lab as listed, or only its name and state when it is gone. */
export const LabAfterAction = LabSchema.partial().extend({ name: z.string(), state: z.string() });

export const Health = z.object({
  ok: z.boolean(),
  influx: z.string(),
  spoolBytes: z.number(),
  queue: z.number(),
  labs: z.array(z.object({ name: z.string(), state: z.string() })),
  /** `lfnlab worker` processes heard from lately; run ids for admins only. */
  workers: z.array(
    z.object({
      name: z.string(),
      host: z.string(),
      version: z.string(),
      state: z.enum(['idle', 'busy', 'away']),
      labs: z.array(
        z.object({
          name: z.string(),
          state: z.enum(['idle', 'busy']),
          runId: z.string().nullable().optional(),
        }),
      ),
      lastSeenAt: z.string(),
      lastSeenS: z.number().int(),
    }),
  ),
});

export const ValidateReply = z.union([
  z.object({ ok: z.literal(true), spec: z.unknown() }),
  z.object({
    ok: z.literal(true),
    campaign: z.unknown(),
    variants: z.array(
      z.object({ id: z.string(), label: z.string(), params: z.record(z.string(), z.unknown()) }),
    ),
  }),
  z.object({ ok: z.literal(false), problems: z.array(ProblemSchema) }),
]);

const PresetPart = z.object({ name: z.string(), text: z.string() });
export const PresetSchema = z.looseObject({
  id: z.string(),
  paper: z.unknown(),
  title: z.unknown(),
  parts: z.array(PresetPart),
});
export const PresetDetail = PresetSchema.extend({
  claims: z.unknown(),
  published: z.array(z.looseObject({ id: z.string() })),
});

/** JSON documents of a run (summary, record, export): objects whose fields the run decides. */
export const Document = z.record(z.string(), z.unknown());

export const MetricDefinition = z.looseObject({ name: z.string() });
export const GrafanaLink = z.object({ url: z.string() });

/** Non-JSON replies, documented by media type. */
export const textReply = (type: string, description: string) => ({
  description,
  content: { [type]: { schema: z.string() } },
});

/** Which runs of a preset: one part, one variant, a length. POST /api/runs and the plan take it alike. */
export const VariantId = z.string().max(200);
export const PresetPickSchema = z.strictObject({
  part: z.string().max(64).optional(),
  variant: VariantId.optional(),
  shorten: z
    .number()
    .int({ error: SHORTEN_RANGE_TEXT })
    .min(SHORTEN_S.min, { error: SHORTEN_RANGE_TEXT })
    .max(SHORTEN_S.max, { error: SHORTEN_RANGE_TEXT })
    .optional(),
});

/** The test behind a verdict (presets/verdict.ts, VerdictTest). */
const VerdictTestSchema = z.object({
  name: z.string(),
  ci: z
    .object({
      // Written as JSON, an unbounded end (a value never reached counts as +∞) is null.
      low: z.number().nullable(),
      high: z.number().nullable(),
      level: z.number(),
      resamples: z.number(),
      seed: z.number(),
      // Replicates drew whole repetitions (every cell's run of one seed together).
      paired: z.boolean().optional(),
      // A value's interval: the bootstrap's own ends, and the jackknife t interval when there was one.
      bootstrap: z.object({ low: z.number().nullable(), high: z.number().nullable() }).optional(),
      t: z
        .object({ low: z.number(), high: z.number(), se: z.number(), df: z.number() })
        .nullable()
        .optional(),
      // A share judged unit by unit: its units and how many their own interval left undecided.
      units: z.number().optional(),
      undecided: z.number().optional(),
    })
    .nullable()
    .optional(),
  tau: z.number().nullable().optional(),
  p: z.number().nullable().optional(),
  pMethod: z.enum(['exact', 'normal']).optional(),
  designEffect: z.number().optional(),
  // An inconclusive interval: repetitions that would likely decide it (null: more than 100).
  repetitionsToDecide: z.number().nullable().optional(),
  // …and the runs that would add; the variants (campaign cells) and runs behind the finding.
  runsToDecide: z.number().optional(),
  variants: z.number().optional(),
  runs: z.number().optional(),
  alpha: z.number().optional(),
  n: z.number(),
  nMax: z.number(),
  items: z.number(),
  measured: z.number(),
  deterministic: z.boolean().optional(),
  // Variants left out of averages: every repetition ran, fewer than 3 usable (the lab could not carry them).
  leftOut: z.array(z.object({ label: z.string(), usable: z.number(), tried: z.number() })).optional(),
});
const FindingCellSchema = z.object({
  id: z.string(),
  label: z.string(),
  unit: z.string(),
  ref: z.string(),
  published: z.object({
    value: z.number(),
    sd: z.number().nullable(),
    scale: z.number(),
    scaled: z.number(),
    scaledSd: z.number().nullable(),
  }),
  ours: z.object({ mean: z.number().nullable(), sd: z.number().nullable(), n: z.number() }).nullable(),
  ratio: z.number().nullable(),
});
export const PresetFindingsReply = z.object({
  preset: z.string(),
  notExpressed: z.array(z.string()),
  notReproduced: z.array(z.string()),
  source: z
    .discriminatedUnion('kind', [
      z.object({
        kind: z.literal('runs'),
        runs: z.number().int(),
        batches: z.number().int(),
        newestAt: z.string(),
        shortenedToS: z.number().nullable(),
      }),
      z.object({
        kind: z.literal('committed'),
        file: z.string(),
        runs: z.number().int(),
        /** What the published runs were, in words (length, verdicts, why not valid, clock, wall time). */
        record: z.string().nullable(),
      }),
      z.object({
        /** A reproduction under way, judged on the runs it kept so far of `of`. */
        kind: z.literal('provisional'),
        runs: z.number().int(),
        of: z.number().int(),
        wallLeftS: z.number(),
      }),
    ])
    .nullable(),
  message: z.string().nullable(),
  findings: z.array(
    z.object({
      id: z.string(),
      kind: z.string(),
      text: z.string(),
      ref: z.string(),
      verdict: z.enum(['holds', 'fails', 'inconclusive']),
      sentence: z.string(),
      test: VerdictTestSchema.nullable(),
      cells: z.array(FindingCellSchema),
      tested: z.array(z.object({ hypothesis: z.string(), experiment: z.string(), answer: z.string() })),
    }),
  ),
  summary: z.string().nullable(),
});

// A reply keeps only what its schema names: a field the findings view gains and the schema lacks
// would vanish from the API (twice it did). Naming the same fields is checked when this compiles.
type KeysApart<A, B> = Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>;
type FindingsReply = z.infer<typeof PresetFindingsReply>;
const findingsFieldsMatch: [
  | KeysApart<VerdictTest, z.infer<typeof VerdictTestSchema>>
  | KeysApart<FindingCell, z.infer<typeof FindingCellSchema>>
  | KeysApart<FindingView, FindingsReply['findings'][number]>
  | KeysApart<PresetFindingsView, FindingsReply>,
] extends [never]
  ? true
  : never = true;
void findingsFieldsMatch;

const WallEstimateSchema = z.object({
  runs: z.number().int(),
  labS: z.number(),
  wallS: z.number(),
  pace: z.number(),
  overheadS: z.number(),
  fromHistory: z.boolean(),
});
export const PresetPlanReply = z.object({
  preset: z.string(),
  pick: z.object({ part: z.string(), variant: z.string().nullable(), shorten: z.number().nullable() }),
  parts: z.array(z.object({ name: z.string(), runs: z.number().int() })),
  variants: z.array(
    z.object({
      id: z.string(),
      label: z.string(),
      durationS: z.number(),
      fits: z.boolean(),
      problems: z.array(ProblemSchema),
    }),
  ),
  cost: WallEstimateSchema,
  quota: z.object({
    role: z.enum(ROLES),
    limits: QuotaReply,
    active: z.number().int(),
    fits: z.boolean(),
    problems: z.array(ProblemSchema),
    suggestion: z
      .object({
        pick: z.object({
          part: z.string(),
          variant: z.string().optional(),
          shorten: z.number().optional(),
        }),
        text: z.string(),
        cost: WallEstimateSchema,
      })
      .nullable(),
  }),
});
