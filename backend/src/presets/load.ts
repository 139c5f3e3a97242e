// Loading the paper presets: presets/<name>.meta.yaml plus the campaign file(s) it names. Tables
// are expanded into one published number each; every reference a claim or a `where` makes is
// checked here, so a typo fails at load time rather than as an empty comparison.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { type Campaign, parseCampaignText } from '../campaign/expand.js';
import {
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

export class PresetError extends Error {
  constructor(
    readonly preset: string,
    readonly problems: string[],
  ) {
    super(`preset ${preset}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'PresetError';
  }
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

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

/** Measures nested in a measure (ratio, cellRatio), with their own `where` when they have one. */
function* measuresIn(m: Measure, where: Where): Generator<{ m: Measure; where: Where }> {
  yield { m, where };
  if (m.kind === 'ratio') {
    yield* measuresIn(m.of, where);
    yield* measuresIn(m.to, where);
  } else if (m.kind === 'cellRatio') {
    yield* measuresIn(m.of.measure, { ...where, ...m.of.where });
    yield* measuresIn(m.to.measure, { ...where, ...m.to.where });
  }
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
  const partNames = new Set(parts.map((p) => p.name));
  const checkWhere = (where: Where, what: string) => {
    for (const [k, v] of Object.entries(where)) {
      if (k === 'part') {
        const names = isObject(v) && Array.isArray(v.$any) ? v.$any : [v];
        for (const n of names)
          if (typeof n !== 'string' || !partNames.has(n))
            problems.push(`${what}: part ${JSON.stringify(n)} is not one of ${[...partNames].join(', ')}`);
      } else if (!varied.has(k)) {
        problems.push(`${what}: '${k}' is not a varied parameter of any part`);
      }
    }
  };
  const checkMeasure = (m: Measure, where: Where, what: string) => {
    for (const x of measuresIn(m, where)) {
      checkWhere(x.where, what);
      if (x.m.kind === 'equivalence' && !varied.has(x.m.countParam))
        problems.push(`${what}: countParam '${x.m.countParam}' is not varied`);
      if (x.m.kind === 'asymmetryOf')
        for (const k of x.m.params) if (!varied.has(k)) problems.push(`${what}: '${k}' is not varied`);
    }
  };
  for (const p of meta.published) {
    checkWhere(p.where, `published ${p.id}`);
    if (p.measure) checkMeasure(p.measure, p.where, `published ${p.id}`);
  }
  for (const c of meta.claims) {
    const items =
      c.kind === 'ordering' || c.kind === 'share' || c.kind === 'signs'
        ? c.items
        : c.kind === 'pairs'
          ? c.pairs.flat()
          : c.kind === 'similar'
            ? c.items
            : [c.item];
    for (const it of items) {
      if (typeof it === 'string') {
        const re = globRe(it);
        if (!meta.published.some((p) => re.test(p.id)))
          problems.push(`claim ${c.id}: no published number matches '${it}'`);
      } else {
        checkWhere(it.where, `claim ${c.id} item ${it.label}`);
        checkMeasure(it.measure, it.where, `claim ${c.id} item ${it.label}`);
      }
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
}

/** Parse one preset from its texts; `readPart` returns a campaign file's text by file name. */
export function parsePreset(name: string, metaText: string, readPart: (file: string) => string): Preset {
  const problems: string[] = [];
  const r = MetaSchema.safeParse(parseYaml(metaText));
  if (!r.success)
    throw new PresetError(
      name,
      r.error.issues.map((i) => `${i.path.join('.') || '(meta)'}: ${i.message}`),
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
  if (problems.length) throw new PresetError(name, problems);
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
