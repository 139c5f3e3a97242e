// Out-of-tree stacks (kernels/stacks): built against exactly the lab kernel's headers and carried
// in the image under /lib/modules/ABI/extra, where depmod and the boot's modprobe find them.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir, ensureHeaders, type KernelSelection, runOk } from '@lfnlab/kernels';

export const STACKS_SRC = fileURLToPath(new URL('../../kernels/stacks/', import.meta.url));

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name.startsWith('.')) return [];
    const p = join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
}

export function stacksSourceHash(dir = STACKS_SRC): string {
  const h = createHash('sha256');
  for (const f of walk(dir)
    .filter((f) => /\.(c|h)$|Kbuild$|Makefile$/.test(f))
    .sort()) {
    h.update(f.slice(dir.length)).update('\0').update(readFileSync(f)).update('\0');
  }
  return h.digest('hex');
}

/**
 * The modules for this kernel, built once per (sources, ABI). A header tree of another version is
 * refused by the Makefile, loudly; the headers come from Debian's package for exactly this ABI.
 */
export async function buildStackModules(
  sel: KernelSelection,
  log: (s: string) => void,
): Promise<{ sourceHash: string; modules: string[] }> {
  const sourceHash = stacksSourceHash();
  const dir = cacheDir('stacks', `${sel.abi}-${sourceHash.slice(0, 16)}`);
  const done = () =>
    existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith('.ko'))
          .map((f) => join(dir, f))
      : [];
  if (done().length === 0) {
    const kdir = await ensureHeaders(sel, log);
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
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
    renameSync(tmp, dir);
  }
  const modules = done();
  for (const m of modules) if (statSync(m).size === 0) throw new Error(`${m} is empty`);
  return { sourceHash, modules };
}
