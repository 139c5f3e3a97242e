// A `where` selects a preset's runs by the values of their campaign parameters, written with the
// `vary` keys exactly as the campaign file has them: `{ 'flows[0].stack': reno, 'paths.main.ber':
// 3.87e-9 }`. Values are named, never positions, so reordering a `vary` list or adding a value to it
// cannot re-point a published number at another run. The load-time check (checkWhere) makes every
// named value match exactly one value of its parameter in each part that has it, so a typo, a value
// that left the campaign, or an object pattern that a newly added value also fits is an error instead
// of a quietly changed number.
import { z } from 'zod';
import type { PresetRow } from './measure.js';

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/** Pattern operators; any other `$` key is a mistake (a position such as `$nth` is no longer accepted). */
const OPERATORS = ['$any', '$not'];

/** Report, by path, what in a pattern is not a value, `{ $any: [patterns] }` or `{ $not: pattern }`. */
function checkPattern(p: unknown, path: (string | number)[], ctx: z.RefinementCtx): void {
  if (Array.isArray(p)) for (const [i, x] of p.entries()) checkPattern(x, [...path, i], ctx);
  if (!isObject(p)) return;
  const ops = Object.keys(p).filter((k) => k.startsWith('$'));
  for (const k of ops.filter((o) => !OPERATORS.includes(o)))
    ctx.addIssue({
      code: 'custom',
      path: [...path, k],
      message:
        k === '$nth'
          ? "variants are no longer picked by position ($nth): name the value itself, as the campaign's vary list writes it"
          : `'${k}' is not a pattern operator; allowed: ${OPERATORS.join(', ')}`,
    });
  const known = ops.filter((o) => OPERATORS.includes(o));
  if (known.length && Object.keys(p).length > 1)
    ctx.addIssue({
      code: 'custom',
      path,
      message: `${known[0]} stands alone: no other keys beside it (found ${Object.keys(p).join(', ')})`,
    });
  if ('$any' in p) {
    if (!Array.isArray(p.$any) || p.$any.length === 0)
      ctx.addIssue({
        code: 'custom',
        path: [...path, '$any'],
        message: '$any needs a list of at least one pattern',
      });
    else for (const [i, x] of p.$any.entries()) checkPattern(x, [...path, '$any', i], ctx);
  } else if ('$not' in p) checkPattern(p.$not, [...path, '$not'], ctx);
  else for (const [k, v] of Object.entries(p)) checkPattern(v, [...path, k], ctx);
}

/**
 * A parameter's pattern: a value as the campaign's `vary` list writes it (an object matches as a
 * subset: `{ stack: reno, streams: 1 }` matches that flow whatever its other fields; a list matches
 * element by element), `{ $any: [patterns] }` or `{ $not: pattern }`. Variants are named by value,
 * never by position: reordering or extending a `vary` list cannot move a number to another run.
 */
export const PatternSchema = z.unknown().superRefine((p, ctx) => checkPattern(p, [], ctx));

/**
 * Which runs a number belongs to: campaign parameters, written as the `vary` keys of the campaign
 * (`flows[0].stack`, `paths.main.ber`), each mapped to a pattern; plus `part` (a part name, or
 * `{ $any: [names] }`) in a preset of several campaigns. Checked against the parts' `vary` lists at
 * load time (checkWhere, below): every named value must be one of its parameter's values.
 */
export const WhereSchema = z.record(z.string(), PatternSchema);
export type Where = z.output<typeof WhereSchema>;

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * Does `actual` fit `pattern`? Objects match as subsets, lists element by element (same length), so
 * `[{ period: 60s }]` names the one cross-traffic list whose only entry has that period; `$any` and
 * `$not` as their names say.
 */
export function matchPattern(pattern: unknown, actual: unknown): boolean {
  if (Array.isArray(pattern))
    return (
      Array.isArray(actual) &&
      actual.length === pattern.length &&
      pattern.every((p, i) => matchPattern(p, actual[i]))
    );
  if (isObject(pattern)) {
    if ('$not' in pattern) return !matchPattern(pattern.$not, actual);
    if ('$any' in pattern)
      return Array.isArray(pattern.$any) && pattern.$any.some((p) => matchPattern(p, actual));
    return isObject(actual) && Object.entries(pattern).every(([k, v]) => matchPattern(v, actual[k]));
  }
  return deepEqual(pattern, actual);
}

/** Does the row (its part and parameter values) fit every entry of `where`? */
export function rowMatches(row: Pick<PresetRow, 'part' | 'params'>, where: Where): boolean {
  return Object.entries(where).every(([k, pattern]) => {
    if (k === 'part') return matchPattern(pattern, row.part);
    return k in row.params && matchPattern(pattern, row.params[k]);
  });
}

/** The values a pattern names: each of `$any`'s, the one under `$not`, or the pattern itself. */
export function namedValues(pattern: unknown): unknown[] {
  if (isObject(pattern) && '$any' in pattern && Array.isArray(pattern.$any))
    return pattern.$any.flatMap(namedValues);
  if (isObject(pattern) && '$not' in pattern) return namedValues(pattern.$not);
  return [pattern];
}

/** One part of a preset as the check needs it: its name and its `vary` lists. */
export interface VariedPart {
  name: string;
  vary: Record<string, unknown[]>;
}

const show = (v: unknown) => JSON.stringify(v);
const listOf = (vs: unknown[]) => vs.map(show).join(', ');

/** Every combination of a part's varied values (what the campaign expands, before repetitions). */
function* combinations(
  vary: Record<string, unknown[]>,
  keys: string[] = Object.keys(vary),
  combo: Record<string, unknown> = {},
): Generator<Record<string, unknown>> {
  const [k, ...rest] = keys;
  if (k === undefined) {
    yield combo;
    return;
  }
  for (const v of vary[k] ?? []) yield* combinations(vary, rest, { ...combo, [k]: v });
}

/**
 * Problems with one selection, in words: a parameter no part in reach varies, a named value that
 * matches none of the parameter's values or more than one, or a combination that no run has. `what`
 * names the selection ("published t1.avg.size1.reno").
 */
export function checkWhere(where: Where, parts: readonly VariedPart[], what: string): string[] {
  const problems: string[] = [];
  const partNames = parts.map((p) => p.name);
  if ('part' in where)
    for (const n of namedValues(where.part))
      if (typeof n !== 'string' || !partNames.includes(n))
        problems.push(`${what}: part ${show(n)} is not one of ${partNames.join(', ')}`);
  if (problems.length) return problems;
  const inReach = parts.filter((p) => !('part' in where) || matchPattern(where.part, p.name));
  for (const [k, pattern] of Object.entries(where)) {
    if (k === 'part') continue;
    const varying = inReach.filter((p) => k in p.vary);
    if (varying.length === 0) {
      const varied = [...new Set(inReach.flatMap((p) => Object.keys(p.vary)))];
      const reach =
        inReach.length === parts.length ? 'any part' : `part ${inReach.map((p) => p.name).join(', ')}`;
      problems.push(
        `${what}: '${k}' is not a varied parameter of ${reach}; varied: ${varied.join(', ') || 'nothing'}`,
      );
      continue;
    }
    // The parameter's distinct values over the parts in reach (parts often share a list).
    const values: unknown[] = [];
    for (const p of varying)
      for (const v of p.vary[k] ?? []) if (!values.some((w) => deepEqual(v, w))) values.push(v);
    const inParts =
      varying.length === parts.length ? '' : ` in part ${varying.map((p) => p.name).join(', ')}`;
    for (const named of namedValues(pattern)) {
      // Per part: a value may be in some parts only (a window per path), but never twice in one.
      let found = false;
      for (const p of varying) {
        const fits = (p.vary[k] ?? []).filter((v) => matchPattern(named, v));
        found ||= fits.length > 0;
        const inPart = parts.length > 1 ? ` in part ${p.name}` : '';
        if (fits.length > 1 && fits.every((v) => deepEqual(v, fits[0])))
          problems.push(`${what}: '${k}' lists ${show(fits[0])} more than once${inPart}`);
        else if (fits.length > 1)
          problems.push(
            `${what}: '${k}': ${show(named)} fits ${fits.length} values${inPart} (${listOf(fits)}); name one value, or list each in { $any: [...] }`,
          );
      }
      if (!found)
        problems.push(`${what}: '${k}' has no value ${show(named)}${inParts}; its values: ${listOf(values)}`);
    }
  }
  if (problems.length) return problems;
  const params = Object.entries(where).filter(([k]) => k !== 'part');
  const some = inReach.some((p) => {
    for (const combo of combinations(p.vary))
      if (rowMatches({ part: p.name, params: combo }, Object.fromEntries(params))) return true;
    return false;
  });
  if (!some && params.length)
    problems.push(
      `${what}: no run has all of ${params.map(([k, v]) => `${k} ${show(v)}`).join(', ')} (each value exists, but not together in one part)`,
    );
  return problems;
}
