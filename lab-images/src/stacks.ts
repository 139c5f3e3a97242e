// Stacks built out of tree: the lab's own (kernels/stacks) and the ones a user added (`lfnlab stack
// add`, kept in the data dir). Both are built against exactly the lab kernel's headers and carried
// in the image under /lib/modules/ABI/extra, where depmod and the boot's modprobe find them.
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type AddedStackEntry,
  cacheDir,
  ensureHeaders,
  type KernelSelection,
  listAddedStacks,
  moduleSourceHash,
  runOk,
  sha256File,
} from '@lfnlab/kernels';

export const STACKS_SRC = fileURLToPath(new URL('../../kernels/stacks/', import.meta.url));

export function stacksSourceHash(dir = STACKS_SRC): string {
  return moduleSourceHash(dir);
}

const kos = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.ko'))
        .map((f) => join(dir, f))
    : [];

/**
 * Build into a temporary directory next to `dir` and move it into place whole, so a failed or
 * interrupted build never leaves a half-filled cache entry that a later run would take as done.
 */
async function buildOnce(dir: string, build: (tmp: string) => Promise<void>): Promise<string[]> {
  if (kos(dir).length === 0) {
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    try {
      await build(tmp);
    } catch (err) {
      rmSync(tmp, { recursive: true, force: true });
      throw err;
    }
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  }
  const modules = kos(dir);
  for (const m of modules) if (statSync(m).size === 0) throw new Error(`${m} is empty`);
  return modules;
}

/** The header tree must be this kernel's: a module built against other headers will not load. */
export function checkHeaders(kdir: string, abi: string): void {
  let found: string | null = null;
  try {
    found =
      /^#define UTS_RELEASE "(.*)"$/m.exec(
        readFileSync(join(kdir, 'include/generated/utsrelease.h'), 'utf8'),
      )?.[1] ?? null;
  } catch {
    found = null;
  }
  if (found !== abi)
    throw new Error(
      `the kernel headers at ${kdir} are for ${found ?? '<unknown: no include/generated/utsrelease.h>'}, not the lab kernel ${abi}`,
    );
}

/**
 * The modules for this kernel, built once per (sources, ABI). A header tree of another version is
 * refused by the Makefile, loudly; the headers come from the package for exactly this ABI.
 */
export async function buildStackModules(
  sel: KernelSelection,
  log: (s: string) => void,
): Promise<{ sourceHash: string; modules: string[] }> {
  const sourceHash = stacksSourceHash();
  const dir = cacheDir('stacks', `${sel.abi}-${sourceHash.slice(0, 16)}`);
  const modules = await buildOnce(dir, async (tmp) => {
    const kdir = await ensureHeaders(sel, log);
    await runOk([
      'make',
      '-C',
      STACKS_SRC,
      'modules',
      `KVER=${sel.abi}`,
      `KDIR=${kdir}`,
      `OUT=${tmp}`,
      `BUILD=${tmp}/build`,
    ]);
    rmSync(join(tmp, 'build'), { recursive: true, force: true });
  });
  return { sourceHash, modules };
}

/** An added stack as the image carries it and every run records it. */
export interface AddedStackRecord {
  name: string;
  module: string;
  family: AddedStackEntry['family'];
  sourceHash: string;
  origin: 'added';
  /** Where it was added from. */
  from: string;
  /** The built module and its sha256 (what the agent reports for the loaded module). */
  file: string;
  sha256: string;
}

/** Where an added stack's module is cached: its own key of name, ABI and source hash. */
export const addedStackCacheDir = (s: Pick<AddedStackEntry, 'name' | 'sourceHash'>, abi: string): string =>
  cacheDir('stacks', `added-${s.name}-${abi}-${s.sourceHash.slice(0, 16)}`);

/** One added stack, built by kbuild (make -C KDIR M=...) on a copy of its registered sources. */
export async function buildAddedStack(
  sel: KernelSelection,
  s: AddedStackEntry,
  log: (s: string) => void,
): Promise<{ record: AddedStackRecord; ko: string }> {
  const dir = addedStackCacheDir(s, sel.abi);
  const modules = await buildOnce(dir, async (tmp) => {
    const kdir = await ensureHeaders(sel, log);
    checkHeaders(kdir, sel.abi);
    const src = join(tmp, 'build');
    cpSync(s.srcDir, src, { recursive: true });
    log(`building added stack ${s.name} (${s.module}) against ${sel.abi}`);
    try {
      await runOk(['make', '-C', kdir, `M=${src}`, 'modules']);
    } catch (err) {
      throw new Error(
        `added stack ${s.name} (from ${s.from}) does not build against ${sel.abi}; fix it and 'lfnlab stack add' it again, or 'lfnlab stack remove ${s.name}': ${(err as Error).message}`,
      );
    }
    const ko = join(src, `${s.module}.ko`);
    if (!existsSync(ko)) throw new Error(`added stack ${s.name}: the build made no ${s.module}.ko`);
    cpSync(ko, join(tmp, `${s.module}.ko`));
    rmSync(src, { recursive: true, force: true });
  });
  const ko = modules.find((m) => m.endsWith(`/${s.module}.ko`));
  if (!ko) throw new Error(`added stack ${s.name}: ${dir} holds no ${s.module}.ko`);
  return {
    ko,
    record: {
      name: s.name,
      module: s.module,
      family: s.family,
      sourceHash: s.sourceHash,
      origin: 'added',
      from: s.from,
      file: `extra/${s.module}.ko`,
      sha256: await sha256File(ko),
    },
  };
}

/** Every stack in the user's registry, built for this kernel. */
export async function buildAddedStacks(
  sel: KernelSelection,
  log: (s: string) => void,
  stacks: AddedStackEntry[] = listAddedStacks(),
): Promise<{ record: AddedStackRecord; ko: string }[]> {
  const out = [];
  for (const s of stacks) out.push(await buildAddedStack(sel, s, log));
  return out;
}
