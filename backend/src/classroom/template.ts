// A sheet's read-only experiment, and a student's changes to it: the template as a spec document,
// each changeable field's current value, and the values a student gives applied (only to the
// sheet's fields, each within its range) then validated as a whole spec.
import type { Spec } from '@lfnlab/emulator';
import { stringify } from 'yaml';
import { shortenForCi } from '../presets/index.js';
import { presets } from '../service/runInputs.js';
import { type Problem, ServiceError } from '../service/types.js';
import { checkCampaign, checkSpec, parseDocument } from '../service/validation.js';
import type { SheetField, Template } from './sheet.js';

type Doc = Record<string, unknown>;

const isObject = (x: unknown): x is Doc => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The template as a spec document (what the student's run starts from). Problems at `template`. */
export async function templateDocument(t: Template): Promise<Doc> {
  const bad = (message: string, path = 'template') =>
    new ServiceError(400, `template: ${message}`, [{ path, message }]);
  if ('spec' in t) {
    const d = parseDocument(t.spec, 'template.spec');
    if (!d.ok) throw new ServiceError(400, 'template: not a spec', d.problems);
    if (!isObject(d.value)) throw bad('the spec must be a mapping', 'template.spec');
    return d.value;
  }
  const preset = presets().find((p) => p.name === t.preset);
  if (!preset) throw bad(`no preset ${t.preset}`, 'template.preset');
  const part = t.part ? preset.parts.find((p) => p.name === t.part) : preset.parts[0];
  if (!part) throw bad(`preset ${t.preset} has no part ${t.part}`, 'template.part');
  // Variant ids are those of the campaign as run: shortened when the sheet gives a duration.
  const campaign = t.duration ? shortenForCi(part.campaign, t.duration) : part.campaign;
  const c = await checkCampaign(campaign, 'template');
  if (!c.ok) throw new ServiceError(400, 'template: the preset does not expand', c.problems);
  const v = c.value.variants.find((x) => x.id === t.variant);
  if (!v) throw bad(`must be one of ${c.value.variants.map((x) => x.id).join(', ')}`, 'template.variant');
  return structuredClone(v.spec) as Doc;
}

function getAt(doc: unknown, path: string): unknown {
  let cur: unknown = doc;
  for (const k of path.split('.')) {
    if (Array.isArray(cur)) cur = cur[Number(k)];
    else if (isObject(cur)) cur = cur[k];
    else return undefined;
  }
  return cur;
}

function setAt(doc: Doc, path: string, value: unknown): boolean {
  const keys = path.split('.');
  let cur: unknown = doc;
  for (const k of keys.slice(0, -1)) {
    cur = Array.isArray(cur) ? cur[Number(k)] : isObject(cur) ? cur[k] : undefined;
    if (cur === undefined) return false;
  }
  const last = keys[keys.length - 1] as string;
  if (Array.isArray(cur)) cur[Number(last)] = value;
  else if (isObject(cur)) cur[last] = value;
  else return false;
  return true;
}

/** A field's value in the template: a number (its unit stripped) or an option; null when absent. */
export function fieldValue(doc: Doc, f: SheetField): number | string | null {
  const v = getAt(doc, f.path);
  if (v === undefined || v === null) return null;
  if (f.options) return String(v);
  if (typeof v === 'number') return v;
  const m = /^\s*(-?\d+(\.\d+)?([eE][-+]?\d+)?)\s*([A-Za-z]*)\s*$/.exec(String(v));
  return m && (m[4] ?? '') === (f.unit ?? '') ? Number(m[1]) : null;
}

const rangeText = (f: SheetField) => `${f.min} to ${f.max}${f.unit ? ` ${f.unit}` : ''}`;

/** Problems with the values a student gave: each names `values.<field path>` and what is allowed. */
export function valueProblems(fields: SheetField[], values: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  for (const [path, v] of Object.entries(values)) {
    const f = fields.find((x) => x.path === path);
    const at = `values.${path}`;
    if (!f) {
      problems.push({
        path: at,
        message: fields.length
          ? `may not be changed in this sheet (changeable: ${fields.map((x) => x.path).join(', ')})`
          : 'may not be changed in this sheet (nothing is)',
      });
    } else if (f.options) {
      if (typeof v !== 'string' || !f.options.includes(v))
        problems.push({ path: at, message: `must be one of ${f.options.join(', ')}` });
    } else if (
      typeof v !== 'number' ||
      !Number.isFinite(v) ||
      v < (f.min as number) ||
      v > (f.max as number)
    ) {
      problems.push({ path: at, message: `must be a number from ${rangeText(f)}` });
    }
  }
  return problems;
}

/**
 * The spec a student's run uses: the template with their values, validated as a whole (the run's
 * one validation), and its text as the run records it.
 */
export async function studentSpec(
  template: Template,
  fields: SheetField[],
  values: Record<string, unknown>,
): Promise<{ text: string; spec: Spec }> {
  const problems = valueProblems(fields, values);
  if (problems.length)
    throw new ServiceError(400, problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);
  const doc = await templateDocument(template);
  for (const f of fields) {
    const v = values[f.path];
    if (v === undefined) continue;
    const written = f.options || !f.unit || f.unit === 'packets' ? v : `${v}${f.unit}`;
    if (!setAt(doc, f.path, written))
      throw new ServiceError(400, `the template has no field ${f.path}`, [
        { path: `values.${f.path}`, message: 'the template has no such field' },
      ]);
  }
  const checked = checkSpec(doc, 'values');
  if (!checked.ok)
    throw new ServiceError(
      400,
      `with these values the experiment is not valid: ${checked.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      checked.problems.map((p) => ({ path: `spec.${p.path}`, message: p.message })),
    );
  return { text: stringify(doc), spec: checked.value };
}
