// A vendor kernel in place of the pinned Debian one: a local linux-image .deb and its headers .deb,
// recorded (paths and sha256) in an override file in the data dir. The repository's pin
// (kernels/manifest.json) is never edited; `lfnlab kernel use --pinned` removes the override.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { dataDir } from './data.js';
import type { KernelSelection } from './fetch.js';
import { sha256File } from './hash.js';
import { runOk } from './run.js';

export interface DebFile {
  package: string;
  version: string;
  architecture: string;
  path: string;
  sha256: string;
}

export interface VendorKernel {
  source: 'vendor';
  abi: string;
  image: DebFile;
  headers: DebFile;
  setAt: string;
}

export const kernelOverridePath = (): string => dataDir('kernel-override.json');

export class VendorKernelError extends Error {}

/** A .deb's control fields and file list, read with dpkg-deb (nothing is installed). */
export async function inspectDeb(path: string): Promise<{ fields: Record<string, string>; files: string[] }> {
  if (!existsSync(path)) throw new VendorKernelError(`${path}: no such file`);
  let control: string;
  let listing: string;
  try {
    control = await runOk(['dpkg-deb', '-f', path, 'Package', 'Version', 'Architecture']);
    listing = await runOk(['dpkg-deb', '-c', path]);
  } catch (err) {
    throw new VendorKernelError(`${path} is not a readable .deb: ${(err as Error).message}`);
  }
  const fields: Record<string, string> = {};
  for (const line of control.split('\n')) {
    const m = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
    if (m?.[1]) fields[m[1]] = (m[2] ?? '').trim();
  }
  // `dpkg-deb -c` prints `ls -l`-like lines ending in ./path (and " -> target" for links).
  const files = listing
    .split('\n')
    .map((l) => /\s\.\/(\S*)(?: -> .*)?$/.exec(l)?.[1] ?? '')
    .filter(Boolean);
  return { fields, files };
}

async function debFile(path: string, fields: Record<string, string>): Promise<DebFile> {
  return {
    package: fields.Package ?? '',
    version: fields.Version ?? '',
    architecture: fields.Architecture ?? '',
    path,
    sha256: await sha256File(path),
  };
}

/**
 * Read a vendor image/headers pair and check they belong together: the image holds
 * boot/vmlinuz-ABI, its config and lib/modules/ABI; the headers hold a build tree for that ABI.
 */
export async function readVendorKernel(
  imagePath: string,
  headersPath: string,
  now = new Date(),
): Promise<VendorKernel> {
  const imgPath = resolve(imagePath);
  const hdrPath = resolve(headersPath);
  const img = await inspectDeb(imgPath);
  const hdr = await inspectDeb(hdrPath);
  for (const [what, d, p] of [
    ['--image-deb', img, imgPath],
    ['--headers-deb', hdr, hdrPath],
  ] as const) {
    if (d.fields.Architecture !== 'amd64')
      throw new VendorKernelError(
        `${what} ${p} is for ${d.fields.Architecture || 'no architecture'}; the lab runs amd64 kernels`,
      );
  }
  const kernels = img.files
    .map((f) => /^boot\/vmlinuz-(.+)$/.exec(f)?.[1])
    .filter((x): x is string => Boolean(x));
  if (kernels.length !== 1)
    throw new VendorKernelError(
      `--image-deb ${imgPath} holds ${kernels.length ? `${kernels.length} kernels (${kernels.join(', ')})` : 'no boot/vmlinuz-*'}: it must be one linux-image package`,
    );
  const abi = kernels[0] as string;
  for (const need of [`boot/config-${abi}`, `lib/modules/${abi}/`])
    if (!img.files.some((f) => f === need || f.startsWith(need)))
      throw new VendorKernelError(
        `--image-deb ${imgPath} has no ${need} (the lab reads the kernel's config and modules from it)`,
      );
  const hasBuildTree = hdr.files.some(
    (f) => f === `usr/src/linux-headers-${abi}/Makefile` || f === `lib/modules/${abi}/build`,
  );
  if (!hasBuildTree)
    throw new VendorKernelError(
      `--headers-deb ${hdrPath} has no build tree for ${abi} (usr/src/linux-headers-${abi}/Makefile): it must be the headers of the same kernel`,
    );
  return {
    source: 'vendor',
    abi,
    image: await debFile(imgPath, img.fields),
    headers: await debFile(hdrPath, hdr.fields),
    setAt: now.toISOString(),
  };
}

export function writeKernelOverride(v: VendorKernel): string {
  const path = kernelOverridePath();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(v, null, 2)}\n`);
  return path;
}

export function readKernelOverride(): VendorKernel | null {
  const path = kernelOverridePath();
  if (!existsSync(path)) return null;
  const v = JSON.parse(readFileSync(path, 'utf8')) as VendorKernel;
  if (v.source !== 'vendor' || !v.abi || !v.image?.path || !v.headers?.path)
    throw new VendorKernelError(
      `${path} is not a kernel override; remove it or run 'lfnlab kernel use' again`,
    );
  return v;
}

/** Back to the pinned kernel; false when there was no override. */
export function clearKernelOverride(): boolean {
  const path = kernelOverridePath();
  if (!existsSync(path)) return false;
  rmSync(path);
  return true;
}

/** The .deb as recorded, or an error saying it moved or changed since `lfnlab kernel use`. */
export async function verifyDeb(d: DebFile, what: string): Promise<void> {
  if (!existsSync(d.path))
    throw new VendorKernelError(
      `the vendor kernel's ${what} ${d.path} is gone; run 'lfnlab kernel use' again or 'lfnlab kernel use --pinned'`,
    );
  const now = await sha256File(d.path);
  if (now !== d.sha256)
    throw new VendorKernelError(
      `the vendor kernel's ${what} ${d.path} changed since 'lfnlab kernel use' (sha256 ${now}, recorded ${d.sha256}); run 'lfnlab kernel use' again to take the new one`,
    );
}

/** The kernel selection a vendor override stands for: what the image build and module builds use. */
export function vendorSelection(v: VendorKernel): KernelSelection {
  return {
    abi: v.abi,
    package: v.image.package,
    version: v.image.version,
    sha256: v.image.sha256,
    debPath: v.image.path,
    pinned: true,
    source: 'vendor',
    headersDeb: v.headers,
  };
}
