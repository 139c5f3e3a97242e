// One way to validate a spec for every front door: a list of problems (problems.ts), each naming
// its field and what it allows.
import { type Checked, parseDocument } from './document.js';
import { formatProblems, problemsOf, type SpecProblem } from './problems.js';
import { type Spec, SpecSchema } from './schema.js';

export class SpecError extends Error {
  constructor(
    readonly problems: SpecProblem[],
    readonly source?: string,
  ) {
    super(`${source ? `${source}: ` : ''}invalid spec\n${formatProblems(problems, '(spec)')}`);
    this.name = 'SpecError';
  }
}

export type Validation = { ok: true; spec: Spec } | { ok: false; problems: SpecProblem[] };

export function validateSpec(input: unknown): Validation {
  const r = SpecSchema.safeParse(input);
  return r.success ? { ok: true, spec: r.data } : { ok: false, problems: problemsOf(r.error) };
}

/** Spec text to a normalised spec, or every problem (a parse problem is at ''). */
export function checkSpecText(text: string): Checked<Spec> {
  const doc = parseDocument(text);
  if (!doc.ok) return doc;
  const v = validateSpec(doc.value);
  return v.ok ? { ok: true, value: v.spec } : v;
}

/** Parse YAML or JSON text and validate it; throws SpecError naming every problem. */
export function parseSpecText(text: string, source?: string): Spec {
  const r = checkSpecText(text);
  if (!r.ok) throw new SpecError(r.problems, source);
  return r.value;
}
