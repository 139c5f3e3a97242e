// lfnlab kernel use through the CLI, on fake .debs made here with dpkg-deb and a throw-away data
// dir and cache: a kernel the lab can use is recorded, one that lacks a qdisc is refused by name
// and not recorded, and --pinned goes back.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { MAINLINE_STACKS } from '@lfnlab/emulator';
import { LAB_QDISCS } from '@lfnlab/kernels';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { captureConsole } from '../../test/support/consoleCapture.js';
import { main } from './main.js';

const ABI = '6.1.99-vendor';
const HAS_DPKG = spawnSync('dpkg-deb', ['--version']).status === 0;

let tmp: string;
let out: string[];
let err: string[];
const saved = { data: process.env.LFNLAB_DATA, cache: process.env.LFNLAB_CACHE };
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'lfnlab-kernelcmd-'));
  process.env.LFNLAB_DATA = join(tmp, 'data');
  process.env.LFNLAB_CACHE = join(tmp, 'cache');
  ({ out, err } = captureConsole());
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(tmp, { recursive: true, force: true });
  for (const [k, v] of [
    ['LFNLAB_DATA', saved.data],
    ['LFNLAB_CACHE', saved.cache],
  ] as const)
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

function deb(name: string, pkg: string, files: Record<string, string>): string {
  const root = join(tmp, 'pkg', name);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  mkdirSync(join(root, 'DEBIAN'), { recursive: true });
  writeFileSync(
    join(root, 'DEBIAN', 'control'),
    `Package: ${pkg}\nVersion: 2.0\nArchitecture: amd64\nMaintainer: t <t@example.invalid>\nDescription: fake\n`,
  );
  const file = join(tmp, `${name}.deb`);
  const r = spawnSync('dpkg-deb', ['--root-owner-group', '-Zgzip', '--build', root, file], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return file;
}

/** A vendor kernel with every stack and qdisc the lab needs built in, less `without`. */
function vendorPair(name: string, without: string[] = []): [string, string] {
  const config = [
    'CONFIG_HZ=250',
    ...MAINLINE_STACKS.filter((s) => s !== 'reno' && !without.includes(s)).map(
      (s) => `CONFIG_TCP_CONG_${s.toUpperCase()}=y`,
    ),
    ...LAB_QDISCS.filter((q) => !without.includes(q)).map((q) => `CONFIG_NET_SCH_${q.toUpperCase()}=y`),
  ].join('\n');
  return [
    deb(`${name}-image`, `linux-image-${ABI}`, {
      [`boot/vmlinuz-${ABI}`]: 'x',
      [`boot/config-${ABI}`]: `${config}\n`,
      [`lib/modules/${ABI}/modules.order`]: '',
    }),
    deb(`${name}-headers`, `linux-headers-${ABI}`, { [`usr/src/linux-headers-${ABI}/Makefile`]: '\n' }),
  ];
}

describe.skipIf(!HAS_DPKG)('lfnlab kernel use', () => {
  it('records a usable vendor kernel with both sha256, and --pinned removes it', async () => {
    const [image, headers] = vendorPair('ok');
    expect(await main(['kernel', 'use', '--image-deb', image, '--headers-deb', headers])).toBe(0);
    const text = out.join('\n');
    expect(text).toMatch(
      /^linux-image-6\.1\.99-vendor 2\.0 \(vendor, ABI 6\.1\.99-vendor\) sha256 [0-9a-f]{64}$/m,
    );
    expect(text).toMatch(/ {2}stacks: .*bbr/);
    expect(text).not.toMatch(/MISSING/);
    const override = JSON.parse(readFileSync(join(tmp, 'data', 'kernel-override.json'), 'utf8'));
    expect(override).toMatchObject({
      source: 'vendor',
      abi: ABI,
      image: { path: image },
      headers: { path: headers },
    });
    expect(override.headers.sha256).toMatch(/^[0-9a-f]{64}$/);
    out.length = 0;
    expect(await main(['kernel', 'use', '--pinned'])).toBe(0);
    expect(out[0]).toMatch(/^back to the pinned kernel \(no longer linux-image-6\.1\.99-vendor 2\.0\)/);
    expect(existsSync(join(tmp, 'data', 'kernel-override.json'))).toBe(false);
  });

  it('refuses a kernel lacking what the lab needs, naming it, and records nothing', async () => {
    const [image, headers] = vendorPair('lacking', ['cake', 'vegas']);
    expect(await main(['kernel', 'use', '--image-deb', image, '--headers-deb', headers])).toBe(1);
    expect(out.join('\n')).toMatch(/MISSING stacks the lab needs: vegas/);
    expect(out.join('\n')).toMatch(/MISSING qdiscs the lab needs: cake/);
    expect(err.join('\n')).toMatch(/lacks what the lab needs/);
    expect(existsSync(join(tmp, 'data', 'kernel-override.json'))).toBe(false);
  });

  it('needs both .debs', async () => {
    expect(await main(['kernel', 'use', '--image-deb', 'a.deb'])).toBe(64);
    expect(err.join('\n')).toMatch(/kernel use needs --image-deb IMAGE\.deb and --headers-deb HEADERS\.deb/);
  });
});
