// A campaign file: a base spec, parameters to vary (their cross product), repetitions, and an
// order. Expansion is deterministic: the same file gives the same variants in the same order.
import {
  FORBIDDEN_KEYS,
  formatProblems,
  parseDocument,
  pathKeys,
  problemsOf,
  type Spec,
  type SpecInput,
  type SpecProblem,
  specFieldProblem,
  underPath,
  validateSpec,
} from '@lfnlab/emulator';
import { seededUniform } from '@lfnlab/metrics';
import { z } from 'zod';
import { matchPattern, PatternSchema } from './pattern.js';
import { uniqueLabels } from './variantLabel.js';

const PARAM = /^(?:[A-Za-z_][\w-]*|\[\d+\])(?:\.[A-Za-z_][\w-]*|\[\d+\])*$/;

/** Variants (combinations × repetitions) one campaign may have: checked before anything is expanded. */
export const MAX_VARIANTS = 2000;

export const CampaignSchema = z
  .strictObject(
    {
      name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, {
        error: 'must be a campaign name: letters, digits, _ . -',
      }),
      description: z.string().optional(),
      /** The spec every run starts from. */
      base: z.record(z.string(), z.unknown(), { error: 'must be a spec (an object)' }),
      /** Spec fields to vary, as paths into the spec (`paths.main.rate`, `flows[0].stack`), each with its values. */
      vary: z
        .record(
          z
            .string()
            .regex(PARAM, { error: 'must be a path into the spec, e.g. paths.main.rate or flows[0].stack' }),
          z.array(z.unknown()).min(1, { error: 'needs at least one value' }),
        )
        .default({}),
      /**
       * Combinations not to run: each entry names vary keys with a pattern for each (a value as the
       * vary list writes it, an object as a subset, $any, $not); a combination that fits every key of
       * an entry is left out. Ids keep their place in the full cross product.
       */
      exclude: z.array(z.record(z.string(), PatternSchema)).optional(),
      /** Runs of every combination. */
      repeat: z
        .number()
        .int()
        .min(1, { error: 'must be 1 to 100' })
        .max(100, { error: 'must be 1 to 100' })
        .default(1),
      /**
       * More runs of some combinations: each entry names vary keys with a pattern for each (as
       * `exclude` does) and how many runs a combination that fits it gets, if more than `repeat`
       * (the most of every entry it fits). Repetition r of any combination uses the same seed.
       */
      repeatWhere: z
        .array(
          z.strictObject({
            where: z.record(z.string(), PatternSchema),
            repeat: z
              .number()
              .int()
              .min(1, { error: 'must be 1 to 100' })
              .max(100, { error: 'must be 1 to 100' }),
          }),
        )
        .optional(),
      /** random (default, seeded): no drift in the lab lines up with a parameter; sequential: file order. */
      order: z.enum(['random', 'sequential'], { error: 'must be random or sequential' }).default('random'),
      seed: z.number().int().min(0).default(1),
    },
    {
      error: (iss) =>
        iss.code === 'unrecognized_keys'
          ? `unknown field(s) ${iss.keys.join(', ')}; allowed: name, description, base, vary, exclude, repeat, repeatWhere, order, seed`
          : 'must be a campaign object',
    },
  )
  .superRefine((c, ctx) => {
    for (const key of Object.keys(c.vary)) {
      const why = specFieldProblem(key);
      if (why)
        ctx.addIssue({
          code: 'custom',
          path: ['vary', key],
          message: `${why}: vary names spec fields, e.g. paths.main.rate`,
        });
    }
    const entries = [
      ...(c.exclude ?? []).map((entry, i) => ({
        entry,
        path: ['exclude', i],
        field: 'exclude',
        all: 'exclude everything',
      })),
      ...(c.repeatWhere ?? []).map((r, i) => ({
        entry: r.where,
        path: ['repeatWhere', i, 'where'],
        field: 'repeatWhere',
        all: 'repeat everything',
      })),
    ];
    for (const { entry, path, field, all } of entries) {
      const keys = Object.keys(entry);
      if (keys.length === 0)
        ctx.addIssue({ code: 'custom', path, message: `names no vary key: it would ${all}` });
      const unknown = keys.filter((k) => !(k in c.vary));
      for (const k of unknown)
        ctx.addIssue({
          code: 'custom',
          path: [...path, k],
          message: `is not a vary key; ${field} names keys of vary (${Object.keys(c.vary).join(', ') || 'none'})`,
        });
      // A pattern that fits none of its key's values is a typo or a value that left the list.
      if (!unknown.length)
        for (const k of keys)
          if (!(c.vary[k] ?? []).some((v) => matchPattern(entry[k], v)))
            ctx.addIssue({
              code: 'custom',
              path: [...path, k],
              message: `fits none of the values vary lists for ${k}`,
            });
    }
    // The count is known from the file alone: refuse a huge campaign before building any of it
    // (counting every combination at the most repetitions any has: a bound, not the count).
    const n = Object.values(c.vary).reduce((a, vs) => a * vs.length, 1) * mostRepeats(c);
    if (n > MAX_VARIANTS)
      ctx.addIssue({
        code: 'custom',
        path: ['vary'],
        message: `${Object.entries(c.vary)
          .map(([k, vs]) => `${k}: ${vs.length}`)
          .join(
            ' × ',
          )}${mostRepeats(c) > 1 ? ` × repeat ${mostRepeats(c)}` : ''} = ${n} variants; at most ${MAX_VARIANTS} per campaign`,
      });
  });

export type Campaign = z.output<typeof CampaignSchema>;

type Repeats = Pick<Campaign, 'repeat' | 'repeatWhere'>;

/** The most runs any combination gets: `repeat`, or more where `repeatWhere` asks. */
export function mostRepeats(c: {
  repeat: number;
  repeatWhere?: readonly { repeat: number }[] | undefined;
}): number {
  return Math.max(c.repeat, ...(c.repeatWhere ?? []).map((r) => r.repeat));
}

/** Runs of one combination: `repeat`, or the most of every `repeatWhere` entry it fits. */
export function repeatsOf(c: Repeats, params: Record<string, unknown>): number {
  return Math.max(
    c.repeat,
    ...(c.repeatWhere ?? []).filter((r) => fits(r.where, params)).map((r) => r.repeat),
  );
}

export interface Variant {
  /** Stable id, also the run directory's name: position in the file's order, parameters, repetition. */
  id: string;
  /** What people read (variantLabel): `reno · 100 Mbit/s · 120 ms · rep 2`. Shown, never matched on. */
  label: string;
  params: Record<string, unknown>;
  repetition: number;
  /** The spec as the campaign writes it (base with the parameters set). */
  spec: SpecInput;
  /** The same, validated and normalised once at expansion: what a run of this variant uses. */
  resolved: Spec;
}

/** A variant as written to a campaign's plan file and shown by the API: without its resolved spec. */
export const writtenVariant = ({ resolved: _, ...v }: Variant): Omit<Variant, 'resolved'> => v;

/**
 * Set `value` at a path like `flows[0].stack` in a deep copy of `obj`. Only a spec field may be
 * named (specFieldProblem), only own properties are walked, and no key may reach a prototype.
 */
export function setPath<T>(obj: T, path: string, value: unknown): T {
  const why = specFieldProblem(path);
  if (why) throw new Error(`${path}: ${why}`);
  const copy = structuredClone(obj) as Record<string | number, unknown>;
  const keys = pathKeys(path);
  // sysctl keys hold dots: everything after sysctls.ROLE is one key.
  const walk =
    keys[0] === 'sysctls' && keys.length > 3 ? [...keys.slice(0, 2), keys.slice(2).join('.')] : keys;
  let cur: Record<string | number, unknown> = copy;
  walk.forEach((k, i) => {
    if (typeof k === 'string' && FORBIDDEN_KEYS.has(k))
      throw new Error(`${path}: '${k}' is not a spec field`);
    if (i === walk.length - 1) {
      Object.defineProperty(cur, k, { value, enumerable: true, writable: true, configurable: true });
      return;
    }
    const next = Object.hasOwn(cur, k) ? cur[k] : undefined;
    if (next === undefined || next === null || typeof next !== 'object') {
      throw new Error(`${path}: the base spec has nothing at ${walk.slice(0, i + 1).join('.')}`);
    }
    cur = next as Record<string | number, unknown>;
  });
  return copy as T;
}

const slug = (v: unknown) =>
  String(typeof v === 'object' ? JSON.stringify(v) : v)
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .slice(0, 24);

export class CampaignError extends Error {
  constructor(readonly problems: SpecProblem[]) {
    super(`invalid campaign\n${formatProblems(problems, '(campaign)')}`);
  }
}

/** Every combination × repetition, each validated as a spec; problems name the campaign parameter. */
export function expandCampaign(c: Campaign): Variant[] {
  const steps = expansion(c);
  for (let s = steps.next(); ; s = steps.next()) if (s.done) return s.value;
}

/**
 * The same, giving the event loop back every `chunk` combinations: the service expands campaigns
 * this way, so a big one (up to MAX_VARIANTS) never holds up other requests.
 */
export async function expandCampaignAsync(c: Campaign, chunk = 20): Promise<Variant[]> {
  const steps = expansion(c);
  for (let i = 1, s = steps.next(); ; i++, s = steps.next()) {
    if (s.done) return s.value;
    if (i % chunk === 0) await new Promise<void>((r) => setImmediate(r));
  }
}

/**
 * Repetitions are independent samples: repetition r draws its random parts (cross-traffic sources,
 * their on/off times) from seed + r - 1, written into its spec so the run's record reruns alike.
 * Repetition 1, and every repetition of a campaign that varies the seed itself, keep the seed.
 */
function repetitionSpec(
  spec: SpecInput,
  resolved: Spec,
  r: number,
  seedVaried: boolean,
): { spec: SpecInput; resolved: Spec } {
  if (r === 1 || seedVaried) return { spec, resolved };
  const reseeded = { ...spec, seed: (resolved.seed + r - 1) % 2 ** 31 };
  const v = validateSpec(reseeded);
  if (!v.ok) throw new Error(`repetition ${r}: ${v.problems.map((p) => p.message).join('; ')}`);
  return { spec: reseeded, resolved: v.spec };
}

/** Whether a combination fits an `exclude` or `repeatWhere` entry: every key it names, by its pattern. */
function fits(entry: Record<string, unknown>, params: Record<string, unknown>): boolean {
  return Object.entries(entry).every(([k, pattern]) => k in params && matchPattern(pattern, params[k]));
}

/** Whether the campaign's `exclude` leaves this combination out. */
export function excluded(c: Pick<Campaign, 'exclude'>, params: Record<string, unknown>): boolean {
  return (c.exclude ?? []).some((entry) => fits(entry, params));
}

/** Expansion as steps: one yield per combination, the variants when done. */
function* expansion(c: Campaign): Generator<void, Variant[]> {
  const names = Object.keys(c.vary);
  let combos: Record<string, unknown>[] = [{}];
  for (const n of names)
    combos = combos.flatMap((combo) => (c.vary[n] ?? []).map((v) => ({ ...combo, [n]: v })));
  const variants: Variant[] = [];
  const problems: SpecProblem[] = [];
  for (const [ci, params] of combos.entries()) {
    yield;
    if (excluded(c, params)) continue;
    let spec = structuredClone(c.base) as SpecInput;
    try {
      for (const [path, value] of Object.entries(params)) spec = setPath(spec, path, value);
    } catch (err) {
      problems.push({ path: 'vary', message: (err as Error).message });
      continue;
    }
    const v = validateSpec(spec);
    if (!v.ok) {
      const where = Object.entries(params)
        .map(([k, val]) => `${k}=${JSON.stringify(val)}`)
        .join(', ');
      for (const p of underPath('base', v.problems))
        problems.push({ path: p.path, message: `${p.message} (with ${where || 'no variation'})` });
      continue;
    }
    for (let r = 1, runs = repeatsOf(c, params); r <= runs; r++) {
      const slugs = Object.values(params).map(slug).join('-');
      variants.push({
        id: `${String(ci + 1).padStart(3, '0')}${slugs ? `-${slugs}` : ''}-r${r}`,
        label: '',
        params,
        repetition: r,
        ...repetitionSpec(spec, v.spec, r, 'seed' in params),
      });
    }
  }
  if (!problems.length && combos.length && !variants.length)
    problems.push({ path: 'exclude', message: `leaves none of the ${combos.length} combinations to run` });
  if (problems.length) throw new CampaignError(problems);
  // Labelled in file order, before shuffling, so a duplicate's number is its place in the file.
  uniqueLabels(variants, { vary: c.vary, repeat: mostRepeats(c) }).forEach((l, i) => {
    (variants[i] as Variant).label = l;
  });
  if (c.order === 'random') {
    const rnd = seededUniform(c.seed);
    for (let i = variants.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [variants[i], variants[j]] = [variants[j] as Variant, variants[i] as Variant];
    }
  }
  return variants;
}

/** Campaign text (the one spec parser: YAML or JSON, alias-limited) to a campaign, or CampaignError. */
export function parseCampaignText(text: string): Campaign {
  const doc = parseDocument(text);
  if (!doc.ok) throw new CampaignError(doc.problems);
  const r = CampaignSchema.safeParse(doc.value);
  if (!r.success) throw new CampaignError(problemsOf(r.error));
  return r.data;
}
