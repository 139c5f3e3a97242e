import type { FieldErrors } from 'react-hook-form';
import type { SpecForm } from './formModel';

/** The message filed under a dot path (paths.0.rtt) in react-hook-form's nested errors. */
export function errorAt(errors: FieldErrors<SpecForm>, dotPath: string): string | undefined {
  let node: unknown = errors;
  for (const k of dotPath.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[k];
  }
  const msg = (node as { message?: unknown } | undefined)?.message;
  return typeof msg === 'string' ? msg : undefined;
}
