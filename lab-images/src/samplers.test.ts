import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NATIVE, NATIVE_SHARED, samplerSourceFiles } from './samplers.js';

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
});
