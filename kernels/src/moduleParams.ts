// The module parameters a congestion-control module declares, read from its C source: what a run
// may set through sysfs (spec.stackParams) for a stack the user added. Only whole-number
// parameters whose sysfs file the owner may write count: the lab writes them for a run and puts
// the declared default back after it, so a parameter without a literal default is left out too.
import { readFileSync } from 'node:fs';
import { stripComments, walk } from './stackSource.js';

export type ModuleParamType = 'int' | 'uint' | 'long' | 'ulong' | 'short' | 'ushort' | 'byte' | 'bool';

export interface ModuleParam {
  name: string;
  type: ModuleParamType;
  /** The initialiser in the source: what the module starts with and what a run puts back. */
  default: number;
  /** MODULE_PARM_DESC, when the source gives one. */
  description: string | null;
}

const TYPES = new Set<string>(['int', 'uint', 'long', 'ulong', 'short', 'ushort', 'byte', 'bool']);

/** Owner-write in a permission expression: an octal literal with 0200 set, or S_IWUSR / S_IRWXU. */
export function ownerWritable(perm: string): boolean {
  if (/\bS_IWUSR\b|\bS_IRWXU\b/.test(perm)) return true;
  const octal = /^\s*0([0-7]{1,4})\s*$/.exec(perm);
  return octal ? (Number.parseInt(octal[1] as string, 8) & 0o200) !== 0 : false;
}

function literal(text: string): number | null {
  const t = text.trim().replace(/[uUlL]+$/, '');
  if (t === 'true') return 1;
  if (t === 'false') return 0;
  if (/^-?(0x[0-9a-fA-F]+|\d+)$/.test(t)) {
    const v = t.startsWith('-') ? -Number(t.slice(1)) : Number(t);
    return Number.isSafeInteger(v) ? v : null;
  }
  return null;
}

/** The writable whole-number module_params of one C file (comments are ignored). */
export function moduleParamsOf(c: string): ModuleParam[] {
  const code = stripComments(c);
  const out: ModuleParam[] = [];
  const re = /\bmodule_param\s*\(\s*(\w+)\s*,\s*(\w+)\s*,\s*([^)]*)\)/g;
  for (let m = re.exec(code); m; m = re.exec(code)) {
    const [, name, type, perm] = m as unknown as [string, string, string, string];
    if (!TYPES.has(type) || !ownerWritable(perm)) continue;
    // `static int name __read_mostly = 16;` (any qualifiers before the name, any attribute after it)
    const init = new RegExp(`\\b${name}\\b(?:\\s+__\\w+)*\\s*=\\s*([^;,]+);`).exec(code);
    const value = init ? literal(init[1] as string) : null;
    if (value === null) continue;
    const desc = new RegExp(
      `\\bMODULE_PARM_DESC\\s*\\(\\s*${name}\\s*,\\s*((?:"(?:[^"\\\\]|\\\\.)*"\\s*)+)\\)`,
    ).exec(code);
    const description = desc
      ? [...(desc[1] as string).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((s) => s[1]).join('')
      : null;
    out.push({ name, type: type as ModuleParamType, default: value, description });
  }
  return out;
}

/** Every C file under `dir`, its parameters in file order (a name declared twice counts once). */
export function moduleParamsIn(dir: string): ModuleParam[] {
  const seen = new Map<string, ModuleParam>();
  for (const f of walk(dir)
    .filter((f) => f.endsWith('.c'))
    .sort())
    for (const p of moduleParamsOf(readFileSync(f, 'utf8'))) if (!seen.has(p.name)) seen.set(p.name, p);
  return [...seen.values()];
}
