// Runs made to a plan the campaign file has changed since. A resumed campaign (or a preset resumed
// from its kept records) whose file now gives a variant another spec, e.g. a preset edited between
// sittings so that its streams connect together, would otherwise count the old run as this
// variant's: same id, another experiment. Such a run is not a run of this campaign. It goes aside
// under superseded/ (kept, with its invalid tries) and the variant runs again to the spec as written.
import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Variant } from './expand.js';

/** Where a campaign keeps runs made to an older plan: `superseded/<variant>~<n>`. */
export const SUPERSEDED_DIR = 'superseded';

const text = (x: unknown) => (x === undefined ? 'absent' : typeof x === 'string' ? x : JSON.stringify(x));

/** "flows[0].connect: serial → together": the first field where two specs (as written) differ. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | null {
  if (JSON.stringify(a) === JSON.stringify(b)) return null;
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (const [i, x] of a.entries()) {
      const d = firstDifference(x, b[i], `${path}[${i}]`);
      if (d) return d;
    }
  }
  const isObject = (x: unknown): x is Record<string, unknown> =>
    typeof x === 'object' && x !== null && !Array.isArray(x);
  if (isObject(a) && isObject(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])]) {
      const d = firstDifference(a[k], b[k], path ? `${path}.${k}` : k);
      if (d) return d;
    }
  }
  return `${path || 'spec'}: ${text(a)} → ${text(b)}`;
}

/** The variants planned before under the same id with another spec, and the first field that moved. */
export function specChanges(
  before: readonly { id: string; spec?: unknown }[],
  now: readonly Variant[],
): { variant: Variant; difference: string }[] {
  const was = new Map(before.map((b) => [b.id, b.spec]));
  return now.flatMap((v) => {
    if (!was.has(v.id)) return [];
    const difference = firstDifference(was.get(v.id), v.spec);
    return difference ? [{ variant: v, difference }] : [];
  });
}

/**
 * Moves a variant's run directory and its invalid tries (`invalidDir/<id>~k`) under superseded/;
 * returns where the run went, null when there was none.
 */
export function setAsideSuperseded(campaignDir: string, id: string, invalidDir: string): string | null {
  const d = join(campaignDir, SUPERSEDED_DIR);
  const run = join(campaignDir, 'runs', id);
  const tries = existsSync(join(campaignDir, invalidDir))
    ? readdirSync(join(campaignDir, invalidDir)).filter((f) => f.startsWith(`${id}~`))
    : [];
  if (!existsSync(run) && !tries.length) return null;
  mkdirSync(join(d, invalidDir), { recursive: true });
  const n = readdirSync(d).filter((f) => f.startsWith(`${id}~`)).length + 1;
  const to = join(d, `${id}~${n}`);
  if (existsSync(run)) renameSync(run, to);
  for (const t of tries) renameSync(join(campaignDir, invalidDir, t), join(d, invalidDir, `${t}~${n}`));
  return existsSync(to) ? to : null;
}
