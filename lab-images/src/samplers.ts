// The lab's native programs (emulator/sampler, emulator/timing, emulator/flowmeter, emulator/traffic and
// emulator/transports; C and, for lfn-udt, C++ against Debian's libudt.a; all static, all linking liblfn from
// emulator/native): built here on the host and carried into the image, so the lab needs no compiler and no
// libraries for them.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir, runOk } from '@lfnlab/kernels';

const dir = (rel: string) => fileURLToPath(new URL(`../../emulator/${rel}/`, import.meta.url));

/** Each source folder and the binaries its Makefile builds. */
export const NATIVE = [
  { src: dir('sampler'), binaries: ['lfn-tcpsampler', 'lfn-qdiscstat'] },
  { src: dir('traffic'), binaries: ['lfn-udpgen', 'lfn-udpsink'] },
  { src: dir('transports'), binaries: ['lfn-rbudp', 'lfn-psockets', 'lfn-udt'] },
  { src: dir('timing'), binaries: ['lfn-pkttiming'] },
  { src: dir('flowmeter'), binaries: ['lfn-flowmeter'] },
] as const;

/** liblfn (lfn_common.c/.h) and lfn.mk, which every Makefile above includes: part of every binary, built by none. */
export const NATIVE_SHARED = dir('native');

/** Every source and build file of the binaries, the shared folder first, in hashing order. */
export function samplerSourceFiles(): string[] {
  return [NATIVE_SHARED, ...NATIVE.map((n) => n.src)].flatMap((src) =>
    readdirSync(src)
      .filter((f) => /\.(c|h|cpp|mk)$/.test(f) || f === 'Makefile')
      .sort()
      .map((f) => join(src, f)),
  );
}

/** Hash of samplerSourceFiles(), so an edit to any of them (liblfn included) rebuilds the binaries and the image. */
export function samplerSourceHash(files = samplerSourceFiles()): string {
  const h = createHash('sha256');
  // Named by folder and file only: the same sources hash the same wherever the repository sits
  // (a fresh clone in /tmp and the working copy build one image id).
  for (const path of files) {
    h.update(`${basename(dirname(path))}/${basename(path)}`)
      .update('\0')
      .update(readFileSync(path))
      .update('\0');
  }
  return h.digest('hex');
}

/** Build once per source hash into the cache; returns the binaries' paths. */
export async function buildSamplers(): Promise<{ sourceHash: string; paths: Record<string, string> }> {
  const sourceHash = samplerSourceHash();
  const out = cacheDir('samplers', sourceHash.slice(0, 16));
  const all = NATIVE.flatMap((n) => n.binaries);
  if (!all.every((b) => existsSync(join(out, b)))) {
    const tmp = `${out}.tmp-${process.pid}`;
    mkdirSync(tmp, { recursive: true });
    for (const { src, binaries } of NATIVE) {
      await runOk(['make', '-C', src, ...binaries]);
      for (const b of binaries) copyFileSync(join(src, b), join(tmp, b));
    }
    mkdirSync(join(out, '..'), { recursive: true });
    renameSync(tmp, out);
  }
  return { sourceHash, paths: Object.fromEntries(all.map((b) => [b, join(out, b)])) };
}
