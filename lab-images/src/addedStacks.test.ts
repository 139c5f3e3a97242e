import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addStack, type KernelSelection, listAddedStacks } from '@lfnlab/kernels';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildAddedStacks } from './stacks.js';

// The vendor-style fixture, added to a throw-away registry and built by kbuild against the lab
// kernel's cached headers, as the image build does.
const FIXTURE = fileURLToPath(new URL('../../backend/test/fixtures/vendor-stack', import.meta.url));
const ABI = '6.1.0-56-amd64';
const KDIR = `/lib/modules/${ABI}/build`;
const MODINFO = existsSync('/usr/sbin/modinfo') ? '/usr/sbin/modinfo' : 'modinfo';
const sel: KernelSelection = {
  abi: ABI,
  package: `linux-image-${ABI}`,
  version: 'test',
  sha256: '0'.repeat(64),
  debPath: '/nonexistent.deb',
  pinned: true,
};

let tmp: string;
const saved = { data: process.env.LFNLAB_DATA, cache: process.env.LFNLAB_CACHE };
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'lfnlab-added-'));
  process.env.LFNLAB_DATA = join(tmp, 'data');
  process.env.LFNLAB_CACHE = join(tmp, 'cache');
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
  for (const [k, v] of [
    ['LFNLAB_DATA', saved.data],
    ['LFNLAB_CACHE', saved.cache],
  ] as const)
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

describe('building added stacks', () => {
  it(`builds the fixture against ${ABI} once, into its own cache entry`, async (ctx) => {
    if (!existsSync(KDIR)) ctx.skip(`no kernel build tree at ${KDIR}`);
    addStack(FIXTURE, { reserved: { names: ['reno'], modules: [] } });
    const logs: string[] = [];
    const [built] = await buildAddedStacks(sel, (l) => logs.push(l));
    expect(built?.record).toMatchObject({
      name: 'lfnvendor',
      module: 'tcp_lfnvendor',
      origin: 'added',
      file: 'extra/tcp_lfnvendor.ko',
      sourceHash: listAddedStacks()[0]?.sourceHash,
    });
    expect(built?.record.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(built?.ko.startsWith(join(tmp, 'cache', 'stacks', 'added-lfnvendor-'))).toBe(true);
    const info = spawnSync(MODINFO, [built?.ko as string], { encoding: 'utf8' }).stdout;
    expect(info).toMatch(new RegExp(`vermagic:\\s+${ABI.replace(/\./g, '\\.')} `));
    expect(info).toMatch(/license:\s+GPL/);
    // Built once: the second call finds it and logs no build.
    const n = logs.length;
    const [again] = await buildAddedStacks(sel, (l) => logs.push(l));
    expect(again?.ko).toBe(built?.ko);
    expect(logs.length).toBe(n);
  }, 120_000);
});
