// The one shape of a spec problem, for every front door (CLI, API, UI designer): the field as a
// dotted path with numeric indices (`flows.1.stack`, `paths.main.rtt`; docs/API.md) and a message
// that names what is allowed. An empty path is the document itself; each front door says what
// that is (the CLI: the file; the API: the request field that held it).
import type { z } from 'zod';

export interface SpecProblem {
  /** `flows.1.stack`, `paths.main.rtt`; '' for the whole document. */
  path: string;
  message: string;
}

/** Keys of a schema issue (or any walk into a document) as a problem path. */
export const problemPath = (keys: readonly PropertyKey[]): string => keys.map(String).join('.');

/** A problem path back to keys: digit-only segments index arrays. */
export const problemKeys = (path: string): (string | number)[] =>
  path === '' ? [] : path.split('.').map((k) => (/^\d+$/.test(k) ? Number(k) : k));

export function problemsOf(error: z.ZodError): SpecProblem[] {
  return error.issues.map((iss) => ({ path: problemPath(iss.path), message: iss.message }));
}

/** The same problems under a prefix (`base.` for a campaign's variants); '' becomes the prefix itself. */
export const underPath = (prefix: string, problems: readonly SpecProblem[]): SpecProblem[] =>
  problems.map((p) => ({ path: p.path ? `${prefix}.${p.path}` : prefix, message: p.message }));

/** One line per problem, as the CLI prints them. */
export const formatProblems = (problems: readonly SpecProblem[], whole: string): string =>
  problems.map((p) => `  ${p.path || whole}: ${p.message}`).join('\n');
