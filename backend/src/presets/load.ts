// Loading the paper presets: presets/<name>.meta.yaml plus the campaign file(s) it names. Tables
// are expanded into one published number each; every reference a claim or a `where` makes is
// checked here, so a typo fails at load time rather than as an empty comparison.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { type Campaign, parseCampaignText } from '../campaign/expand.js';
import { moreFor, valuesFor } from './ci.js';
import {
  type Claim,
  type Item,
  type Measure,
  MeasureSchema,
  type MetaFile,
  MetaSchema,
  type PresetMeta,
  type Published,
  PublishedSchema,
  parseValue,
  type Where,
} from './schema.js';
import { checkWhere } from './where.js';

/** presets/ at the repository root, from backend/src/presets or backend/dist/presets alike. */
export const PRESETS_DIR = fileURLToPath(new URL('../../../presets/', import.meta.url));

export interface PresetPart {
  name: string;
  file: string;
  campaign: Campaign;
}

export interface Preset {
  name: string;
  meta: PresetMeta;
  parts: PresetPart[];
}

/** What is wrong with one preset; the message names its meta file (`<preset>.meta.yaml`) and each problem. */
export class PresetError extends Error {
  constructor(
    readonly preset: string,
    readonly problems: string[],
  ) {
    super(`${preset}.meta.yaml:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'PresetError';
  }
}

/** `*` in an id or flow-name pattern matches any run of characters. */
export function globRe(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map(escapeRe).join('.*')}$`);
}
const escapeRe = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

function expandTables(meta: MetaFile, problems: string[]): Published[] {
  const out: Published[] = [];
  for (const p of meta.published) {
    const v = parseValue(p.value);
    out.push({
      id: p.id,
      name: p.name ?? p.id.split('.').pop() ?? p.id,
      label: p.label ?? p.name ?? p.id,
      value: v.value,
      sd: v.sd ?? null,
      unit: p.unit,
      ref: p.ref,
      where: p.where,
      measure: p.measure,
      sdFrom: p.sdFrom ?? null,
      scale: p.scale,
      note: p.note ?? null,
    });
  }
  for (const t of meta.tables) {
    for (const row of t.rows) {
      if (row.values.length !== t.columns.length) {
        problems.push(
          `table ${t.id} row ${row.key}: ${row.values.length} values for ${t.columns.length} columns`,
        );
        continue;
      }
      row.values.forEach((raw, i) => {
        const col = t.columns[i];
        if (raw === null || !col) return;
        const v = parseValue(raw);
        let measure: Measure | null = null;
        if (t.measure !== null) {
          const merged = { ...t.measure, ...row.measure, ...col.measure };
          const r = MeasureSchema.safeParse(merged);
          if (!r.success) {
            problems.push(
              `table ${t.id} ${row.key}/${col.key}: measure ${JSON.stringify(merged)}: ${r.error.issues[0]?.message}`,
            );
            return;
          }
          measure = r.data;
        }
        const entry = PublishedSchema.safeParse({
          id: `${t.id}.${row.key}.${col.key}`,
          value: raw,
          unit: t.unit,
          ref: row.ref ?? t.ref,
          measure,
        });
        if (!entry.success) {
          problems.push(`table ${t.id} ${row.key}/${col.key}: ${entry.error.issues[0]?.message}`);
          return;
        }
        out.push({
          id: entry.data.id,
          name: col.label,
          label: `${row.label} · ${col.label}`,
          value: v.value,
          sd: v.sd ?? null,
          unit: t.unit,
          ref: row.ref ?? t.ref,
          where: { ...t.where, ...row.where, ...col.where },
          measure,
          sdFrom: row.sdFrom ?? t.sdFrom ?? null,
          scale: row.scale ?? t.scale,
          note: row.note ?? t.note ?? null,
        });
      });
    }
  }
  return out;
}

/** Measures nested in a measure (ratio, cellRatio), with their own `where` and a name when they have one. */
function* measuresIn(
  m: Measure,
  where: Where,
  name = '',
): Generator<{ m: Measure; where: Where; name: string }> {
  yield { m, where, name };
  if (m.kind === 'ratio') {
    yield* measuresIn(m.of, where, name);
    yield* measuresIn(m.to, where, name);
  } else if (m.kind === 'cellRatio') {
    yield* measuresIn(m.of.measure, { ...where, ...m.of.where }, `${name} (measure.of)`);
    yield* measuresIn(m.to.measure, { ...where, ...m.to.where }, `${name} (measure.to)`);
  }
}

/** The items a claim names, whatever its kind. */
export function claimItems(c: Claim): Item[] {
  switch (c.kind) {
    case 'ordering':
    case 'share':
    case 'signs':
    case 'similar':
      return [...c.items];
    case 'pairs':
      return c.pairs.flat();
    case 'threshold':
    case 'close':
      return [c.item];
  }
}

/** One selection of runs a preset makes, with the words that name it in an error. */
export interface Selection {
  /** "published t1.avg.size1.reno", "claim stab.by.stack item Reno (measure.of)" */
  what: string;
  where: Where;
  measure: Measure | null;
}

/** Every selection of runs in a preset: each published number's and each inline claim item's, with nested ones. */
export function* selections(meta: PresetMeta): Generator<Selection> {
  const withNested = function* (what: string, where: Where, measure: Measure | null) {
    if (measure === null) yield { what, where, measure };
    else
      for (const x of measuresIn(measure, where))
        yield { what: `${what}${x.name}`, where: x.where, measure: x.m };
  };
  for (const p of meta.published) yield* withNested(`published ${p.id}`, p.where, p.measure);
  for (const c of meta.claims)
    for (const it of claimItems(c))
      if (typeof it !== 'string') yield* withNested(`claim ${c.id} item ${it.label}`, it.where, it.measure);
}

export type InlineItem = Exclude<Item, string>;

/** Every claim item resolved: published ids (globs expanded) or inline selections. */
export function resolveItems(
  items: readonly Item[],
  published: readonly Published[],
): (Published | InlineItem)[] {
  return items.flatMap((it): (Published | InlineItem)[] => {
    if (typeof it !== 'string') return [it];
    const re = globRe(it);
    return published.filter((p) => re.test(p.id));
  });
}

function check(meta: PresetMeta, parts: PresetPart[], problems: string[]): void {
  const ids = new Set<string>();
  for (const p of meta.published) {
    if (ids.has(p.id)) problems.push(`published id ${p.id} appears twice`);
    ids.add(p.id);
  }
  const varied = new Set(parts.flatMap((p) => Object.keys(p.campaign.vary)));
  const variedParts = parts.map((p) => ({
    name: p.name,
    vary: p.campaign.vary,
    ...(p.campaign.exclude ? { exclude: p.campaign.exclude } : {}),
  }));
  for (const [i, m] of (meta.reproduce?.more ?? []).entries()) {
    const what = `reproduce.more[${i}]`;
    problems.push(...checkWhere({ ...(m.part ? { part: m.part } : {}), ...m.where }, variedParts, what));
    if (!parts.some((p) => moreFor([m], p).length))
      problems.push(`${what}: no part ${m.part ? `named ${m.part}` : 'varies all of its keys'}`);
  }
  for (const [i, v] of (meta.reproduce?.values ?? []).entries()) {
    const what = `reproduce.values[${i}]`;
    const reach = parts.filter((p) => valuesFor([v], p).length);
    if (!reach.length) {
      problems.push(`${what}: ${v.part ? `no part named ${v.part}` : `no part varies '${v.key}'`}`);
      continue;
    }
    for (const p of reach) {
      const written = p.campaign.vary[v.key];
      if (!written) {
        problems.push(`${what}: part ${p.name} does not vary '${v.key}'`);
        continue;
      }
      const text = (x: unknown) => JSON.stringify(x);
      for (const k of v.keep)
        if (!written.some((x) => text(x) === text(k)))
          problems.push(
            `${what}: ${text(k)} is not one of part ${p.name}'s values of '${v.key}' (${written.map(text).join(', ')})`,
          );
    }
  }
  for (const { part } of meta.reproduce?.notReproduced ?? [])
    if (!parts.some((p) => p.name === part)) problems.push(`reproduce.notReproduced: no part named ${part}`);
  if (meta.reproduce && parts.every((p) => meta.reproduce?.notReproduced.some((n) => n.part === p.name)))
    problems.push('reproduce.notReproduced: leaves out every part; a reproduction needs one');
  for (const sel of selections(meta)) {
    problems.push(...checkWhere(sel.where, variedParts, sel.what));
    if (sel.measure?.kind === 'equivalence' && !varied.has(sel.measure.countParam))
      problems.push(`${sel.what}: countParam '${sel.measure.countParam}' is not varied`);
    if (sel.measure?.kind === 'asymmetryOf') {
      const m = sel.measure;
      for (const k of m.params) if (!varied.has(k)) problems.push(`${sel.what}: '${k}' is not varied`);
      // The subject and the excluded partners name values of the two parameters, like a where does.
      const excluded = Array.isArray(m.exclude) ? m.exclude : Object.values(m.exclude ?? {}).flat();
      const reach = 'part' in sel.where ? { part: sel.where.part } : {};
      for (const [field, pattern] of [
        ['subject', m.subject] as const,
        ...excluded.map((x) => ['exclude', x] as const),
      ])
        for (const k of m.params)
          if (varied.has(k))
            problems.push(
              ...checkWhere({ ...reach, [k]: pattern }, variedParts, `${sel.what} (measure.${field})`),
            );
    }
  }
  for (const c of meta.claims) {
    const items = claimItems(c);
    for (const it of items) {
      if (typeof it !== 'string') continue;
      const re = globRe(it);
      if (!meta.published.some((p) => re.test(p.id)))
        problems.push(`claim ${c.id}: no published number matches '${it}'`);
    }
    const resolved = resolveItems(items, meta.published);
    if (c.kind === 'ordering') {
      if (c.paperOrder) {
        const names = new Set(resolved.map((r) => ('id' in r ? r.name : r.label)));
        for (const n of c.paperOrder.flat())
          if (!names.has(n)) problems.push(`claim ${c.id}: paperOrder names '${n}', which is not an item`);
        const ranked = new Set(c.paperOrder.flat());
        for (const n of names)
          if (!ranked.has(n)) problems.push(`claim ${c.id}: item '${n}' is not placed in paperOrder`);
      } else if (resolved.some((r) => !('id' in r))) {
        problems.push(`claim ${c.id}: items without a published value need a paperOrder`);
      }
    }
    const hasValue = c.kind === 'close' && c.value !== undefined;
    if ((c.kind === 'signs' || c.kind === 'close') && !hasValue && resolved.some((r) => !('id' in r)))
      problems.push(`claim ${c.id}: needs published items (or a value)`);
    if (c.kind === 'pairs') {
      for (const [a, b] of c.pairs) {
        const pa = typeof a === 'string' ? meta.published.find((p) => p.id === a) : undefined;
        const pb = typeof b === 'string' ? meta.published.find((p) => p.id === b) : undefined;
        if (pa && pb && pa.value * pa.scale < pb.value * pb.scale)
          problems.push(`claim ${c.id}: the paper has ${a} below ${b}, but the pair says above`);
      }
    }
  }
  for (const p of meta.published)
    if (p.measure === null && !p.note)
      problems.push(`published ${p.id}: a number no run measures needs a note saying why`);
  const claimIds = new Set(meta.claims.map((c) => c.id));
  for (const c of meta.scaling.caveats)
    for (const id of c.claims)
      if (!claimIds.has(id)) problems.push(`scaling caveat on ${c.groups.join(', ')}: no claim '${id}'`);
}

/**
 * Where in the meta file a schema problem is, by the ids a reader searches for: `published.3.where`
 * becomes "published rtt.min (where)", `tables.0.rows.2.where` "table t1 row caltech.size3 (where)".
 */
function issuePlace(raw: unknown, path: readonly PropertyKey[]): string {
  const at = (x: unknown, k: PropertyKey) =>
    x && typeof x === 'object' ? (x as Record<PropertyKey, unknown>)[k] : undefined;
  const idOf = (x: unknown, k: string) => (typeof at(x, k) === 'string' ? (at(x, k) as string) : null);
  const rest = (n: number) => (path.length > n ? ` (${path.slice(n).map(String).join('.')})` : '');
  const [a, i, b, j] = path;
  if (a === 'published' && typeof i === 'number') {
    const id = idOf(at(at(raw, a), i), 'id');
    if (id) return `published ${id}${rest(2)}`;
  }
  if (a === 'tables' && typeof i === 'number') {
    const table = at(at(raw, a), i);
    const id = idOf(table, 'id');
    const key =
      (b === 'rows' || b === 'columns') && typeof j === 'number' ? idOf(at(at(table, b), j), 'key') : null;
    if (id && key) return `table ${id} ${b === 'rows' ? 'row' : 'column'} ${key}${rest(4)}`;
    if (id) return `table ${id}${rest(2)}`;
  }
  if (a === 'claims' && typeof i === 'number') {
    const id = idOf(at(at(raw, a), i), 'id');
    if (id) return `claim ${id}${rest(2)}`;
  }
  return path.map(String).join('.') || '(meta)';
}

/** Parse one preset from its texts; `readPart` returns a campaign file's text by file name. */
export function parsePreset(name: string, metaText: string, readPart: (file: string) => string): Preset {
  const problems: string[] = [];
  const raw: unknown = parseYaml(metaText);
  const r = MetaSchema.safeParse(raw);
  if (!r.success)
    throw new PresetError(
      name,
      r.error.issues.map((i) => `${issuePlace(raw, i.path)}: ${i.message}`),
    );
  const file = r.data;
  const partFiles = file.parts ?? { main: `${name}.yaml` };
  const parts: PresetPart[] = [];
  for (const [part, f] of Object.entries(partFiles)) {
    try {
      parts.push({ name: part, file: f, campaign: parseCampaignText(readPart(f)) });
    } catch (err) {
      problems.push(`part ${part} (${f}): ${(err as Error).message}`);
    }
  }
  const { published: _p, tables: _t, ...rest } = file;
  const meta: PresetMeta = { ...rest, name, published: expandTables(file, problems) };
  if (problems.length === 0) check(meta, parts, problems);
  // A nested measure (a ratio's two sides) shares its number's selection: report each problem once.
  if (problems.length) throw new PresetError(name, [...new Set(problems)]);
  return { name, meta, parts };
}

export interface LoadedPresets {
  presets: Preset[];
  /** Campaign files in the folder that no meta file names. */
  orphans: string[];
}

/** Every preset in `dir` (presets/ by default): each *.meta.yaml with the campaign files it names. */
export function loadPresetsWithOrphans(dir: string = PRESETS_DIR): LoadedPresets {
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  const metas = files.filter((f) => f.endsWith('.meta.yaml')).sort();
  const presets = metas.map((m) =>
    parsePreset(m.replace(/\.meta\.yaml$/, ''), readFileSync(join(dir, m), 'utf8'), (f) =>
      readFileSync(join(dir, f), 'utf8'),
    ),
  );
  const used = new Set(presets.flatMap((p) => p.parts.map((x) => x.file)));
  const orphans = files.filter((f) => !f.endsWith('.meta.yaml') && !used.has(f));
  return { presets, orphans };
}

export function loadPresets(dir: string = PRESETS_DIR): Preset[] {
  return loadPresetsWithOrphans(dir).presets;
}
