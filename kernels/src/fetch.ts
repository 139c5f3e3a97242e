// Fetch the pinned lab kernel from Debian's packages into the cache, verified by sha256. When the
// pin has left Debian's index and is not cached, take the newest ABI of the same series, loudly.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from './cache.js';
import { sha256File } from './hash.js';
import { type KernelManifest, readManifest } from './manifest.js';
import { run, runOk } from './run.js';
import { type DebFile, readKernelOverride, VendorKernelError, vendorSelection, verifyDeb } from './vendor.js';

export interface KernelSelection {
  abi: string;
  package: string;
  version: string;
  sha256: string;
  debPath: string;
  /** False when the pin could not be had and another ABI was used. */
  pinned: boolean;
  warning?: string;
  /** 'vendor': a local .deb pair set with `lfnlab kernel use` (absent: Debian's packages). */
  source?: 'debian' | 'vendor';
  /** A vendor kernel's headers .deb, which the module builds use instead of Debian's headers. */
  headersDeb?: DebFile;
}

export { sha256File } from './hash.js';

interface AptCandidate {
  package: string;
  version: string;
  sha256: string;
  filename: string;
}

/** Every stanza `apt-cache show` gives for a package (one per version in the index). */
export function parseAptShow(text: string): AptCandidate[] {
  return text
    .split(/\n\s*\n/)
    .map((stanza) => {
      const field = (k: string) => new RegExp(`^${k}: (.+)$`, 'm').exec(stanza)?.[1]?.trim() ?? '';
      return {
        package: field('Package'),
        version: field('Version'),
        sha256: field('SHA256'),
        filename: field('Filename'),
      };
    })
    .filter((c) => c.package && c.version && c.sha256);
}

async function aptShow(pkg: string): Promise<AptCandidate[]> {
  const r = await run(['apt-cache', 'show', pkg]);
  return r.code === 0 ? parseAptShow(r.stdout) : [];
}

const abiNumber = (pkg: string) => Number(/-(\d+)-amd64$/.exec(pkg)?.[1] ?? -1);

async function download(c: AptCandidate, dir: string, log: (s: string) => void): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${c.package}_${c.version}_amd64.deb`);
  if (existsSync(file) && (await sha256File(file)) === c.sha256) return file;
  log(`downloading ${c.package} ${c.version} from Debian's packages`);
  const tmp = join(dir, `.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  await runOk(['apt-get', 'download', '-q', `${c.package}=${c.version}`], { cwd: tmp });
  const [got] = readdirSync(tmp).filter((f) => f.endsWith('.deb'));
  if (!got) throw new Error(`apt-get download ${c.package}=${c.version} produced no .deb`);
  const hash = await sha256File(join(tmp, got));
  if (hash !== c.sha256) {
    throw new Error(`${got}: sha256 ${hash} does not match ${c.sha256}; refusing to use it`);
  }
  renameSync(join(tmp, got), file);
  rmSync(tmp, { recursive: true, force: true });
  return file;
}

export async function fetchKernel(
  opts: { manifest?: KernelManifest; log?: (s: string) => void } = {},
): Promise<KernelSelection> {
  const log = opts.log ?? ((s: string) => console.error(s));
  if (!opts.manifest) {
    // A vendor kernel set with `lfnlab kernel use` replaces the pin until `--pinned` undoes it.
    const v = readKernelOverride();
    if (v) {
      await verifyDeb(v.image, 'image');
      await verifyDeb(v.headers, 'headers');
      log(
        `kernel: the vendor kernel ${v.image.package} ${v.image.version} (${v.image.path}), not the pinned one`,
      );
      return vendorSelection(v);
    }
  }
  const m = opts.manifest ?? readManifest();
  const dir = cacheDir('debs');
  const pinnedFile = join(dir, `${m.image.package}_${m.image.version}_amd64.deb`);
  const pin = { abi: m.abi, package: m.image.package, version: m.image.version, sha256: m.image.sha256 };

  if (existsSync(pinnedFile) && (await sha256File(pinnedFile)) === m.image.sha256) {
    return { ...pin, debPath: pinnedFile, pinned: true };
  }
  const offered = (await aptShow(m.image.package)).find((c) => c.version === m.image.version);
  if (offered) {
    if (offered.sha256 !== m.image.sha256) {
      throw new Error(
        `Debian's index lists ${m.image.package} ${m.image.version} with sha256 ${offered.sha256}, but the manifest pins ${m.image.sha256}; refusing`,
      );
    }
    return { ...pin, debPath: await download(offered, dir, log), pinned: true };
  }

  // The pin is gone: newest ABI of the series that the index still has.
  const search = await runOk([
    'apt-cache',
    'search',
    '--names-only',
    `^linux-image-${m.series.replace('.', '\\.')}\\.0-[0-9]+-amd64$`,
  ]);
  const names = search
    .split('\n')
    .map((l) => l.split(' ')[0] ?? '')
    .filter(Boolean)
    .sort((a, b) => abiNumber(b) - abiNumber(a));
  for (const name of names) {
    const [c] = await aptShow(name);
    if (!c) continue;
    const abi = name.replace(/^linux-image-/, '');
    const warning = `WARNING: the pinned kernel ${m.image.package} ${m.image.version} is no longer in Debian's index and not cached; using ${name} ${c.version} instead. Runs record the kernel they used; update kernels/manifest.json to pin it.`;
    log(`\n${'!'.repeat(78)}\n${warning}\n${'!'.repeat(78)}\n`);
    return {
      abi,
      package: name,
      version: c.version,
      sha256: c.sha256,
      debPath: await download(c, dir, log),
      pinned: false,
      warning,
    };
  }
  throw new Error(
    `no linux-image-${m.series}.0-*-amd64 in Debian's index and ${m.image.package} is not cached: run 'apt-get update' and try again`,
  );
}

export interface KernelTree {
  selection: KernelSelection;
  /** Extracted package root: boot/vmlinuz-ABI, lib/modules/ABI. */
  root: string;
  vmlinuz: string;
  modulesDir: string;
  configPath: string;
}

/** Unpack the .deb once into the cache; later calls return the same tree. */
export async function extractKernel(sel: KernelSelection): Promise<KernelTree> {
  const root = cacheDir('kernels', `${sel.abi}_${sel.version}`);
  const stamp = join(root, '.complete');
  // The stamp holds the .deb's sha256: a vendor .deb rebuilt under the same version is unpacked anew.
  const current = existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === sel.sha256;
  if (!current) {
    const tmp = `${root}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    await runOk(['dpkg-deb', '-x', sel.debPath, tmp]);
    // The package's postinst makes modules.dep; unpacking by hand does not run it.
    await runOk(['depmod', '-b', tmp, sel.abi]);
    rmSync(root, { recursive: true, force: true });
    renameSync(tmp, root);
    writeFileSync(stamp, `${sel.sha256}\n`);
  }
  return {
    selection: sel,
    root,
    vmlinuz: join(root, 'boot', `vmlinuz-${sel.abi}`),
    modulesDir: join(root, 'lib', 'modules', sel.abi),
    configPath: join(root, 'boot', `config-${sel.abi}`),
  };
}

/**
 * Headers for building out-of-tree modules against exactly the lab kernel. They install into
 * /usr/src like any Debian package; the ABI follows the kernel actually selected, so a fallback
 * kernel gets its own headers.
 */
export async function ensureHeaders(
  sel: KernelSelection,
  log: (s: string) => void = (s) => console.error(s),
): Promise<string> {
  if (sel.headersDeb) return vendorHeaders(sel, sel.headersDeb);
  const dir = `/lib/modules/${sel.abi}/build`;
  if (existsSync(dir)) return dir;
  const pkg = `linux-headers-${sel.abi}`;
  log(`installing ${pkg} from Debian's packages`);
  const r = await run(['apt-get', 'install', '-y', '--no-install-recommends', pkg], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (r.code !== 0 || !existsSync(dir)) {
    throw new Error(
      `could not install ${pkg} (needed to build modules for ${sel.abi}): ${r.stderr.trim().split('\n').pop()}`,
    );
  }
  return dir;
}

/**
 * A vendor kernel's headers: its .deb unpacked into the cache (not installed on the host), and the
 * build tree in it. The package must be self-contained, as `make bindeb-pkg` makes it; Debian's
 * own split headers (-common) are not.
 */
export async function vendorHeaders(sel: KernelSelection, deb: DebFile): Promise<string> {
  const root = cacheDir('headers', `${sel.abi}_${deb.sha256.slice(0, 16)}`);
  if (!existsSync(join(root, '.complete'))) {
    await verifyDeb(deb, 'headers');
    const tmp = `${root}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    await runOk(['dpkg-deb', '-x', deb.path, tmp]);
    rmSync(root, { recursive: true, force: true });
    renameSync(tmp, root);
    writeFileSync(join(root, '.complete'), `${deb.sha256}\n`);
  }
  const dir = join(root, 'usr', 'src', `linux-headers-${sel.abi}`);
  if (!existsSync(join(dir, 'Makefile')))
    throw new VendorKernelError(
      `the vendor headers ${deb.path} have no usr/src/linux-headers-${sel.abi}/Makefile`,
    );
  return dir;
}
