// The lab image: the pinned kernel plus an initramfs holding the agent (as /init), Debian's
// iproute2, ethtool, iperf3, ping and kmod with their libraries, busybox, and the kernel modules
// the lab uses. Keyed by a hash of every input, so a rebuild with nothing changed is a lookup.

import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAINLINE_STACKS, STACKS } from '@lfnlab/emulator';
import {
  assertLabNeeds,
  cacheDir,
  extractKernel,
  fetchKernel,
  type KernelInventory,
  type KernelSelection,
  kernelInventory,
  LAB_QDISCS,
  run,
  runOk,
  sha256File,
} from '@lfnlab/kernels';
import { buildAgent } from './agent.js';
import { sharedLibs } from './ldd.js';
import { bootModules, moduleName, readModuleClosure } from './modules.js';
import { buildSamplers } from './samplers.js';
import { type AddedStackRecord, buildAddedStacks, buildStackModules } from './stacks.js';
import {
  copyIn,
  copyTree,
  installBusybox,
  link,
  listTree,
  makeSkeleton,
  normaliseTimes,
  writeCpio,
  writeFile,
} from './stage.js';

/** Debian tools the lab runs, by the name the plan uses. `ip` must keep its name (it dispatches on it). */
export const TOOLS = ['ip', 'tc', 'ss', 'ethtool', 'iperf3', 'ping', 'kmod', 'chrt', 'tcpdump'] as const;
const KMOD_LINKS = ['modprobe', 'lsmod', 'insmod', 'rmmod', 'modinfo', 'depmod'];
const TC_LIB = '/usr/lib/x86_64-linux-gnu/tc';
const HOST_ETC = ['/etc/protocols', '/etc/services'];
// The sources, whether this runs from src/ (tests) or dist/ (the CLI): one recipe, one image id.
const RECIPE_DIR = fileURLToPath(new URL('../src/', import.meta.url));

export interface ToolRecord {
  name: string;
  path: string;
  sha256: string;
  package: string | null;
  version: string | null;
}

export interface ImageManifest {
  id: string;
  builtAt: string;
  kernel: KernelSelection & {
    hz: number | null;
    stacks: KernelInventory['stacks'];
    qdiscs: KernelInventory['qdiscs'];
  };
  agent: { sourceHash: string; goVersion: string };
  samplers: { sourceHash: string };
  /** Out-of-tree stacks: the lab's own (kernels/stacks) and those the user added. */
  stacks: { sourceHash: string; modules: string[]; added?: AddedStackRecord[] };
  tools: ToolRecord[];
  modules: { count: number; boot: string[] };
  initrdBytes: number;
  vmlinuzBytes: number;
  buildMs: number;
}

export interface LabImage {
  id: string;
  dir: string;
  vmlinuz: string;
  initrd: string;
  manifest: ImageManifest;
}

function which(name: string): string {
  for (const d of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/sbin'])) {
    const p = join(d, name);
    if (d && existsSync(p)) return p;
  }
  throw new Error(
    `${name} is not installed on this host (the image copies Debian's own); run the set-up script`,
  );
}

async function debianPackage(path: string): Promise<{ package: string | null; version: string | null }> {
  for (const p of [path, path.replace(/^\/usr/, '')]) {
    const r = await run(['dpkg', '-S', p]);
    const pkg = r.code === 0 ? r.stdout.split(':')[0]?.trim() : undefined;
    if (pkg) {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax
      const v = await run(['dpkg-query', '-W', '-f=${Version}', pkg]);
      return { package: pkg, version: v.code === 0 ? v.stdout.trim() : null };
    }
  }
  return { package: null, version: null };
}

/**
 * The recipe's files: this one and every module it imports, transitively. Host-side modules (the
 * control channel, QMP, keeping a lab awake) are not part of what the image holds, so editing them
 * must not change its id.
 */
export function recipeFiles(dir = RECIPE_DIR, from = 'build.ts'): string[] {
  const seen = new Set<string>();
  const visit = (f: string) => {
    if (seen.has(f)) return;
    seen.add(f);
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/from '\.\/([\w.-]+)\.js'/g))
      visit(`${m[1]}.ts`);
  };
  visit(from);
  return [...seen].sort();
}

function recipeHash(): string {
  const h = createHash('sha256');
  for (const f of recipeFiles()) h.update(f).update(readFileSync(join(RECIPE_DIR, f)));
  return h.digest('hex');
}

/** Everything an image is made of, by hash: the same inputs give the same id. */
export interface ImageInputs {
  recipe: string;
  kernelSha256: string;
  stacksSourceHash: string;
  /** Added stacks by name and source hash: adding, changing or removing one changes the id. */
  added: { name: string; sourceHash: string }[];
  agent: string;
  samplers: string;
  tools: { name: string; sha256: string }[];
  files: { path: string; sha256: string }[];
}

export function imageId(i: ImageInputs): string {
  const h = createHash('sha256')
    .update(
      // The out-of-tree stacks too: a changed module must reach the lab (it did not, before).
      `recipe ${i.recipe}\nkernel ${i.kernelSha256}\nstacks ${i.stacksSourceHash}\nagent ${i.agent}\nsamplers ${i.samplers}\n`,
    )
    .update(i.tools.map((t) => `${t.name} ${t.sha256}`).join('\n'));
  for (const a of [...i.added].sort((x, y) => (x.name < y.name ? -1 : 1)))
    h.update(`\nadded ${a.name} ${a.sourceHash}`);
  for (const f of [...i.files].sort((x, y) => (x.path < y.path ? -1 : 1)))
    h.update(`\n${f.path} ${f.sha256}`);
  return h.digest('hex').slice(0, 16);
}

/** The manifest of a built image, by id; null when the cache no longer has it. */
export function readImageManifest(id: string): ImageManifest | null {
  try {
    return JSON.parse(readFileSync(join(cacheDir('images', id), 'manifest.json'), 'utf8')) as ImageManifest;
  } catch {
    return null;
  }
}

export interface BuildOptions {
  log?: (line: string) => void;
  force?: boolean;
}

// One build at a time in a process: two labs brought up together (a campaign on --labs 2) built
// into the same stage directory, and one archived the other's half-deleted tree.
let building: Promise<unknown> = Promise.resolve();

/** The lab image for this host's inputs, from the cache or built (one build at a time). */
export function ensureImage(opts: BuildOptions = {}): Promise<LabImage> {
  const next = building.then(
    () => findOrBuildImage(opts),
    () => findOrBuildImage(opts),
  );
  building = next.catch(() => undefined);
  return next;
}

async function findOrBuildImage(opts: BuildOptions): Promise<LabImage> {
  const log = opts.log ?? ((s: string) => console.error(s));
  const t0 = Date.now();
  const step = (n: number, what: string) =>
    log(`[image ${n}/5] ${what} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);

  step(1, 'kernel and out-of-tree stacks');
  const sel = await fetchKernel({ log });
  const tree = await extractKernel(sel);
  const inventory = kernelInventory(sel.abi, tree.modulesDir, tree.configPath);
  // A vendor kernel (lfnlab kernel use) must offer what the lab's specs and plans may ask for.
  assertLabNeeds(inventory, { stacks: MAINLINE_STACKS, qdiscs: LAB_QDISCS }, `${sel.package} ${sel.version}`);
  const stacks = await buildStackModules(sel, log);
  const added = await buildAddedStacks(sel, log);
  if (added.length) log(`[image] added stacks: ${added.map((a) => a.record.name).join(', ')}`);

  step(2, 'lab agent and samplers');
  const agent = await buildAgent();
  const samplers = await buildSamplers();

  step(3, 'tools and inputs');
  const tools: ToolRecord[] = [];
  const files = new Set<string>();
  for (const name of [...TOOLS, 'busybox']) {
    const path = which(name);
    tools.push({ name, path, sha256: await sha256File(path), ...(await debianPackage(path)) });
    for (const lib of await sharedLibs(path)) files.add(lib);
  }
  const closure = readModuleClosure(tree.modulesDir);
  const fileHashes = [];
  for (const f of [...files].sort()) fileHashes.push({ path: f, sha256: await sha256File(f) });
  const id = imageId({
    recipe: recipeHash(),
    kernelSha256: sel.sha256,
    stacksSourceHash: stacks.sourceHash,
    added: added.map((a) => a.record),
    agent: agent.sourceHash,
    samplers: samplers.sourceHash,
    tools,
    files: fileHashes,
  });
  const dir = cacheDir('images', id);
  const image = (manifest: ImageManifest): LabImage => ({
    id,
    dir,
    vmlinuz: join(dir, 'vmlinuz'),
    initrd: join(dir, 'initrd.cpio'),
    manifest,
  });
  if (!opts.force && existsSync(join(dir, 'manifest.json'))) {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as ImageManifest;
    log(`[image] ${id} is up to date (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    return image(manifest);
  }

  step(4, `staging ${closure.length} kernel modules and ${tools.length} tools`);
  const stage = cacheDir('images', `.stage-${id}-${process.pid}-${randomBytes(4).toString('hex')}`);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  makeSkeleton(stage);
  for (const t of tools) if (t.name !== 'busybox') copyIn(stage, t.path, `usr/bin/${t.name}`);
  for (const l of KMOD_LINKS) link(stage, `usr/bin/${l}`, 'kmod');
  link(stage, 'usr/sbin/modprobe', '../bin/kmod'); // the kernel's request_module() runs /sbin/modprobe
  await installBusybox(stage, which('busybox'));
  for (const f of files) copyIn(stage, f);
  copyTree(TC_LIB, join(stage, TC_LIB.slice(1)));
  copyTree('/etc/iproute2', join(stage, 'etc/iproute2'));
  for (const f of HOST_ETC) if (existsSync(f)) copyIn(stage, f);
  writeFile(stage, 'etc/passwd', 'root:x:0:0:root:/root:/bin/sh\n');
  writeFile(stage, 'etc/group', 'root:x:0:\n');
  writeFile(stage, 'etc/hosts', '127.0.0.1 localhost lfnlab\n');
  writeFile(stage, 'etc/nsswitch.conf', 'hosts: files\nprotocols: files\nservices: files\n');

  for (const m of closure) copyIn(stage, join(tree.modulesDir, m), join('usr/lib/modules', sel.abi, m));
  for (const f of ['modules.builtin', 'modules.builtin.modinfo', 'modules.order']) {
    if (existsSync(join(tree.modulesDir, f)))
      copyIn(stage, join(tree.modulesDir, f), join('usr/lib/modules', sel.abi, f));
  }
  const extra = [...stacks.modules, ...added.map((a) => a.ko)];
  for (const ko of extra)
    copyIn(stage, ko, join('usr/lib/modules', sel.abi, 'extra', ko.split('/').pop() as string));
  await runOk(['depmod', '-b', stage, sel.abi]);
  const available = new Set([...closure.map(moduleName), ...extra.map(moduleName)]);
  // The lab's stacks and every added one load at boot; the registry, not this process's
  // registration, says which are added (the image is built for the registry as it is).
  const stackMods = [
    ...STACKS.flatMap((s) => (s.module ? [s.module] : [])),
    ...added.map((a) => a.record.module),
  ];
  const boot = bootModules(stackMods, available);
  writeFile(stage, 'etc/lfnlab/modules.list', `${boot.join('\n')}\n`);
  // Without this the ifb module makes ifb0 and ifb1 in the lab's root namespace.
  writeFile(stage, 'etc/modprobe.d/lfnlab.conf', 'options ifb numifbs=0\n');
  writeFile(stage, 'etc/lfnlab/image-id', `${id}\n`);
  copyIn(stage, agent.path, 'init');
  for (const [name, path] of Object.entries(samplers.paths)) copyIn(stage, path, `usr/bin/${name}`);

  step(5, 'initramfs');
  const paths = listTree(stage);
  normaliseTimes(stage, paths, Number(process.env.SOURCE_DATE_EPOCH ?? 0));
  mkdirSync(dir, { recursive: true });
  // Written aside and renamed: a lab booting now (a forced rebuild) reads the old file or the
  // new one, never a half-written one.
  const aside = (name: string) => join(dir, `.${name}-${process.pid}-${randomBytes(4).toString('hex')}`);
  const tmpInitrd = aside('initrd');
  await writeCpio(stage, paths, tmpInitrd);
  renameSync(tmpInitrd, join(dir, 'initrd.cpio'));
  const tmpKernel = aside('vmlinuz');
  await runOk(['cp', '--reflink=auto', tree.vmlinuz, tmpKernel]);
  renameSync(tmpKernel, join(dir, 'vmlinuz'));
  rmSync(stage, { recursive: true, force: true });

  const manifest: ImageManifest = {
    id,
    builtAt: new Date().toISOString(),
    kernel: { ...sel, hz: inventory.hz, stacks: inventory.stacks, qdiscs: inventory.qdiscs },
    agent: { sourceHash: agent.sourceHash, goVersion: agent.goVersion },
    samplers: { sourceHash: samplers.sourceHash },
    stacks: {
      sourceHash: stacks.sourceHash,
      modules: stacks.modules.map((m) => m.split('/').pop() as string),
      added: added.map((a) => a.record),
    },
    tools,
    modules: { count: closure.length, boot },
    initrdBytes: statSync(join(dir, 'initrd.cpio')).size,
    vmlinuzBytes: statSync(join(dir, 'vmlinuz')).size,
    buildMs: Date.now() - t0,
  };
  // The manifest marks the image complete, so it appears whole or not at all.
  const tmpManifest = aside('manifest');
  writeFileSync(tmpManifest, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(tmpManifest, join(dir, 'manifest.json'));
  log(
    `[image] built ${id}: initramfs ${(manifest.initrdBytes / 1e6).toFixed(1)} MB, kernel ${(manifest.vmlinuzBytes / 1e6).toFixed(1)} MB, ${closure.length} modules, in ${(manifest.buildMs / 1000).toFixed(1)} s`,
  );
  return image(manifest);
}
