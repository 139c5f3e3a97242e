// A congestion-control module's source as a vendor hands it over: a kbuild directory (Kbuild or
// Makefile naming one obj-m), C sources registering a tcp_congestion_ops, a GPL-compatible
// licence (the kernel exports the congestion-control API to GPL modules only). Read, not compiled:
// these checks say what is wrong before a kernel build would, in words a vendor can act on.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface StackSource {
  /** What TCP_CONGESTION takes: the `.name` of the module's tcp_congestion_ops. */
  name: string;
  /** The module as modprobe spells it (obj-m without .o). */
  module: string;
  /** The file and struct the name was read from. */
  declaredIn: { file: string; ops: string };
  licence: string;
  sourceHash: string;
}

export class StackSourceError extends Error {}

/** Files that are build output, never source: they stay out of the copy and the hash. */
export const BUILD_OUTPUT = /\.(o|ko|mod|mod\.c|cmd|a|order|symvers|d)$|^\.|\/\./;

const HASHED = /\.(c|h)$|Kbuild$|Makefile$/;

/** Every file under `dir`, dot files and directories left out. */
export function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name.startsWith('.')) return [];
    const p = join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
}

/**
 * sha256 over the sources (C, headers, Kbuild, Makefile), each with its path relative to `dir`:
 * a renamed file, an edited one, or a new header all change it; build output does not.
 */
export function moduleSourceHash(dir: string): string {
  const root = dir.endsWith('/') ? dir : `${dir}/`;
  const h = createHash('sha256');
  for (const f of walk(root)
    .filter((f) => HASHED.test(f))
    .sort()) {
    h.update(f.slice(root.length)).update('\0').update(readFileSync(f)).update('\0');
  }
  return h.digest('hex');
}

/** C without its comments, so a commented-out `.name = "old"` is not read. */
export function stripComments(c: string): string {
  return c.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, '');
}

/** The modules a Kbuild or Makefile builds: the `X.o` of every obj-m line. */
export function objModules(kbuild: string): string[] {
  const out: string[] = [];
  for (const line of kbuild.replace(/\\\n/g, ' ').split('\n')) {
    const m = /^\s*obj-(?:m|\$\([A-Z0-9_]+\))\s*[:+]?=\s*(.*)$/.exec(line.replace(/#.*/, ''));
    if (!m) continue;
    for (const tok of (m[1] ?? '').split(/\s+/).filter(Boolean)) {
      const o = /^([A-Za-z0-9_-]+)\.o$/.exec(tok);
      if (!o?.[1])
        throw new StackSourceError(
          `obj-m names '${tok}': it must name the module's object file directly, e.g. obj-m := tcp_mine.o`,
        );
      out.push(o[1]);
    }
  }
  return out;
}

/** Every `struct tcp_congestion_ops X = { ... }` in a C file, with the `.name` it gives (or null). */
export function congestionOps(c: string): { ops: string; name: string | null }[] {
  const text = stripComments(c);
  const out: { ops: string; name: string | null }[] = [];
  const re = /struct\s+tcp_congestion_ops\s+(\w+)[^=;{(]*=\s*\{/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    let depth = 1;
    let i = re.lastIndex;
    while (i < text.length && depth > 0) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}') depth--;
      i++;
    }
    const body = text.slice(re.lastIndex, i - 1);
    const name = /\.name\s*=\s*"([^"]*)"/.exec(body)?.[1] ?? null;
    out.push({ ops: m[1] as string, name });
  }
  return out;
}

/** Licences the module loader treats as GPL-compatible (include/linux/license.h). */
const GPL_COMPATIBLE = [
  'GPL',
  'GPL v2',
  'GPL and additional rights',
  'Dual BSD/GPL',
  'Dual MIT/GPL',
  'Dual MPL/GPL',
];

/**
 * Check a module directory and read what it declares. `expectName` (the user's --name) must equal
 * the `.name` in the source: the kernel registers that string, whatever the user calls it.
 */
export function readStackSource(dir: string, expectName?: string): StackSource {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new StackSourceError(
      `${dir} is not a directory (give the module's source directory, the one with its Kbuild)`,
    );
  const kbuildFile = ['Kbuild', 'Makefile'].map((f) => join(dir, f)).find((f) => existsSync(f));
  if (!kbuildFile)
    throw new StackSourceError(
      `${dir} has no Kbuild or Makefile: the kernel build needs one naming the module (obj-m := tcp_mine.o)`,
    );
  const modules = objModules(readFileSync(kbuildFile, 'utf8'));
  if (modules.length !== 1)
    throw new StackSourceError(
      modules.length === 0
        ? `${relative(dir, kbuildFile)} has no obj-m line: add one naming the module (obj-m := tcp_mine.o)`
        : `${relative(dir, kbuildFile)} builds ${modules.length} modules (${modules.join(', ')}); a stack is one module`,
    );
  const module = (modules[0] as string).replace(/-/g, '_');
  const sources = walk(dir).filter((f) => f.endsWith('.c'));
  if (sources.length === 0) throw new StackSourceError(`${dir} has no .c sources`);

  const found: { file: string; ops: string; name: string | null }[] = [];
  let registers = false;
  let licence: string | null = null;
  for (const f of sources) {
    const c = readFileSync(f, 'utf8');
    const code = stripComments(c);
    for (const o of congestionOps(c)) found.push({ file: relative(dir, f), ...o });
    if (/\btcp_register_congestion_control\s*\(/.test(code)) registers = true;
    licence ??= /\bMODULE_LICENSE\s*\(\s*"([^"]*)"\s*\)/.exec(code)?.[1] ?? null;
  }
  if (found.length === 0)
    throw new StackSourceError(
      `no 'struct tcp_congestion_ops NAME = { ... }' in ${sources.map((f) => relative(dir, f)).join(', ')}: this is not a congestion-control module`,
    );
  const unnamed = found.find((o) => o.name === null);
  if (unnamed)
    throw new StackSourceError(
      `${unnamed.file}: ${unnamed.ops} has no '.name = "..."' as a string literal; the lab reads the stack's name from it`,
    );
  if (!registers)
    throw new StackSourceError(
      'the sources never call tcp_register_congestion_control(): the stack would never appear in the kernel',
    );
  if (licence === null || !GPL_COMPATIBLE.includes(licence))
    throw new StackSourceError(
      `MODULE_LICENSE is ${licence === null ? 'missing' : `"${licence}"`}: the kernel lets only GPL-compatible modules (${GPL_COMPATIBLE.map((l) => `"${l}"`).join(', ')}) register a congestion control`,
    );
  const names = [...new Set(found.map((o) => o.name as string))];
  let pick = found[0] as (typeof found)[number];
  if (expectName !== undefined) {
    const hit = found.find((o) => o.name === expectName);
    if (!hit)
      throw new StackSourceError(
        `--name ${expectName}: the source registers ${names.map((n) => `"${n}"`).join(', ')}; the kernel knows the stack by that name, so use it`,
      );
    pick = hit;
  } else if (names.length > 1) {
    throw new StackSourceError(
      `the source registers ${names.length} congestion controls (${names.join(', ')}); say which with --name`,
    );
  }
  const name = pick.name as string;
  if (!/^[a-z0-9_]{1,15}$/.test(name))
    throw new StackSourceError(
      `${pick.file}: .name "${name}" must be 1-15 of a-z, 0-9, _ (what TCP_CONGESTION and the spec take)`,
    );
  return {
    name,
    module,
    declaredIn: { file: pick.file, ops: pick.ops },
    licence,
    sourceHash: moduleSourceHash(dir),
  };
}
