import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NATIVE, NATIVE_SHARED, samplerSourceFiles, samplerSourceHash } from './samplers.js';

describe('native binaries for the image', () => {
  it('hash liblfn and lfn.mk with every program folder, so editing the shared library rebuilds them', () => {
    const files = samplerSourceFiles();
    for (const f of ['lfn_common.c', 'lfn_common.h', 'lfn.mk'])
      expect(files).toContain(join(NATIVE_SHARED, f));
    for (const { src } of NATIVE) expect(files).toContain(join(src, 'Makefile'));
  });

  it('build every program folder through lfn.mk, which compiles liblfn in', () => {
    for (const { src } of NATIVE)
      expect(readFileSync(join(src, 'Makefile'), 'utf8')).toMatch(/^include .*\.\.\/native\/lfn\.mk$/m);
    expect(readFileSync(join(NATIVE_SHARED, 'lfn.mk'), 'utf8')).toMatch(/LFN_SRC := .*lfn_common\.c/);
  });

  it('hash the same sources the same wherever the repository sits, and an edit differently', () => {
    const copyTo = (root: string) =>
      samplerSourceFiles().map((f) => {
        const to = join(root, 'emulator', basename(dirname(f)), basename(f));
        mkdirSync(dirname(to), { recursive: true });
        copyFileSync(f, to);
        return to;
      });
    const here = samplerSourceHash();
    const a = copyTo(mkdtempSync(join(tmpdir(), 'lfnlab-a-')));
    const b = copyTo(join(mkdtempSync(join(tmpdir(), 'lfnlab-a-much-longer-checkout-')), 'x', 'y'));
    expect(samplerSourceHash(a)).toBe(here);
    expect(samplerSourceHash(b)).toBe(here);
    writeFileSync(a[0] as string, `${readFileSync(a[0] as string, 'utf8')}\n`);
    expect(samplerSourceHash(a)).not.toBe(here);
  });
});
