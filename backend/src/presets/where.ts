// A `where` selects a preset's runs by the values of their campaign parameters, written with the
// `vary` keys exactly as the campaign file has them: `{ 'flows[0].stack': reno, 'paths.main.ber':
// 3.87e-9 }`. Values are named, never positions, so reordering a `vary` list or adding a value to it
// cannot re-point a published number at another run. The load-time check (checkWhere) makes every
// named value match exactly one value of its parameter in each part that has it, so a typo, a value
// that left the campaign, or an object pattern that a newly added value also fits is an error instead
// of a quietly changed number.
import { z } from 'zod';
import { excluded } from '../campaign/expand.js';
import { deepEqual, isObject, matchPattern, PatternSchema } from '../campaign/pattern.js';
import type { PresetRow } from './measure.js';

/**
 * Which runs a number belongs to: campaign parameters, written as the `vary` keys of the campaign
 * (`flows[0].stack`, `paths.main.ber`), each mapped to a pattern; plus `part` (a part name, or
 * `{ $any: [names] }`) in a preset of several campaigns. Checked against the parts' `vary` lists at
 * load time (checkWhere, below): every named value must be one of its parameter's values.
 */
export const WhereSchema = z.record(z.string(), PatternSchema);
export type Where = z.output<typeof WhereSchema>;

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
  /** The combinations the campaign leaves out (its `exclude`): no run has them. */
  exclude?: Record<string, unknown>[];
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
  // 'run': a combination the campaign runs; 'excluded': one its cross product has but `exclude` drops.
  const fits = (p: VariedPart, kind: 'run' | 'excluded') => {
    for (const combo of combinations(p.vary))
      if (
        excluded(p, combo) === (kind === 'excluded') &&
        rowMatches({ part: p.name, params: combo }, Object.fromEntries(params))
      )
        return true;
    return false;
  };
  if (params.length && !inReach.some((p) => fits(p, 'run')))
    problems.push(
      `${what}: no run has all of ${params.map(([k, v]) => `${k} ${show(v)}`).join(', ')} (${inReach.some((p) => fits(p, 'excluded')) ? "the campaign's exclude leaves that combination out" : 'each value exists, but not together in one part'})`,
    );
  return problems;
}
