// What a claim's items name: the published ids (or id globs) it talks about, and whether every one
// of them lies in parts the reproduction leaves out (meta reproduce.notReproduced), so that a
// reproduction's comparison can say why such a finding has nothing measured.
import { matchPattern } from '../campaign/pattern.js';
import { valuesFor } from './ci.js';
import { globRe, type Preset } from './load.js';
import type { Claim, Item, PresetMeta, Where } from './schema.js';

type ReproduceValues = NonNullable<PresetMeta['reproduce']>['values'][number];

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

/**
 * "flows[1].streams 24, 32, 48 (part main; it keeps 1, 2, 4, 8, 16): …": values a reproduction
 * leaves out and why, read against the parts that vary the key.
 */
function valuesWhy(preset: Pick<Preset, 'meta' | 'parts'>, v: ReproduceValues): string {
  const text = (x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x));
  const kept = new Set(v.keep.map((x) => JSON.stringify(x)));
  const written = preset.parts
    .filter((p) => valuesFor([v], p).length)
    .flatMap((p) => p.campaign.vary[v.key] ?? []);
  const left = [...new Set(written.filter((x) => !kept.has(JSON.stringify(x))).map(text))];
  const where = v.part ? `part ${v.part}; ` : '';
  return `${v.key} ${left.join(', ')} (${where}it keeps ${v.keep.map(text).join(', ')}): ${v.why}`;
}

/**
 * What the reproduction leaves out, one line per part and per parameter some of whose values it
 * drops: "part bdp keeps the paper's windows …", "flows[1].streams 24, 32, 48 (…): …".
 */
export const notReproducedLines = (preset: Pick<Preset, 'meta' | 'parts'>): string[] => [
  ...(preset.meta.reproduce?.notReproduced ?? []).map(partWhy),
  ...(preset.meta.reproduce?.values ?? []).map((v) => valuesWhy(preset, v)),
];
