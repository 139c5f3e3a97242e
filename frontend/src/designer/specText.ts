// Spec files in and out of the designer: YAML (JSON is YAML too), read by the one spec parser the
// CLI and the service use (same alias limit, same message for a text that is not YAML/JSON).
import { parseDocument } from '@lfnlab/emulator/spec';
import { stringify } from 'yaml';
import { formToSpecInput, type SpecForm, specInputToForm } from './formModel';

export const formToYaml = (form: SpecForm): string => stringify(formToSpecInput(form), { lineWidth: 0 });

export function yamlToForm(text: string): SpecForm {
  const parsed = parseDocument(text);
  if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('; '));
  const doc = parsed.value;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw new Error('not a spec: expected a mapping with name, duration, paths, flows');
  // A campaign file (base × vary) opens its base spec.
  const base = (doc as Record<string, unknown>).base;
  return specInputToForm(base && typeof base === 'object' ? base : doc);
}

/** Where "open in designer" hands a spec over (e.g. from a preset or a past run). */
const DRAFT_KEY = 'lfnlab.designer.draft';
export const stashDraft = (text: string) => sessionStorage.setItem(DRAFT_KEY, text);
export function takeDraft(): string | null {
  const t = sessionStorage.getItem(DRAFT_KEY);
  sessionStorage.removeItem(DRAFT_KEY);
  return t;
}
