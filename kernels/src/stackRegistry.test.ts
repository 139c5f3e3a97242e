import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addStack, listAddedStacks, removeStack, stackRegistryDir } from './stackRegistry.js';
import { congestionOps, moduleSourceHash, objModules, readStackSource } from './stackSource.js';

const FIXTURE = fileURLToPath(new URL('../../backend/test/fixtures/vendor-stack', import.meta.url));
const IN_TREE = fileURLToPath(new URL('../stacks/', import.meta.url));
const reserved = { names: ['reno', 'cubic', 'fast'], modules: ['tcp_fast', 'tcp_bic'] };

let tmp: string;
const saved = process.env.LFNLAB_DATA;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'lfnlab-stacks-'));
  process.env.LFNLAB_DATA = join(tmp, 'data');
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
  if (saved === undefined) delete process.env.LFNLAB_DATA;
  else process.env.LFNLAB_DATA = saved;
});

/** A copy of the vendor fixture to edit. */
function vendorCopy(): string {
  const dir = join(tmp, 'vendor');
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}
const edit = (file: string, from: string | RegExp, to: string) =>
  writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));

describe('reading a module source', () => {
  it('reads the name, module and licence of the vendor fixture', () => {
    const s = readStackSource(FIXTURE);
    expect(s).toMatchObject({
      name: 'lfnvendor',
      module: 'tcp_lfnvendor',
      licence: 'GPL',
      declaredIn: { file: 'tcp_lfnvendor.c', ops: 'tcp_lfnvendor_ops' },
    });
    expect(s.sourceHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("reads the lab's own out-of-tree stacks the same way", () => {
    expect(readStackSource(join(IN_TREE, 'fast'))).toMatchObject({ name: 'fast', module: 'tcp_fast' });
    expect(readStackSource(join(IN_TREE, 'grid'))).toMatchObject({ name: 'grid', module: 'tcp_grid' });
  });

  it('parses obj-m forms and ignores commented-out names', () => {
    expect(objModules('obj-m += tcp_a.o\n# obj-m := tcp_b.o\n')).toEqual(['tcp_a']);
    expect(objModules('obj-$(CONFIG_X) := tcp_c.o \\\n  tcp_d.o\n')).toEqual(['tcp_c', 'tcp_d']);
    expect(() => objModules('obj-m := $(NAME).o')).toThrow(/must name the module's object file directly/);
    expect(
      congestionOps(
        'static struct tcp_congestion_ops x = {\n /* .name = "old", */ .name = "new", .f = { 1 } };',
      ),
    ).toEqual([{ ops: 'x', name: 'new' }]);
  });

  it('refuses a directory without Kbuild or Makefile, naming what is missing', () => {
    const dir = vendorCopy();
    rmSync(join(dir, 'Kbuild'));
    expect(() => readStackSource(dir)).toThrow(/has no Kbuild or Makefile/);
  });

  it('refuses sources without C, without tcp_congestion_ops, without a literal name', () => {
    const dir = vendorCopy();
    const c = join(dir, 'tcp_lfnvendor.c');
    edit(c, '.name\t\t= "lfnvendor"', '.name = VENDOR_NAME');
    expect(() => readStackSource(dir)).toThrow(
      /tcp_lfnvendor_ops has no '\.name = "\.\.\."' as a string literal/,
    );
    edit(c, /struct tcp_congestion_ops/g, 'struct other_ops');
    expect(() => readStackSource(dir)).toThrow(/not a congestion-control module/);
    rmSync(c);
    expect(() => readStackSource(dir)).toThrow(/has no \.c sources/);
  });

  it('refuses a non-GPL licence and a --name the source does not register', () => {
    const dir = vendorCopy();
    expect(() => readStackSource(dir, 'other')).toThrow(/--name other: the source registers "lfnvendor"/);
    edit(join(dir, 'tcp_lfnvendor.c'), 'MODULE_LICENSE("GPL")', 'MODULE_LICENSE("Proprietary")');
    expect(() => readStackSource(dir)).toThrow(/MODULE_LICENSE is "Proprietary"/);
  });

  it('the source hash follows sources, not build output', () => {
    const dir = vendorCopy();
    const h0 = moduleSourceHash(dir);
    writeFileSync(join(dir, 'tcp_lfnvendor.o'), 'object');
    writeFileSync(join(dir, '.tcp_lfnvendor.o.cmd'), 'cmd');
    expect(moduleSourceHash(dir)).toBe(h0);
    edit(join(dir, 'tcp_lfnvendor.c'), '/ 100U', '/ 101U');
    expect(moduleSourceHash(dir)).not.toBe(h0);
  });
});

describe('the stack registry', () => {
  it('adds, lists and removes, in the data dir', () => {
    expect(listAddedStacks()).toEqual([]);
    const r = addStack(FIXTURE, { reserved, now: new Date('2026-01-01T00:00:00Z') });
    expect(r.change).toBe('added');
    expect(r.stack.srcDir.startsWith(stackRegistryDir())).toBe(true);
    expect(stackRegistryDir()).toBe(join(tmp, 'data', 'stacks'));
    expect(listAddedStacks()).toEqual([
      {
        name: 'lfnvendor',
        module: 'tcp_lfnvendor',
        family: 'loss',
        sourceHash: readStackSource(FIXTURE).sourceHash,
        from: FIXTURE,
        addedAt: '2026-01-01T00:00:00.000Z',
        srcDir: join(stackRegistryDir(), 'lfnvendor', 'src'),
        // Read from the copy: what a run may set for it.
        params: [{ name: 'beta_pct', type: 'int', default: 50, description: expect.stringMatching(/^share/) }],
      },
    ]);
    // The copy builds the same: its hash is the original's.
    expect(moduleSourceHash(r.stack.srcDir)).toBe(r.stack.sourceHash);
    expect(removeStack('lfnvendor')).toBe(true);
    expect(removeStack('lfnvendor')).toBe(false);
    expect(listAddedStacks()).toEqual([]);
  });

  it('adding the same sources again is a no-op; changed sources give a new hash', () => {
    const dir = vendorCopy();
    const first = addStack(dir, { reserved });
    expect(addStack(dir, { reserved }).change).toBe('unchanged');
    edit(join(dir, 'tcp_lfnvendor.c'), '/ 100U', '/ 101U');
    const second = addStack(dir, { reserved });
    expect(second.change).toBe('updated');
    expect(second.previousHash).toBe(first.stack.sourceHash);
    expect(second.stack.sourceHash).not.toBe(first.stack.sourceHash);
    expect(listAddedStacks().map((s) => s.sourceHash)).toEqual([second.stack.sourceHash]);
    // The family is kept unless given again.
    expect(addStack(dir, { reserved, family: 'delay' }).stack.family).toBe('delay');
    expect(addStack(dir, { reserved }).change).toBe('unchanged');
    expect(listAddedStacks()[0]?.family).toBe('delay');
  });

  it('does not copy build output', () => {
    const dir = vendorCopy();
    writeFileSync(join(dir, 'tcp_lfnvendor.ko'), 'ko');
    const r = addStack(dir, { reserved });
    expect(() => readFileSync(join(r.stack.srcDir, 'tcp_lfnvendor.ko'))).toThrow();
    expect(readFileSync(join(r.stack.srcDir, 'Kbuild'), 'utf8')).toContain('obj-m');
  });

  it("refuses a name or module of the lab's own, and a module another added stack has", () => {
    const dir = vendorCopy();
    edit(join(dir, 'tcp_lfnvendor.c'), '"lfnvendor"', '"cubic"');
    expect(() => addStack(dir, { reserved })).toThrow(
      /registers "cubic", which is one of the lab's own stacks \(reno, cubic, fast\)/,
    );
    edit(join(dir, 'tcp_lfnvendor.c'), '"cubic"', '"mine"');
    edit(join(dir, 'Kbuild'), 'tcp_lfnvendor.o', 'tcp_fast.o');
    expect(() => addStack(dir, { reserved })).toThrow(/called tcp_fast, like one of the lab's own/);
    addStack(FIXTURE, { reserved });
    edit(join(dir, 'Kbuild'), 'tcp_fast.o', 'tcp_lfnvendor.o');
    expect(() => addStack(dir, { reserved })).toThrow(/lfnvendor is already built as tcp_lfnvendor/);
    expect(listAddedStacks().map((s) => s.name)).toEqual(['lfnvendor']);
  });
});
