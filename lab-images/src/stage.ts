// Staging the image tree: Debian's own binaries with their libraries, busybox for the rest,
// the selected kernel modules, and the agent as /init.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  createWriteStream,
  existsSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { runOk } from '@lfnlab/kernels';

/** Merged-/usr layout, as Debian 12 has it: /bin, /sbin, /lib, /lib64 point into /usr. */
const MERGED: Record<string, string> = {
  bin: 'usr/bin',
  sbin: 'usr/sbin',
  lib: 'usr/lib',
  lib64: 'usr/lib64',
};

export function canonical(path: string): string {
  const rel = path.replace(/^\/+/, '');
  const [top, ...rest] = rel.split('/');
  return top && MERGED[top] ? [MERGED[top], ...rest].join('/') : rel;
}

export function makeSkeleton(stage: string): void {
  for (const d of [
    'usr/bin',
    'usr/sbin',
    'usr/lib',
    'usr/lib64',
    'dev',
    'proc',
    'sys',
    'run',
    'tmp',
    'root',
    'var',
    'etc/lfnlab',
    'etc/modprobe.d',
  ]) {
    mkdirSync(join(stage, d), { recursive: true });
  }
  for (const [link, target] of Object.entries(MERGED)) symlinkSync(target, join(stage, link));
  symlinkSync('../run', join(stage, 'var/run'));
}

/** Copy a host file's content (links followed) to the same canonical path in the stage. */
export function copyIn(stage: string, hostPath: string, as?: string): string {
  const dest = join(stage, as ?? canonical(hostPath));
  if (existsSync(dest)) return dest;
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(realpathSync(hostPath), dest);
  return dest;
}

export function link(stage: string, from: string, to: string): void {
  const p = join(stage, from);
  if (!existsSync(p)) symlinkSync(to, p);
}

/** Busybox fills in every small tool the real ones do not provide (sh, sysctl, cat, kill...). */
export async function installBusybox(stage: string, busybox: string): Promise<void> {
  copyIn(stage, busybox, 'usr/bin/busybox');
  const applets = (await runOk([busybox, '--list'])).split('\n').filter(Boolean);
  for (const a of applets) {
    if (a === 'busybox' || existsSync(join(stage, 'usr/bin', a)) || existsSync(join(stage, 'usr/sbin', a)))
      continue;
    symlinkSync('busybox', join(stage, 'usr/bin', a));
  }
}

export function copyTree(from: string, to: string): void {
  cpSync(from, to, { recursive: true, dereference: true });
}

export function writeFile(stage: string, rel: string, text: string, mode = 0o644): void {
  const p = join(stage, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
  chmodSync(p, mode);
}

/** Every path below the stage, sorted, relative (what cpio reads). */
export function listTree(stage: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(stage, rel), { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    out.push(p);
    if (e.isDirectory()) out.push(...listTree(stage, p));
  }
  return out;
}

/** One timestamp for every file, so the archive depends only on content. */
export function normaliseTimes(stage: string, paths: string[], epochS: number): void {
  for (const p of [...paths, '']) {
    lutimesSync(join(stage, p), epochS, epochS);
  }
}

/** A newc cpio archive of these stage paths, owned by root, as the kernel unpacks an initramfs. */
export async function writeCpio(stage: string, paths: string[], out: string): Promise<void> {
  const file = createWriteStream(out);
  const cpio = spawn('cpio', ['--quiet', '-o', '-H', 'newc', '--reproducible', '-R', '0:0'], {
    cwd: stage,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  cpio.stderr.on('data', (b) => {
    err += b;
  });
  // Done only when cpio has exited and the archive is on disk: waiting for one event and then
  // listening for the other lost it when it had already fired, and the promise never settled
  // (node then exits 0 with no image).
  const written = new Promise<void>((resolve, reject) => {
    file.on('close', resolve);
    file.on('error', reject);
  });
  const exited = new Promise<void>((resolve, reject) => {
    cpio.on('error', reject);
    cpio.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`cpio exited ${code}: ${err}`))));
  });
  cpio.stdout.pipe(file);
  cpio.stdin.end(`${paths.join('\n')}\n`);
  await Promise.all([exited, written]);
}
