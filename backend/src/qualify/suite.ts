// A qualification suite file: a base experiment spec, named link conditions (each a partial spec
// laid over the base), the stacks under test, and bounds on metrics. One zod schema; every problem
// names its path (`conditions.2.spec.paths.main.rate`, `thresholds.jain.min`) and what is allowed.
// Specs are the emulator's: every merged condition is validated by the one spec schema.
import {
  formatProblems,
  parseDocument,
  problemsOf,
  type SpecProblem,
  underPath,
  validateSpec,
} from '@lfnlab/emulator';
import { z } from 'zod';
import {
  metricUnit,
  QUALIFY_METRIC_NAMES,
  QUALIFY_METRICS,
  type QualifyMetric,
  unitFactors,
} from './metrics.js';

export const MAX_REPETITIONS = 20;
export const MAX_SECONDS = 3600;
export const MAX_CONDITIONS = 50;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const nameError = 'must be a name of letters, digits, _ . - (up to 64, starting with a letter or digit)';

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

const BoundSchema = z.strictObject(
  {
    min: z.number({ error: 'must be a number' }).optional(),
    max: z.number({ error: 'must be a number' }).optional(),
    unit: z.string({ error: 'must be a unit' }).optional(),
  },
  {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `unknown field(s) ${iss.keys.join(', ')}; allowed: min, max, unit`
        : 'must be a bound { min, max, unit }',
  },
);

const metricKeys = QUALIFY_METRIC_NAMES.join(', ');
const ThresholdsSchema = z
  .record(z.string(), BoundSchema.nullable(), {
    error: `must map metrics (${metricKeys}) to bounds { min, max, unit }`,
  })
  .default({});

export type Bound = z.output<typeof BoundSchema>;
/** A condition's `metric: null` drops the suite's bound on it for that condition. */
type Bounds = Record<string, Bound | null>;

const ConditionSchema = z.strictObject(
  {
    name: z.string({ error: nameError }).regex(NAME, { error: nameError }),
    description: z.string({ error: 'must be text' }).optional(),
    /** Laid over the suite's base: objects merge key by key, lists (flows) replace the base's. */
    spec: z.record(z.string(), z.unknown(), { error: 'must be a partial spec (an object)' }).default({}),
    /** Bounds for this condition only, over the suite's (a metric named here replaces the suite's bound). */
    thresholds: ThresholdsSchema,
  },
  {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `unknown field(s) ${iss.keys.join(', ')}; allowed: name, description, spec, thresholds`
        : 'must be a condition { name, spec, thresholds }',
  },
);

const whole = (what: string, low: number, high: number) =>
  z
    .number({ error: `must be ${what} from ${low} to ${high}` })
    .int({ error: `must be ${what} from ${low} to ${high}` })
    .min(low, { error: `must be ${what} from ${low} to ${high}` })
    .max(high, { error: `must be ${what} from ${low} to ${high}` });

export const SuiteSchema = z
  .strictObject(
    {
      name: z.string({ error: nameError }).regex(NAME, { error: nameError }),
      description: z.string({ error: 'must be text' }).optional(),
      /** The spec every condition starts from. */
      base: z.record(z.string(), z.unknown(), { error: 'must be a spec (an object)' }),
      /** The flow whose stack is under test; default the base's first flow. */
      subject: z.string({ error: 'must be a flow name' }).optional(),
      conditions: z
        .array(ConditionSchema, { error: 'must be a list of conditions' })
        .min(1, { error: `must hold 1 to ${MAX_CONDITIONS} conditions` })
        .max(MAX_CONDITIONS, { error: `must hold 1 to ${MAX_CONDITIONS} conditions` }),
      stacks: z
        .array(z.string({ error: 'must be a stack name' }), { error: 'must be a list of stack names' })
        .min(1, { error: 'must name 1 to 20 stacks' })
        .max(20, { error: 'must name 1 to 20 stacks' }),
      thresholds: ThresholdsSchema,
      repetitions: whole('a whole number of runs', 1, MAX_REPETITIONS).default(3),
      /** Length of every run; default the base spec's duration. */
      seconds: whole('a whole number of seconds', 2, MAX_SECONDS).optional(),
      seed: whole('a whole number', 0, 2 ** 31 - 1).default(1),
    },
    {
      error: (iss) =>
        iss.code === 'unrecognized_keys'
          ? `unknown field(s) ${iss.keys.join(', ')}; allowed: name, description, base, subject, conditions, stacks, thresholds, repetitions, seconds, seed`
          : 'must be a suite object',
    },
  )
  .superRefine((s, ctx) => {
    const seen = new Set<string>();
    s.conditions.forEach((c, i) => {
      if (seen.has(c.name))
        ctx.addIssue({
          code: 'custom',
          path: ['conditions', i, 'name'],
          message: `'${c.name}' is used twice; condition names must differ`,
        });
      seen.add(c.name);
      checkThresholds(c.thresholds, ['conditions', i, 'thresholds'], ctx);
    });
    checkThresholds(s.thresholds, ['thresholds'], ctx);
    if (new Set(s.stacks).size !== s.stacks.length)
      ctx.addIssue({ code: 'custom', path: ['stacks'], message: 'names a stack twice' });
    const bounded = s.conditions.some((c) =>
      Object.values({ ...s.thresholds, ...c.thresholds }).some((b) => b !== null),
    );
    if (!bounded)
      ctx.addIssue({
        code: 'custom',
        path: ['thresholds'],
        message: `must bound at least one metric (${metricKeys})`,
      });
  });

function checkThresholds(t: Bounds, at: (string | number)[], ctx: z.RefinementCtx): void {
  const inCondition = at[0] === 'conditions';
  for (const [key, b] of Object.entries(t)) {
    if (!Object.hasOwn(QUALIFY_METRICS, key)) {
      ctx.addIssue({
        code: 'custom',
        path: [...at, key],
        message: `is not a metric a suite can bound; allowed: ${metricKeys}`,
      });
      continue;
    }
    if (b === null) {
      if (!inCondition)
        ctx.addIssue({
          code: 'custom',
          path: [...at, key],
          message: 'must be a bound { min, max, unit }; null (no bound) only in a condition',
        });
      continue;
    }
    const m = key as QualifyMetric;
    const factors = unitFactors(m);
    const unit = b.unit ?? metricUnit(m);
    const factor = factors[unit];
    if (factor === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [...at, key, 'unit'],
        message: `must be one of ${Object.keys(factors).join(', ')} for ${key}`,
      });
      continue;
    }
    if (b.min === undefined && b.max === undefined)
      ctx.addIssue({ code: 'custom', path: [...at, key], message: 'needs min, max or both' });
    const { low, high } = QUALIFY_METRICS[m];
    for (const side of ['min', 'max'] as const) {
      const v = b[side];
      if (v === undefined) continue;
      const inUnit = v * factor;
      if (!(inUnit >= low && inUnit <= high))
        ctx.addIssue({
          code: 'custom',
          path: [...at, key, side],
          message: `must be ${low / factor} to ${high / factor} ${unit} (got ${v})`,
        });
    }
    if (b.min !== undefined && b.max !== undefined && b.min > b.max)
      ctx.addIssue({ code: 'custom', path: [...at, key, 'max'], message: `must be at least min (${b.min})` });
  }
}

export type Suite = z.output<typeof SuiteSchema>;

export class SuiteError extends Error {
  constructor(readonly problems: SpecProblem[]) {
    super(`invalid suite\n${formatProblems(problems, '(suite)')}`);
  }
}

/** Base and a condition's partial spec: objects merge key by key, anything else (lists too) replaces. */
export function overlay(base: unknown, over: unknown): unknown {
  if (!isObject(base) || !isObject(over)) return structuredClone(over);
  const out: Record<string, unknown> = structuredClone(base);
  for (const [k, v] of Object.entries(over)) {
    if (k === '__proto__' || k === 'constructor' || k === 'prototype') continue;
    out[k] = Object.hasOwn(out, k) ? overlay(out[k], v) : structuredClone(v);
  }
  return out;
}

/** A bound in the metric's own unit (ms → s, % → ratio). */
export interface ResolvedBound {
  metric: QualifyMetric;
  min?: number;
  max?: number;
}

/** The bounds that hold in one condition: the suite's, with the condition's own over them. */
export function boundsFor(suite: Suite, condition: string): ResolvedBound[] {
  const c = suite.conditions.find((x) => x.name === condition);
  const merged = { ...suite.thresholds, ...(c?.thresholds ?? {}) };
  return Object.entries(merged).flatMap(([key, b]) => {
    if (b === null) return [];
    const m = key as QualifyMetric;
    const f = unitFactors(m)[b.unit ?? metricUnit(m)] ?? 1;
    return [
      {
        metric: m,
        ...(b.min === undefined ? {} : { min: b.min * f }),
        ...(b.max === undefined ? {} : { max: b.max * f }),
      },
    ];
  });
}

/** The spec of one condition (base + its partial spec), not yet validated. */
export const conditionSpec = (suite: Suite, condition: Suite['conditions'][number]) =>
  overlay(suite.base, condition.spec) as Record<string, unknown>;

/** Index of the subject flow in a condition's spec, or a problem. */
export function subjectIndex(suite: Suite, spec: Record<string, unknown>): number | string {
  const flows = Array.isArray(spec.flows) ? spec.flows : [];
  if (suite.subject === undefined) return flows.length ? 0 : 'has no flow to put the stacks under test in';
  const i = flows.findIndex((f) => isObject(f) && f.name === suite.subject);
  return i >= 0 ? i : `has no flow named '${suite.subject}' (subject) to put the stacks under test in`;
}

/**
 * Every condition merged and validated by the spec schema with each stack in the subject's place;
 * problems name the condition and stack. A problem every stack (or condition) meets is given once.
 */
function conditionProblems(suite: Suite): SpecProblem[] {
  const out: SpecProblem[] = [];
  const seen = new Set<string>();
  const add = (path: string, raw: string, where: string) => {
    const key = `${path}\n${raw}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ path, message: `${raw} (${where})` });
  };
  suite.conditions.forEach((c, i) => {
    const spec = conditionSpec(suite, c);
    const at = `conditions.${i}.spec`;
    const idx = subjectIndex(suite, spec);
    if (typeof idx === 'string') {
      add(at, idx, `condition ${c.name}`);
      return;
    }
    suite.stacks.forEach((stack, s) => {
      const flows = (spec.flows as Record<string, unknown>[]).map((f, k) =>
        k === idx ? { ...f, stack } : f,
      );
      const v = validateSpec({ ...spec, flows });
      if (v.ok) return;
      for (const p of underPath(at, v.problems))
        add(
          p.path === `${at}.flows.${idx}.stack` ? `stacks.${s}` : p.path,
          p.message,
          `condition ${c.name}, stack ${stack}`,
        );
    });
  });
  return out;
}

/** Suite text (YAML or JSON, the spec parser) to a suite, or SuiteError naming every problem. */
export function parseSuiteText(text: string): Suite {
  const doc = parseDocument(text);
  if (!doc.ok) throw new SuiteError(doc.problems);
  const r = SuiteSchema.safeParse(doc.value);
  if (!r.success) throw new SuiteError(problemsOf(r.error));
  const problems = conditionProblems(r.data);
  if (problems.length) throw new SuiteError(problems);
  return r.data;
}
