// What a claim's items name: the published ids (or id globs) it talks about, and whether every one
// of them lies in parts the reproduction leaves out (meta reproduce.notReproduced), so that a
// reproduction's comparison can say why such a finding has nothing measured.
import { matchPattern } from '../campaign/pattern.js';
import { globRe, type Preset } from './load.js';
import type { Claim, Item, Where } from './schema.js';

const itemsOf = (c: Claim): Item[] =>
  'item' in c ? [c.item] : c.kind === 'pairs' ? c.pairs.flat() : 'items' in c ? [...c.items] : [];

/** The published ids (or id globs) a claim's items name. */
export function claimIds(c: Claim): string[] {
  return itemsOf(c).filter((i): i is string => typeof i === 'string');
}

/** The parts whose rows a selection can match: those its `part` entry names (every part without one). */
const partsOf = (where: Where, parts: readonly string[]) =>
  where.part === undefined ? parts : parts.filter((p) => matchPattern(where.part, p));

/** "part bdp keeps the paper's windows …": a left-out part and why, as a sentence's subject. */
const partWhy = (n: { part: string; why: string }) => `part ${n.part} ${n.why}`;

/**
 * Why the reproduction measures none of a claim: every item it names lies only in parts it leaves
 * out (their `why`, joined); null when one of them lies in a part it runs.
 */
export function notReproducedWhy(preset: Preset, claim: Claim): string | null {
  const left = preset.meta.reproduce?.notReproduced ?? [];
  if (!left.length) return null;
  const partNames = preset.parts.map((p) => p.name);
  const wheres = itemsOf(claim).flatMap((i): Where[] => {
    if (typeof i !== 'string') return [i.where];
    const re = globRe(i);
    return preset.meta.published.filter((p) => re.test(p.id)).map((p) => p.where);
  });
  const parts = new Set(wheres.flatMap((w) => partsOf(w, partNames)));
  if (!wheres.length || !parts.size) return null;
  const why = left.filter((n) => parts.has(n.part));
  return why.length === parts.size ? why.map(partWhy).join(' ') : null;
}

/** What the reproduction leaves out, one line per part: "Not in the reproduction: part bdp …". */
export const notReproducedLines = (preset: Pick<Preset, 'meta'>): string[] =>
  (preset.meta.reproduce?.notReproduced ?? []).map((n) => `Not in the reproduction: ${partWhy(n)}`);
