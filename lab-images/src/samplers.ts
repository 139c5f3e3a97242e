// The lab's native samplers (emulator/sampler, C, static): built here on the host and carried
// into the image, so the lab needs no compiler and no libraries for them.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir, runOk } from '@lfnlab/kernels';

export const SAMPLER_SRC = fileURLToPath(new URL('../../emulator/sampler/', import.meta.url));
export const SAMPLER_BINARIES = ['lfn-tcpsampler', 'lfn-qdiscstat'] as const;

export function samplerSourceHash(dir = SAMPLER_SRC): string {
  const h = createHash('sha256');
  for (const f of readdirSync(dir)
    .filter((f) => f.endsWith('.c') || f.endsWith('.h') || f === 'Makefile')
    .sort()) {
    h.update(f)
      .update('\0')
      .update(readFileSync(join(dir, f)))
      .update('\0');
  }
  return h.digest('hex');
}

/** Build once per source hash into the cache; returns the binaries' paths. */
export async function buildSamplers(): Promise<{ sourceHash: string; paths: Record<string, string> }> {
  const sourceHash = samplerSourceHash();
  const dir = cacheDir('samplers', sourceHash.slice(0, 16));
  const paths = Object.fromEntries(SAMPLER_BINARIES.map((b) => [b, join(dir, b)]));
  if (!SAMPLER_BINARIES.every((b) => existsSync(join(dir, b)))) {
    await runOk(['make', '-C', SAMPLER_SRC, ...SAMPLER_BINARIES]);
    const tmp = `${dir}.tmp-${process.pid}`;
    mkdirSync(tmp, { recursive: true });
    for (const b of SAMPLER_BINARIES) copyFileSync(join(SAMPLER_SRC, b), join(tmp, b));
    mkdirSync(join(dir, '..'), { recursive: true });
    renameSync(tmp, dir);
  }
  return { sourceHash, paths };
}
