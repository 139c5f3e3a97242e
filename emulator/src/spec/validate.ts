// One way to validate a spec for every front door: a list of problems, each naming its field.
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { type Spec, SpecSchema } from './schema.js';

export interface SpecProblem {
  /** Field path as people write it: `flows[1].stack`, `paths.main.rtt`. */
  field: string;
  message: string;
}

export class SpecError extends Error {
  constructor(
    readonly problems: SpecProblem[],
    readonly source?: string,
  ) {
    super(
      `${source ? `${source}: ` : ''}invalid spec\n${problems.map((p) => `  ${p.field || '(spec)'}: ${p.message}`).join('\n')}`,
    );
    this.name = 'SpecError';
  }
}

export function fieldPath(path: readonly PropertyKey[]): string {
  return path
    .map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? String(k) : `.${String(k)}`))
    .join('');
}

export function problemsOf(error: z.ZodError): SpecProblem[] {
  return error.issues.map((iss) => ({ field: fieldPath(iss.path), message: iss.message }));
}

export type Validation = { ok: true; spec: Spec } | { ok: false; problems: SpecProblem[] };

export function validateSpec(input: unknown): Validation {
  const r = SpecSchema.safeParse(input);
  return r.success ? { ok: true, spec: r.data } : { ok: false, problems: problemsOf(r.error) };
}

/** Parse YAML or JSON text (JSON is YAML) and validate it; throws SpecError naming every problem. */
export function parseSpecText(text: string, source?: string): Spec {
  let doc: unknown;
  try {
    doc = parseYaml(text, { prettyErrors: true });
  } catch (err) {
    throw new SpecError([{ field: '', message: `not valid YAML/JSON: ${(err as Error).message}` }], source);
  }
  const v = validateSpec(doc);
  if (!v.ok) throw new SpecError(v.problems, source);
  return v.spec;
}
