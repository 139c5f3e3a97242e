import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { moduleSourceHash } from '@lfnlab/kernels';
import { afterAll, describe, expect, it } from 'vitest';
import { type ImageInputs, imageId, recipeFiles } from './build.js';
import { bootModules } from './modules.js';
import { addedStackCacheDir, STACKS_SRC, stacksSourceHash } from './stacks.js';

const FIXTURE = fileURLToPath(new URL('../../backend/test/fixtures/vendor-stack', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'lfnlab-imageid-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const base: ImageInputs = {
  recipe: 'r',
  kernelSha256: 'k',
  stacksSourceHash: stacksSourceHash(),
  added: [],
  agent: 'a',
  samplers: 's',
  tools: [{ name: 'ip', sha256: '1' }],
  files: [{ path: '/lib/x.so', sha256: '2' }],
};

describe('the image id', () => {
  it("hashes the build's own modules as its recipe, not the host-side ones", () => {
    const files = recipeFiles();
    expect(files).toEqual(
      expect.arrayContaining(['build.ts', 'agent.ts', 'samplers.ts', 'stacks.ts', 'stage.ts']),
    );
    for (const host of ['awake.ts', 'channel.ts', 'qmp.ts', 'lab.ts']) expect(files).not.toContain(host);
  });

  it('is the same for the same inputs, whatever order the added stacks and files come in', () => {
    const two = [
      { name: 'b', sourceHash: 'h2' },
      { name: 'a', sourceHash: 'h1' },
    ];
    expect(imageId({ ...base, added: two })).toBe(imageId({ ...base, added: [...two].reverse() }));
    expect(imageId(base)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes when a stack is added, when its sources change, and when it is removed', () => {
    const dir = join(tmp, 'vendor');
    cpSync(FIXTURE, dir, { recursive: true });
    const before = imageId(base);
    const h1 = moduleSourceHash(dir);
    const withStack = imageId({ ...base, added: [{ name: 'lfnvendor', sourceHash: h1 }] });
    expect(withStack).not.toBe(before);
    const c = join(dir, 'tcp_lfnvendor.c');
    writeFileSync(c, readFileSync(c, 'utf8').replace('/ 100U', '/ 101U'));
    const h2 = moduleSourceHash(dir);
    expect(h2).not.toBe(h1);
    const changed = imageId({ ...base, added: [{ name: 'lfnvendor', sourceHash: h2 }] });
    expect(changed).not.toBe(withStack);
    expect(changed).not.toBe(before);
  });

  it("keeps the lab's own stacks' hash as it was (the same function hashes both)", () => {
    expect(stacksSourceHash()).toBe(moduleSourceHash(STACKS_SRC));
  });

  it('caches an added module under its own name, ABI and source hash', () => {
    const a = addedStackCacheDir({ name: 'lfnvendor', sourceHash: 'ab'.repeat(32) }, '6.1.0-56-amd64');
    expect(a).toMatch(/stacks\/added-lfnvendor-6\.1\.0-56-amd64-abababababababab$/);
    expect(addedStackCacheDir({ name: 'lfnvendor', sourceHash: 'cd'.repeat(32) }, '6.1.0-56-amd64')).not.toBe(
      a,
    );
  });

  it('loads an added module at boot when the image has it', () => {
    const boot = bootModules(['tcp_fast', 'tcp_lfnvendor'], new Set(['tcp_fast', 'tcp_lfnvendor', 'veth']));
    expect(boot.slice(0, 2)).toEqual(['tcp_fast', 'tcp_lfnvendor']);
  });
});
