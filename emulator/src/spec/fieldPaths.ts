// Which paths into a spec name a real field: `paths.main.rate`, `flows[0].stack`,
// `sysctls.sender.net.ipv4.tcp_ecn`. Campaigns set values at such paths, so each is checked against
// the spec's own JSON Schema before anything is set, and no path may walk into an object's
// prototype (`__proto__`, `constructor`, `prototype`).
import { specJsonSchema } from './jsonSchema.js';

type Json = Record<string, unknown>;
export type PathKey = string | number;

export const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

let root: Json | undefined;
const schema = () => {
  root ??= specJsonSchema() as Json;
  return root;
};

/** Every alternative a schema node stands for (anyOf/oneOf/allOf unrolled). */
function alternatives(node: Json): Json[] {
  const alts = [
    ...((node.anyOf as Json[]) ?? []),
    ...((node.oneOf as Json[]) ?? []),
    ...((node.allOf as Json[]) ?? []),
  ];
  return alts.length ? alts.flatMap(alternatives) : [node];
}

function child(node: Json, key: PathKey): Json[] {
  const out: Json[] = [];
  for (const n of alternatives(node)) {
    if (typeof key === 'number') {
      if (n.items && typeof n.items === 'object') out.push(n.items as Json);
      continue;
    }
    const props = n.properties as Record<string, Json> | undefined;
    if (props && Object.hasOwn(props, key)) out.push(props[key] as Json);
    else if (n.additionalProperties && typeof n.additionalProperties === 'object') {
      const names = n.propertyNames as { pattern?: string } | undefined;
      if (!names?.pattern || new RegExp(names.pattern).test(key)) out.push(n.additionalProperties as Json);
    }
  }
  return out;
}

/** The keys of a path like `flows[0].stack`. */
export const pathKeys = (path: string): PathKey[] =>
  [...path.matchAll(/([A-Za-z_][\w-]*)|\[(\d+)\]/g)].map((m) =>
    m[2] !== undefined ? Number(m[2]) : (m[1] as string),
  );

/**
 * Null when `path` names a field a spec can have, else why not. sysctl keys contain dots, so
 * everything after `sysctls.ROLE.` is one key.
 */
export function specFieldProblem(path: string): string | null {
  const keys = pathKeys(path);
  if (keys.length === 0) return 'is not a path into the spec';
  const bad = keys.find((k) => typeof k === 'string' && FORBIDDEN_KEYS.has(k));
  if (bad !== undefined) return `'${bad}' is not a spec field`;
  const sysctl =
    keys[0] === 'sysctls' && keys.length > 3 ? [...keys.slice(0, 2), keys.slice(2).join('.')] : keys;
  let nodes: Json[] = [schema()];
  for (let i = 0; i < sysctl.length; i++) {
    const key = sysctl[i] as PathKey;
    nodes = nodes.flatMap((n) => child(n, key));
    if (nodes.length === 0)
      return `${sysctl
        .slice(0, i + 1)
        .map((k) => (typeof k === 'number' ? `[${k}]` : k))
        .join('.')
        .replace(/\.\[/g, '[')} is not a spec field`;
  }
  return null;
}
