// The lab image as a bootable ISO for a lab PC: the same kernel, stacks, agent and tools as the
// qemu lab (the same initramfs, byte for byte), plus a second small initramfs with this PC's
// network settings, its certificate and the lab key. GRUB from Debian's packages makes it hybrid:
// it boots from CD or USB stick, under BIOS and UEFI.
import { createHash } from 'node:crypto';
import { copyFileSync, createReadStream, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { cacheDir, runOk } from '@lfnlab/kernels';
import type { LabImage } from './build.js';
import {
  ensureLabCa,
  issueCertificate,
  LAB_PC_NAME,
  type LabPcNetwork,
  type LabPcRecord,
  labPcKey,
  REMOTE_PORT,
  saveLabPc,
} from './remote.js';
import { listTree, normaliseTimes, writeCpio, writeFile } from './stage.js';

export interface IsoOptions {
  name: string;
  network: LabPcNetwork;
  /** Where this host reaches the PC: the static address by default; required with DHCP. */
  host?: string;
  port?: number;
  out: string;
  image: LabImage;
  log?: (line: string) => void;
}

/** Each problem names its option and what is allowed, as the spec's problems do. */
export function isoProblems(o: Pick<IsoOptions, 'name' | 'network' | 'host' | 'port'>): string[] {
  const p: string[] = [];
  if (!LAB_PC_NAME.test(o.name))
    p.push(`--name: must be a DNS label (a-z first, then a-z, 0-9 or -, at most 31), got '${o.name}'`);
  const a = o.network.address;
  if (a === 'dhcp') {
    if (!o.host) p.push('--connect: needed with --dhcp (the name or address this host reaches the PC at)');
  } else {
    const [ip, prefix] = a.split('/');
    if (!ip || isIP(ip) !== 4 || !/^\d+$/.test(prefix ?? '') || Number(prefix) < 1 || Number(prefix) > 32)
      p.push(
        `--address: must be an IPv4 address with a prefix length 1 to 32 (10.77.0.2/24) or dhcp, got '${a}'`,
      );
  }
  if (o.network.gateway !== undefined && isIP(o.network.gateway) !== 4)
    p.push(`--gateway: must be an IPv4 address, got '${o.network.gateway}'`);
  if (o.network.interface !== undefined && !/^[a-zA-Z0-9_.-]{1,15}$/.test(o.network.interface))
    p.push(
      `--interface: must be a network port name of 1 to 15 letters, digits, _ . -, got '${o.network.interface}'`,
    );
  if (o.port !== undefined && (!Number.isInteger(o.port) || o.port < 1 || o.port > 65535))
    p.push(`--port: must be 1 to 65535, got ${o.port}`);
  return p;
}

/** GRUB's menu: the serial console too, so a headless PC (and the qemu test) shows its boot. */
export function grubConfig(name: string, imageId: string): string {
  return `set timeout=3
set default=0
serial --unit=0 --speed=115200
terminal_input console serial
terminal_output console serial
menuentry "lfnlab lab PC ${name} (image ${imageId})" {
  linux /boot/vmlinuz console=tty0 console=ttyS0,115200 panic=10 quiet loglevel=4
  initrd /boot/initrd.cpio /boot/site.cpio
}
`;
}

/** busybox udhcpc's hook: it calls this with the lease in its environment. */
const UDHCPC_SCRIPT = `#!/bin/sh
case "$1" in
  deconfig) ip addr flush dev "$interface"; ip link set "$interface" up ;;
  bound|renew)
    ip addr flush dev "$interface"
    ip addr add "$ip/\${mask:-24}" dev "$interface"
    for r in $router; do ip route replace default via "$r" dev "$interface"; break; done ;;
esac
exit 0
`;

function sha256Of(path: string): Promise<string> {
  return new Promise((res, rej) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (b) => h.update(b))
      .on('end', () => res(h.digest('hex')))
      .on('error', rej);
  });
}

export async function buildIso(o: IsoOptions): Promise<LabPcRecord> {
  const problems = isoProblems(o);
  if (problems.length) throw new Error(problems.join('\n'));
  const log = o.log ?? ((s: string) => console.error(s));
  const staticIp = o.network.address === 'dhcp' ? undefined : o.network.address.split('/')[0];
  const host = o.host ?? (staticIp as string);
  const port = o.port ?? REMOTE_PORT;
  const work = cacheDir('iso', `.work-${o.name}-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  try {
    // The PC's own files: never in the shared image, so one image serves every PC.
    const site = join(work, 'site');
    const dir = 'etc/lfnlab/remote';
    mkdirSync(join(site, dir), { recursive: true, mode: 0o700 });
    copyFileSync((await ensureLabCa()).cert, join(site, dir, 'ca.pem'));
    await issueCertificate(
      { cert: join(site, dir, 'agent.pem'), key: join(site, dir, 'agent.key') },
      { cn: o.name, role: 'server', dns: o.name, ...(staticIp ? { ip: staticIp } : {}) },
    );
    writeFile(site, `${dir}/key`, `${labPcKey(o.name)}\n`, 0o600);
    writeFile(
      site,
      `${dir}/net.json`,
      `${JSON.stringify({
        name: o.name,
        listen: `:${port}`,
        interface: o.network.interface ?? '',
        address: o.network.address,
        gateway: o.network.gateway ?? '',
        issuedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      })}\n`,
    );
    writeFile(site, `${dir}/udhcpc.sh`, UDHCPC_SCRIPT, 0o755);
    const iso = join(work, 'iso');
    mkdirSync(join(iso, 'boot', 'grub'), { recursive: true });
    const paths = listTree(site);
    normaliseTimes(site, paths, 0);
    await writeCpio(site, paths, join(iso, 'boot', 'site.cpio'));
    copyFileSync(o.image.vmlinuz, join(iso, 'boot', 'vmlinuz'));
    copyFileSync(o.image.initrd, join(iso, 'boot', 'initrd.cpio'));
    writeFileSync(join(iso, 'boot', 'grub', 'grub.cfg'), grubConfig(o.name, o.image.id));
    const out = resolve(o.out);
    mkdirSync(dirname(out), { recursive: true });
    log(`writing ${out} (GRUB for BIOS and UEFI, image ${o.image.id})`);
    // grub-mkrescue makes the El Torito BIOS entry, the EFI system partition and the MBR that
    // lets the same file boot from a USB stick; it hands the rest to xorriso.
    await runOk([
      'grub-mkrescue',
      '--compress=xz',
      '-o',
      out,
      iso,
      '--',
      '-volid',
      `LFNLAB_${o.name.toUpperCase()}`.slice(0, 32),
    ]);
    const rec: LabPcRecord = {
      name: o.name,
      host,
      port,
      network: o.network,
      imageId: o.image.id,
      iso: { path: out, sha256: await sha256Of(out), bytes: statSync(out).size },
      createdAt: new Date().toISOString(),
    };
    saveLabPc(rec);
    return rec;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
