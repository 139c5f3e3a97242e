// A preset's CI variant: the same campaign with every run a few seconds long, so CI can run it end to
// end. Times in the base spec and in every varied value (starts, staggers, flow durations, scheduled
// changes, transfer sizes) shrink by the same factor; iperf3 counts in whole seconds, so flow times
// are rounded to whole seconds (at least 1 s where they were above 0). A flow's `omit` (its slow
// start, left out of its interval statistics) does not shrink.
import { formatMs, parseDuration, parseSize } from '@lfnlab/emulator';
import { type Campaign, CampaignError, expandCampaign } from '../campaign/expand.js';
import { matchPattern } from '../campaign/pattern.js';
import type { Preset } from './load.js';

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

function ms(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const r = parseDuration(text);
  return r.ok ? r.value : null;
}

/** Closer together than this, scheduled changes are thinned (tc cannot usefully change faster). */
const MIN_CHANGE_GAP_MS = 250;

interface Ctx {
  factor: number;
  seconds: number;
}

const wholeSeconds = (x: number, atLeastOne: boolean) => {
  const s = Math.round(x / 1000);
  return `${atLeastOne ? Math.max(1, s) : Math.max(0, s)}s`;
};

function scaleFlow(flow: Record<string, unknown>, c: Ctx): Record<string, unknown> {
  const out = { ...flow };
  for (const k of ['start', 'every', 'duration'] as const) {
    const v = ms(out[k]);
    if (v !== null) out[k] = wholeSeconds(v * c.factor, v > 0 && k !== 'start');
  }
  // Slow start takes as long in a short run as in a long one, so `omit` keeps its length, up to
  // half the shortened run (a CI run still has intervals to measure).
  const omit = ms(out.omit);
  if (omit !== null) out.omit = `${Math.floor(Math.min(omit, (c.seconds * 1000) / 2) / 1000)}s`;
  if (typeof out.bytes === 'string') {
    const r = parseSize(out.bytes);
    if (r.ok) out.bytes = `${Math.max(1000, Math.round(r.value * c.factor))}B`;
  }
  return out;
}

function scaleChanges(changes: unknown, c: Ctx): unknown {
  if (!Array.isArray(changes)) return changes;
  const scaled = changes.map((ch) => {
    if (!isObject(ch)) return ch;
    const at = ms(ch.at);
    return at === null ? ch : { ...ch, at: `${Math.round(at * c.factor)}ms` };
  });
  const kept: unknown[] = [];
  let last = Number.NEGATIVE_INFINITY;
  for (const ch of scaled) {
    const at = isObject(ch) ? ms(ch.at) : null;
    if (at === null || at - last >= MIN_CHANGE_GAP_MS) {
      kept.push(ch);
      if (at !== null) last = at;
    }
  }
  return kept;
}

function scalePath(path: Record<string, unknown>, c: Ctx): Record<string, unknown> {
  return 'changes' in path ? { ...path, changes: scaleChanges(path.changes, c) } : path;
}

/**
 * A shortened run keeps its campaign's iperf3 interval while it still holds this many of them: a
 * stability index (σ/μ of the interval goodputs) is defined by its interval, and the papers' 5 s
 * taken as 1 s would count the sawtooth inside each 5 s as instability. Shorter than that, 1 s.
 */
export const MIN_INTERVALS_KEPT = 8;

function scaleSpec(spec: Record<string, unknown>, c: Ctx): Record<string, unknown> {
  const out: Record<string, unknown> = { ...spec, duration: `${c.seconds}s` };
  const si = ms(out.sampleInterval);
  if (si !== null && si > 1000 && c.seconds * 1000 < MIN_INTERVALS_KEPT * si) out.sampleInterval = '1s';
  if (isObject(out.paths))
    out.paths = Object.fromEntries(
      Object.entries(out.paths).map(([k, p]) => [k, isObject(p) ? scalePath(p, c) : p]),
    );
  if (Array.isArray(out.flows)) out.flows = out.flows.map((f) => (isObject(f) ? scaleFlow(f, c) : f));
  return out;
}

const tokens = (path: string) =>
  [...path.matchAll(/([A-Za-z_][\w-]*)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]));

/** Scale one varied value according to what its parameter path points at. */
function scaleValue(param: string, value: unknown, c: Ctx): unknown {
  const t = tokens(param);
  const [a, , cc, d] = t;
  if (a === 'duration') return `${c.seconds}s`;
  if (a === 'flows') {
    if (t.length === 1 && Array.isArray(value)) return value.map((f) => (isObject(f) ? scaleFlow(f, c) : f));
    if (t.length === 2 && isObject(value)) return scaleFlow(value, c);
    if (t.length === 3 && typeof cc === 'string') return scaleFlow({ [cc]: value }, c)[cc];
  }
  if (a === 'paths') {
    if (t.length === 1 && isObject(value))
      return Object.fromEntries(
        Object.entries(value).map(([k, p]) => [k, isObject(p) ? scalePath(p, c) : p]),
      );
    if (t.length === 2 && isObject(value)) return scalePath(value, c);
    if (t.length === 3 && cc === 'changes') return scaleChanges(value, c);
    if (t.length === 5 && cc === 'changes' && d !== undefined && t[4] === 'at') {
      const v = ms(value);
      return v === null ? value : `${Math.round(v * c.factor)}ms`;
    }
  }
  return value;
}

/** A pattern over a parameter's value scaled like the value (through `$any` and `$not`). */
function scalePattern(param: string, pattern: unknown, c: Ctx): unknown {
  if (isObject(pattern) && Array.isArray(pattern.$any))
    return { $any: pattern.$any.map((p) => scalePattern(param, p, c)) };
  if (isObject(pattern) && '$not' in pattern) return { $not: scalePattern(param, pattern.$not, c) };
  return scaleValue(param, pattern, c);
}

/** Keep at most n values: the first, the last and evenly spaced ones between. */
function thin<T>(values: T[], n: number | undefined): T[] {
  if (n === undefined || values.length <= n) return values;
  if (n === 1) return values.slice(0, 1);
  const idx = new Set(Array.from({ length: n }, (_, i) => Math.round((i * (values.length - 1)) / (n - 1))));
  return values.filter((_, i) => idx.has(i));
}

/** The name a shortened campaign gets (its runs are named `NAME-ci/VARIANT`; reproductions `NAME-repro`). */
export const shortenedName = (name: string, suffix = 'ci') => `${name}-${suffix}`.slice(0, 64);

/** What shortening a campaign's runs to `seconds` multiplies every time by (1: not shortened). */
export function shorteningOf(campaign: Campaign, seconds: number): number {
  const full = ms(campaign.base.duration);
  if (full === null) throw new Error(`${campaign.name}: the base spec needs a duration to shorten`);
  return Math.min(1, (seconds * 1000) / full);
}

/**
 * The campaign with every run `seconds` long: for CI one repetition (optionally at most `values`
 * values per varied parameter), for a reproduction every value and `repeat` repetitions. Expanding
 * the result validates it like any campaign.
 */
export function shortenForCi(
  campaign: Campaign,
  seconds: number,
  opts: {
    values?: number;
    repeat?: number;
    /** More runs of some combinations (values as the full-length file writes them); CI runs none. */
    repeatWhere?: NonNullable<Campaign['repeatWhere']>;
    suffix?: string;
    why?: string;
  } = {},
): Campaign {
  const c: Ctx = { factor: shorteningOf(campaign, seconds), seconds };
  const vary = Object.fromEntries(
    Object.entries(campaign.vary).map(([k, vals]) => {
      const scaled = vals.map((v) => scaleValue(k, v, c));
      const unique = scaled.filter(
        (v, i) => scaled.findIndex((w) => JSON.stringify(w) === JSON.stringify(v)) === i,
      );
      return [k, thin(unique, opts.values)];
    }),
  );
  const suffix = opts.suffix ?? 'ci';
  // An exclude names values as the vary list writes them; shortened, it must name them shortened.
  // An entry that fits none of the values CI kept leaves nothing out, so it goes (the campaign
  // parser refuses a pattern that fits no value, rightly for a file as written). So for repeatWhere.
  const scaled = (entry: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(entry).map(([k, p]) => [k, scalePattern(k, p, c)]));
  const kept = (entry: Record<string, unknown>) =>
    Object.entries(entry).every(([k, p]) => (vary[k] ?? []).some((v) => matchPattern(p, v)));
  const exclude = campaign.exclude?.map(scaled).filter(kept);
  const repeatWhere =
    opts.repeat === undefined
      ? []
      : [...(campaign.repeatWhere ?? []), ...(opts.repeatWhere ?? [])]
          .map((r) => ({ ...r, where: scaled(r.where) }))
          .filter((r) => kept(r.where));
  const { exclude: _asWritten, repeatWhere: _repeatsAsWritten, ...rest } = campaign;
  return {
    ...rest,
    ...(exclude?.length ? { exclude } : {}),
    ...(repeatWhere.length ? { repeatWhere } : {}),
    name: shortenedName(campaign.name, suffix),
    description: `${campaign.description ?? campaign.name} (${opts.why ?? 'CI'}: ${formatMs(seconds * 1000)} runs)`,
    base: scaleSpec(campaign.base, c),
    vary,
    repeat: opts.repeat ?? 1,
  };
}

/** Every part of a preset shortened as its meta file's `ci` block says. */
export function presetForCi(preset: Preset): { part: string; campaign: Campaign }[] {
  return preset.parts.map((p) => ({
    part: p.name,
    campaign: shortenForCi(p.campaign, preset.meta.ci.seconds, { values: preset.meta.ci.values }),
  }));
}

/** The meta's extra repetitions that concern one part: named for it, or naming only keys it varies. */
export function moreFor(
  more: NonNullable<Preset['meta']['reproduce']>['more'],
  part: { name: string; campaign: Campaign },
): NonNullable<Campaign['repeatWhere']> {
  return more
    .filter((m) =>
      m.part === undefined
        ? Object.keys(m.where).every((k) => k in part.campaign.vary)
        : m.part === part.name,
    )
    .map(({ where, repeat }) => ({ where, repeat }));
}

/** The meta's value subsets that concern one part: named for it, or (no part) any part varying the key. */
export function valuesFor(
  values: NonNullable<Preset['meta']['reproduce']>['values'],
  part: { name: string; campaign: Campaign },
): NonNullable<Preset['meta']['reproduce']>['values'] {
  return values.filter((v) => (v.part === undefined ? v.key in part.campaign.vary : v.part === part.name));
}

/** The campaign with only the kept values of some varied parameters (values as the file writes them). */
export function keepValues(
  campaign: Campaign,
  values: NonNullable<Preset['meta']['reproduce']>['values'],
): Campaign {
  if (!values.length) return campaign;
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const vary = { ...campaign.vary };
  for (const v of values) vary[v.key] = (vary[v.key] ?? []).filter((x) => v.keep.some((k) => same(k, x)));
  return { ...campaign, vary };
}

/**
 * Every part of a preset at its reproduction length (meta `reproduce`): every parameter value kept
 * but those `values` leaves out, at least `repeat` repetitions per variant (more when the campaign
 * file already asks for more); the parts it says are not reproduced are left out.
 */
export function presetForReproduction(preset: Preset): { part: string; campaign: Campaign }[] {
  const r = preset.meta.reproduce;
  if (!r) throw new Error(`${preset.name}: the meta file has no 'reproduce' block (seconds, repeat, why)`);
  const skipped = new Set(r.notReproduced.map((n) => n.part));
  return preset.parts
    .filter((p) => !skipped.has(p.name))
    .map((p) => ({
      part: p.name,
      campaign: shortenForCi(keepValues(p.campaign, valuesFor(r.values, p)), r.seconds, {
        repeat: Math.max(r.repeat, p.campaign.repeat),
        repeatWhere: moreFor(r.more, p),
        suffix: 'repro',
        why: 'reproduction',
      }),
    }));
}

/** The shortest whole-second length from `from` up (at most `upTo`) at which every variant is valid. */
export function shortestValidLength(campaign: Campaign, from: number, upTo = 600): number | null {
  for (let s = Math.max(2, Math.ceil(from)); s <= upTo; s++) {
    try {
      expandCampaign(shortenForCi(campaign, s));
      return s;
    } catch (err) {
      if (!(err instanceof CampaignError)) throw err;
    }
  }
  return null;
}
