// react-hook-form resolver backed by the shared spec validation (emulator/src/spec): the form is
// turned into the spec a person would write, validated exactly as the CLI and the service do, and
// each problem (the one shape: `{ path, message }`, path as the API gives it) is filed under the
// form field it names so it shows next to that field.
import { problemKeys, type Spec, type SpecProblem, validateSpec } from '@lfnlab/emulator/spec';
import type { FieldErrors, Resolver } from 'react-hook-form';
import { FLOW_KEYS, formToSpecInput, type SpecForm } from './formModel';

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
const FLOW_FIELDS = new Set<string>(FLOW_KEYS);
const TOP_FIELDS = new Set(['name', 'description', 'duration', 'sampleHz', 'sampleInterval', 'clock']);

/** A spec problem and the form field it belongs to (react-hook-form dot path), or null when the form has no control for it. */
export type SpecIssue = SpecProblem & { formField: string | null };

/** The form's path a problem under `paths.` names: path names may hold dots, so the longest that fits. */
function pathIndexOf(rest: string, form: SpecForm): { index: number; tail: string } | null {
  let index = -1;
  for (const [i, p] of form.paths.entries()) {
    const fits = rest === p.name || rest.startsWith(`${p.name}.`);
    if (fits && (index < 0 || p.name.length > (form.paths[index]?.name.length ?? 0))) index = i;
  }
  const name = form.paths[index]?.name;
  return name === undefined ? null : { index, tail: rest.slice(name.length + 1) };
}

/** Where a problem's path lands in the form. */
export function formFieldOf(path: string, form: SpecForm): string | null {
  if (TOP_FIELDS.has(path)) return path;
  if (path === 'paths') return 'paths.root';
  if (path.startsWith('paths.')) {
    const at = pathIndexOf(path.slice('paths.'.length), form);
    if (!at) return 'paths.root';
    const [b, c, d] = problemKeys(at.tail);
    const i = at.index;
    if (b === undefined) return `paths.${i}.name`;
    if (typeof b === 'string' && PATH_FIELDS.has(b)) return `paths.${i}.${b}`;
    if (b === 'cross' && typeof c === 'number') {
      if (d === undefined) return `paths.${i}.cross.${c}.pattern`;
      if (typeof d === 'string' && CROSS_FIELDS.has(d)) return `paths.${i}.cross.${c}.${d}`;
    }
    return null;
  }
  const [head, a, b] = problemKeys(path);
  if (head === 'wire') {
    if (a === 'ports' && (b === 'a' || b === 'b')) return `wire.${b}`;
    return a === undefined || a === 'hosts' ? 'wire.on' : null;
  }
  // Only fields the section shows: a stack or parameter it has a field for (StackParamsSection).
  if (head === 'stackParams') {
    if (typeof a === 'string' && typeof b === 'string' && form.stackParams?.[a]?.[b] !== undefined)
      return `stackParams.${a}.${b}`;
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

/** Validate form values with the shared validation; also catches what the list form allows and a record cannot hold. */
export function checkSpecForm(form: SpecForm): SpecCheck {
  const issues: SpecIssue[] = [];
  const seen = new Map<string, number>();
  form.paths.forEach((p, i) => {
    if (seen.has(p.name)) {
      issues.push({
        path: `paths.${p.name}`,
        formField: `paths.${i}.name`,
        message: `duplicate path name '${p.name}'`,
      });
    }
    seen.set(p.name, i);
  });
  const v = validateSpec(formToSpecInput(form));
  if (v.ok && issues.length === 0) return { ok: true, spec: v.spec, issues: [] };
  if (!v.ok) for (const p of v.problems) issues.push({ ...p, formField: formFieldOf(p.path, form) });
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
    else unplaced.push(`${iss.path || '(spec)'}: ${iss.message}`);
  }
  if (unplaced.length) errors.root = { type: 'schema', message: unplaced.join('\n') };
  return errors as FieldErrors<SpecForm>;
}

export const specResolver: Resolver<SpecForm> = async (values) => {
  const r = checkSpecForm(values);
  return r.ok ? { values, errors: {} } : { values: {}, errors: issuesToErrors(r.issues) };
};
