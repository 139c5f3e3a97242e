// react-hook-form resolver backed by the shared spec schema (emulator/src/spec): the form is
// turned into the spec a person would write, validated exactly as the CLI and the service do, and
// each problem is filed under the form field it names so it shows next to that field.
import { fieldPath, type Spec, SpecSchema } from '@lfnlab/emulator/spec';
import type { FieldErrors, Resolver } from 'react-hook-form';
import { formToSpecInput, type SpecForm } from './formModel';

const PATH_FIELDS = new Set(['rtt', 'rate', 'buffer', 'ber', 'jitter', 'aqm']);
const CROSS_FIELDS = new Set([
  'pattern',
  'rate',
  'mean',
  'amplitude',
  'period',
  'hurst',
  'start',
  'duration',
]);
const FLOW_FIELDS = new Set(['name', 'stack', 'path', 'streams', 'start', 'duration', 'direction', 'window']);
const TOP_FIELDS = new Set(['name', 'description', 'duration', 'sampleHz', 'sampleInterval']);

export interface SpecIssue {
  /** The spec's own field path, as the CLI prints it: paths.main.rtt, flows[1].stack. */
  specPath: string;
  /** The form field it belongs to (react-hook-form dot path), or null when the form has no control for it. */
  formField: string | null;
  message: string;
}

/** Where a schema issue path lands in the form. */
export function formFieldOf(path: readonly PropertyKey[], form: SpecForm): string | null {
  const [head, a, b, c, d] = path;
  if (path.length === 1 && typeof head === 'string' && TOP_FIELDS.has(head)) return head;
  if (head === 'paths') {
    if (a === undefined) return 'paths.root';
    const i = form.paths.findIndex((p) => p.name === a);
    if (i < 0) return 'paths.root';
    if (b === undefined) return `paths.${i}.name`;
    if (typeof b === 'string' && PATH_FIELDS.has(b)) return `paths.${i}.${b}`;
    if (b === 'cross' && typeof c === 'number') {
      if (d === undefined) return `paths.${i}.cross.${c}.pattern`;
      if (typeof d === 'string' && CROSS_FIELDS.has(d)) return `paths.${i}.cross.${c}.${d}`;
    }
    return null;
  }
  if (head === 'flows') {
    if (a === undefined) return 'flows.root';
    if (typeof a === 'number' && typeof b === 'string' && FLOW_FIELDS.has(b)) return `flows.${a}.${b}`;
    return null;
  }
  return null;
}

export type SpecCheck = { ok: true; spec: Spec; issues: [] } | { ok: false; spec: null; issues: SpecIssue[] };

/** Validate form values with the shared schema; also catches what the list form allows and a record cannot hold. */
export function checkSpecForm(form: SpecForm): SpecCheck {
  const issues: SpecIssue[] = [];
  const seen = new Map<string, number>();
  form.paths.forEach((p, i) => {
    if (seen.has(p.name)) {
      issues.push({
        specPath: `paths.${p.name}`,
        formField: `paths.${i}.name`,
        message: `duplicate path name '${p.name}'`,
      });
    }
    seen.set(p.name, i);
  });
  const r = SpecSchema.safeParse(formToSpecInput(form));
  if (r.success && issues.length === 0) return { ok: true, spec: r.data, issues: [] };
  if (!r.success) {
    for (const iss of r.error.issues) {
      issues.push({
        specPath: fieldPath(iss.path),
        formField: formFieldOf(iss.path, form),
        message: iss.message,
      });
    }
  }
  return { ok: false, spec: null, issues };
}

/** Put `value` at a dot path in a nested object (numeric segments index arrays). */
function setAt(target: Record<string, unknown>, dotPath: string, value: unknown): void {
  const keys = dotPath.split('.');
  let node: Record<string, unknown> = target;
  keys.forEach((k, n) => {
    if (n === keys.length - 1) {
      if (node[k] === undefined) node[k] = value; // first problem of a field wins
      return;
    }
    const nextIsIndex = /^\d+$/.test(keys[n + 1] as string);
    node[k] ??= nextIsIndex ? [] : {};
    node = node[k] as Record<string, unknown>;
  });
}

export function issuesToErrors(issues: SpecIssue[]): FieldErrors<SpecForm> {
  const errors: Record<string, unknown> = {};
  const unplaced: string[] = [];
  for (const iss of issues) {
    if (iss.formField) setAt(errors, iss.formField, { type: 'schema', message: iss.message });
    else unplaced.push(`${iss.specPath || '(spec)'}: ${iss.message}`);
  }
  if (unplaced.length) errors.root = { type: 'schema', message: unplaced.join('\n') };
  return errors as FieldErrors<SpecForm>;
}

export const specResolver: Resolver<SpecForm> = async (values) => {
  const r = checkSpecForm(values);
  return r.ok ? { values, errors: {} } : { values: {}, errors: issuesToErrors(r.issues) };
};
