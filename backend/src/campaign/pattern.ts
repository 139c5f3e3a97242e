// A pattern over one campaign parameter's value, as campaign `exclude` lists and preset `where`
// selections write it: the value as the `vary` list has it (an object matches as a subset, a list
// element by element), `{ $any: [patterns] }` or `{ $not: pattern }`.
import { z } from 'zod';

export const isObject = (x: unknown): x is Record<string, unknown> =>
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
