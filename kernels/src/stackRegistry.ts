// The user's own stacks: each a copy of its module source in the data dir, with what was read from
// it. The image build compiles every entry against the lab kernel's headers; the spec schema
// accepts their names once the CLI or service registers them (registerStacks in the emulator).
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { dataDir } from './data.js';
import { type ModuleParam, moduleParamsIn } from './moduleParams.js';
import { BUILD_OUTPUT, readStackSource, StackSourceError } from './stackSource.js';

export type AddedFamily = 'loss' | 'delay' | 'hybrid' | 'model';

export interface AddedStack {
  name: string;
  module: string;
  family: AddedFamily;
  sourceHash: string;
  /** The directory it was added from (absolute), for `stack list`; the copy is what builds. */
  from: string;
  addedAt: string;
}

export interface AddedStackEntry extends AddedStack {
  /** The copied sources the image builds from. */
  srcDir: string;
  /** The writable whole-number module parameters its sources declare: what a run may set. */
  params: ModuleParam[];
}

/** Names and modules the registry may not take: the lab's own stacks. */
export interface Reserved {
  names: readonly string[];
  modules: readonly string[];
}

export const stackRegistryDir = (): string => dataDir('stacks');

const entryDir = (name: string) => join(stackRegistryDir(), name);

export function listAddedStacks(): AddedStackEntry[] {
  const root = stackRegistryDir();
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && existsSync(join(root, e.name, 'stack.json')))
    .map((e) => {
      const s = JSON.parse(readFileSync(join(root, e.name, 'stack.json'), 'utf8')) as AddedStack;
      const srcDir = join(root, e.name, 'src');
      return { ...s, srcDir, params: moduleParamsIn(srcDir) };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

export interface AddResult {
  stack: AddedStackEntry;
  /** added: new name; updated: new sources for a name already there; unchanged: same sources. */
  change: 'added' | 'updated' | 'unchanged';
  previousHash: string | null;
}

/**
 * Check `dir`, then copy its sources into the registry under the stack's own name. Adding the same
 * sources again changes nothing; changed sources replace the old copy (and so change the image).
 */
export function addStack(
  dir: string,
  opts: { name?: string; family?: AddedFamily; reserved: Reserved; now?: Date },
): AddResult {
  const from = resolve(dir);
  const src = readStackSource(from, opts.name);
  if (opts.reserved.names.includes(src.name))
    throw new StackSourceError(
      `the module registers "${src.name}", which is one of the lab's own stacks (${opts.reserved.names.join(', ')}); rename its .name`,
    );
  if (opts.reserved.modules.includes(src.module))
    throw new StackSourceError(
      `the module is called ${src.module}, like one of the lab's own; rename it in the Kbuild (obj-m)`,
    );
  const others = listAddedStacks().filter((s) => s.name !== src.name);
  const sameModule = others.find((s) => s.module === src.module);
  if (sameModule)
    throw new StackSourceError(
      `the added stack ${sameModule.name} is already built as ${src.module}; two modules of one name cannot both load`,
    );

  const old = listAddedStacks().find((s) => s.name === src.name) ?? null;
  const family = opts.family ?? old?.family ?? 'loss';
  if (old && old.sourceHash === src.sourceHash && old.family === family && old.module === src.module)
    return { stack: old, change: 'unchanged', previousHash: old.sourceHash };

  const record: AddedStack = {
    name: src.name,
    module: src.module,
    family,
    sourceHash: src.sourceHash,
    from,
    addedAt: (opts.now ?? new Date()).toISOString(),
  };
  const final = entryDir(src.name);
  const tmp = `${final}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  cpSync(from, join(tmp, 'src'), {
    recursive: true,
    filter: (p) => p === from || !BUILD_OUTPUT.test(p.slice(from.length + 1)),
  });
  writeFileSync(join(tmp, 'stack.json'), `${JSON.stringify(record, null, 2)}\n`);
  rmSync(final, { recursive: true, force: true });
  renameSync(tmp, final);
  return {
    stack: { ...record, srcDir: join(final, 'src'), params: moduleParamsIn(join(final, 'src')) },
    change: old ? 'updated' : 'added',
    previousHash: old?.sourceHash ?? null,
  };
}

/** Remove an added stack; false when there is none of that name. */
export function removeStack(name: string): boolean {
  const dir = entryDir(name);
  if (!/^[a-z0-9_]{1,15}$/.test(name) || !existsSync(join(dir, 'stack.json'))) return false;
  rmSync(dir, { recursive: true, force: true });
  return true;
}
