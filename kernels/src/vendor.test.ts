// A vendor kernel through the override, on small fake .debs built here with dpkg-deb: no download,
// no kernel. The image .deb has a config and empty module files, enough for the inventory.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureHeaders, extractKernel, fetchKernel } from './fetch.js';
import { assertLabNeeds, kernelInventory, LAB_QDISCS, missingForLab } from './inventory.js';
import {
  clearKernelOverride,
  kernelOverridePath,
  readKernelOverride,
  readVendorKernel,
  writeKernelOverride,
} from './vendor.js';

const ABI = '6.1.99-vendor';
const HAS_DPKG = spawnSync('dpkg-deb', ['--version']).status === 0;
const NEEDS = { stacks: ['reno', 'cubic', 'bic', 'bbr'], qdiscs: LAB_QDISCS };

let tmp: string;
const saved = { data: process.env.LFNLAB_DATA, cache: process.env.LFNLAB_CACHE };
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'lfnlab-vendor-'));
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

/** Build a .deb from files (path → content) with the given control fields. */
let built = 0;
function deb(name: string, pkg: string, files: Record<string, string>, arch = 'amd64'): string {
  built += 1;
  const root = join(tmp, 'pkg', `${name}-${built}`);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  mkdirSync(join(root, 'DEBIAN'), { recursive: true });
  writeFileSync(
    join(root, 'DEBIAN', 'control'),
    `Package: ${pkg}\nVersion: 1.0-vendor\nArchitecture: ${arch}\nMaintainer: test <t@example.invalid>\nDescription: fake\n`,
  );
  const out = join(tmp, `${name}-${built}.deb`);
  const r = spawnSync('dpkg-deb', ['--root-owner-group', '-Zgzip', '--build', root, out], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return out;
}

const CONFIG = [
  'CONFIG_HZ=1000',
  'CONFIG_TCP_CONG_ADVANCED=y',
  'CONFIG_TCP_CONG_CUBIC=y',
  ...LAB_QDISCS.filter((q) => q !== 'cake').map((q) => `CONFIG_NET_SCH_${q.toUpperCase()}=y`),
].join('\n');

function imageDeb(opts: { withBbr?: boolean; withCake?: boolean } = {}): string {
  const mods = `lib/modules/${ABI}/kernel/net`;
  return deb('image', `linux-image-${ABI}`, {
    [`boot/vmlinuz-${ABI}`]: 'not a kernel',
    [`boot/config-${ABI}`]: `${CONFIG}\n`,
    [`${mods}/ipv4/tcp_bic.ko`]: '',
    ...(opts.withBbr === false ? {} : { [`${mods}/ipv4/tcp_bbr.ko`]: '' }),
    ...(opts.withCake === false ? {} : { [`${mods}/sched/sch_cake.ko`]: '' }),
  });
}

function headersDeb(abi = ABI): string {
  return deb('headers', `linux-headers-${abi}`, {
    [`usr/src/linux-headers-${abi}/Makefile`]: '# kbuild\n',
    [`usr/src/linux-headers-${abi}/include/generated/utsrelease.h`]: `#define UTS_RELEASE "${abi}"\n`,
  });
}

describe.skipIf(!HAS_DPKG)('a vendor kernel override', () => {
  it('reads the pair, records both sha256, and fetchKernel then takes it instead of the pin', async () => {
    const v = await readVendorKernel(imageDeb(), headersDeb(), new Date('2026-01-01T00:00:00Z'));
    expect(v).toMatchObject({
      source: 'vendor',
      abi: ABI,
      image: { package: `linux-image-${ABI}`, version: '1.0-vendor', architecture: 'amd64' },
      headers: { package: `linux-headers-${ABI}` },
    });
    expect(v.image.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(v.headers.sha256).toMatch(/^[0-9a-f]{64}$/);
    const path = writeKernelOverride(v);
    expect(path).toBe(join(tmp, 'data', 'kernel-override.json'));
    expect(readKernelOverride()).toEqual(v);

    const logs: string[] = [];
    const sel = await fetchKernel({ log: (l) => logs.push(l) });
    expect(sel).toMatchObject({ abi: ABI, source: 'vendor', sha256: v.image.sha256, debPath: v.image.path });
    expect(logs.join('\n')).toMatch(/the vendor kernel linux-image-6\.1\.99-vendor/);
    // Its tree and inventory, as the image build reads them: everything the lab needs is there.
    const tree = await extractKernel(sel);
    const inv = kernelInventory(ABI, tree.modulesDir, tree.configPath);
    expect(inv.hz).toBe(1000);
    expect(inv.stacks.map((s) => s.name)).toEqual(['bbr', 'bic', 'cubic', 'reno']);
    expect(missingForLab(inv, NEEDS)).toEqual({ stacks: [], qdiscs: [] });
    // The headers come from the vendor's .deb, unpacked into the cache, not from Debian.
    const headers = await ensureHeaders(sel, () => undefined);
    expect(headers).toBe(
      join(
        tmp,
        'cache',
        'headers',
        `${ABI}_${v.headers.sha256.slice(0, 16)}`,
        'usr/src',
        `linux-headers-${ABI}`,
      ),
    );
    expect(readFileSync(join(headers, 'include/generated/utsrelease.h'), 'utf8')).toContain(ABI);

    expect(clearKernelOverride()).toBe(true);
    expect(clearKernelOverride()).toBe(false);
    expect(readKernelOverride()).toBeNull();
    expect(existsSync(kernelOverridePath())).toBe(false);
  });

  it('names every stack and qdisc the lab needs that the vendor kernel lacks', async () => {
    writeKernelOverride(await readVendorKernel(imageDeb({ withBbr: false, withCake: false }), headersDeb()));
    const sel = await fetchKernel({ log: () => undefined });
    const tree = await extractKernel(sel);
    const inv = kernelInventory(ABI, tree.modulesDir, tree.configPath);
    expect(missingForLab(inv, NEEDS)).toEqual({ stacks: ['bbr'], qdiscs: ['cake'] });
    expect(() => assertLabNeeds(inv, NEEDS, `${sel.package} ${sel.version}`)).toThrow(
      /kernel linux-image-6\.1\.99-vendor 1\.0-vendor \(6\.1\.99-vendor\) lacks what the lab needs: congestion controls bbr \(CONFIG_TCP_CONG_\*\); qdiscs cake \(CONFIG_NET_SCH_\*\)/,
    );
  });

  it('refuses a .deb changed since it was recorded, mismatched headers, and a non-kernel package', async () => {
    const image = imageDeb();
    writeKernelOverride(await readVendorKernel(image, headersDeb()));
    writeFileSync(image, 'tampered');
    await expect(fetchKernel({ log: () => undefined })).rejects.toThrow(
      /image .*image-\d+\.deb changed since 'lfnlab kernel use' \(sha256 [0-9a-f]{64}, recorded [0-9a-f]{64}\)/,
    );
    await expect(readVendorKernel(imageDeb(), headersDeb('6.1.98-other'))).rejects.toThrow(
      /--headers-deb .* has no build tree for 6\.1\.99-vendor/,
    );
    const notKernel = deb('tool', 'some-tool', { 'usr/bin/tool': '' });
    await expect(readVendorKernel(notKernel, headersDeb())).rejects.toThrow(/holds no boot\/vmlinuz-\*/);
    const arm = deb('arm', `linux-image-${ABI}`, { [`boot/vmlinuz-${ABI}`]: '' }, 'arm64');
    await expect(readVendorKernel(arm, headersDeb())).rejects.toThrow(
      /is for arm64; the lab runs amd64 kernels/,
    );
    await expect(readVendorKernel(join(tmp, 'missing.deb'), headersDeb())).rejects.toThrow(
      /missing\.deb: no such file/,
    );
  });
});
