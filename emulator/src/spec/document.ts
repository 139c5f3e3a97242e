// The one parse of spec and campaign text: YAML or JSON (JSON is YAML) to a plain document, with
// the limits that keep a small text from expanding into a huge object (alias "billion laughs").
// Validation is separate (validate.ts), so objects built in code skip the text round-trip.
import { parse as parseYaml } from 'yaml';
import type { SpecProblem } from './problems.js';

/** Aliases one document may expand (each alias may copy a whole subtree). */
export const MAX_YAML_ALIASES = 100;

export type Checked<T> = { ok: true; value: T } | { ok: false; problems: SpecProblem[] };

/** YAML or JSON text to a document; a syntax error or too many aliases is one problem at ''. */
export function parseDocument(text: string): Checked<unknown> {
  try {
    return { ok: true, value: parseYaml(text, { prettyErrors: true, maxAliasCount: MAX_YAML_ALIASES }) };
  } catch (err) {
    return { ok: false, problems: [{ path: '', message: `not valid YAML/JSON: ${(err as Error).message}` }] };
  }
}
