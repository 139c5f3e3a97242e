// Lab PCs: the lab image booted from the ISO on a machine of its own, driven over the network.
// This host keeps a small CA; each lab PC gets a server certificate (its name as DNS name) and this
// host a client certificate, so each end proves itself to the other (TLS 1.3), and every frame is
// still signed with the lab's own key as on virtio-serial. The records live in the user's data
// directory, not under /run: a lab PC outlives this host's reboots.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';
import { dataDir, runOk } from '@lfnlab/kernels';
import { Channel, ChannelError, type ChannelOptions } from './channel.js';

export const REMOTE_PORT = 7600;

/** A lab name is a DNS label: it is the lab PC's certificate name. */
export const LAB_PC_NAME = /^[a-z][a-z0-9-]{0,30}$/;

export interface LabPcNetwork {
  /** Address with prefix length (10.77.0.2/24), or 'dhcp'. */
  address: string;
  gateway?: string;
  /** The port to configure on the PC; empty: its first ethernet port. */
  interface?: string;
}

export interface LabPcRecord {
  name: string;
  /** Where this host reaches the PC's agent. */
  host: string;
  port: number;
  network: LabPcNetwork;
  imageId: string;
  iso: { path: string; sha256: string; bytes: number } | null;
  createdAt: string;
}

/** The lab PCs' records, keys and the lab CA: in the user's data directory (`dataDir`). */
export const labPcDir = (...parts: string[]): string => dataDir('lab-pcs', ...parts);

export function readLabPc(name: string): LabPcRecord | null {
  if (!LAB_PC_NAME.test(name)) return null;
  try {
    return JSON.parse(readFileSync(labPcDir(name, 'lab.json'), 'utf8')) as LabPcRecord;
  } catch {
    return null;
  }
}

export function saveLabPc(rec: LabPcRecord): void {
  mkdirSync(labPcDir(rec.name), { recursive: true, mode: 0o700 });
  writeFileSync(labPcDir(rec.name, 'lab.json'), `${JSON.stringify(rec, null, 2)}\n`);
}

export function forgetLabPc(name: string): boolean {
  const had = readLabPc(name) !== null;
  if (LAB_PC_NAME.test(name)) rmSync(labPcDir(name), { recursive: true, force: true });
  return had;
}

/** The lab's frame key, made once per lab PC (the same text goes into its ISO). */
export function labPcKey(name: string): string {
  const f = labPcDir(name, 'key');
  if (!existsSync(f)) {
    mkdirSync(labPcDir(name), { recursive: true, mode: 0o700 });
    writeFileSync(f, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  }
  return readFileSync(f, 'utf8').trim();
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** The lab CA (ten years), made on first use; its key never leaves this host. */
export async function ensureLabCa(): Promise<{ cert: string; key: string }> {
  const cert = labPcDir('ca.pem');
  const key = labPcDir('ca.key');
  if (!existsSync(cert) || !existsSync(key)) {
    mkdirSync(labPcDir(), { recursive: true, mode: 0o700 });
    await runOk([
      'openssl',
      'req',
      '-x509',
      '-new',
      ...EC,
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '3650',
      '-subj',
      '/CN=lfnlab lab CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    chmodSync(key, 0o600);
  }
  return { cert, key };
}

/** A certificate signed by the lab CA: `server` for a lab PC (its name, and its IP when fixed), `client` for this host. */
export async function issueCertificate(
  out: { cert: string; key: string },
  subject: { cn: string; role: 'server' | 'client'; dns?: string; ip?: string },
): Promise<void> {
  const ca = await ensureLabCa();
  const csr = `${out.cert}.csr`;
  const ext = `${out.cert}.ext`;
  const san = [subject.dns ? `DNS:${subject.dns}` : '', subject.ip ? `IP:${subject.ip}` : ''].filter(Boolean);
  writeFileSync(
    ext,
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature',
      `extendedKeyUsage=${subject.role === 'server' ? 'serverAuth' : 'clientAuth'}`,
      ...(san.length ? [`subjectAltName=${san.join(',')}`] : []),
    ].join('\n'),
  );
  try {
    await runOk([
      'openssl',
      'req',
      '-new',
      ...EC,
      '-keyout',
      out.key,
      '-out',
      csr,
      '-subj',
      `/CN=${subject.cn}`,
    ]);
    chmodSync(out.key, 0o600);
    await runOk([
      'openssl',
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      ca.cert,
      '-CAkey',
      ca.key,
      '-set_serial',
      `0x${randomBytes(16).toString('hex')}`,
      '-days',
      '825',
      '-extfile',
      ext,
      '-out',
      out.cert,
    ]);
  } finally {
    rmSync(csr, { force: true });
    rmSync(ext, { force: true });
  }
}

/** This host's client certificate, made on first use. */
export async function ensureHostCertificate(): Promise<{ cert: string; key: string }> {
  const out = { cert: labPcDir('host.pem'), key: labPcDir('host.key') };
  if (!existsSync(out.cert) || !existsSync(out.key))
    await issueCertificate(out, { cn: 'lfnlab host', role: 'client' });
  return out;
}

/** The control channel to a lab PC: TLS 1.3 with both certificates checked, then the signed hello. */
export async function connectLabPc(rec: LabPcRecord, opts: ChannelOptions = {}): Promise<Channel> {
  const host = await ensureHostCertificate();
  const sock = await new Promise<TLSSocket>((resolve, reject) => {
    const s = tlsConnect({
      host: rec.host,
      port: rec.port,
      servername: rec.name,
      ca: readFileSync(labPcDir('ca.pem')),
      cert: readFileSync(host.cert),
      key: readFileSync(host.key),
      minVersion: 'TLSv1.3',
    });
    s.once('secureConnect', () => resolve(s));
    s.once('error', (e) =>
      reject(new ChannelError(`cannot reach lab PC '${rec.name}' at ${rec.host}:${rec.port}: ${e.message}`)),
    );
  });
  sock.setKeepAlive(true, 5000);
  return Channel.over(sock, Buffer.from(labPcKey(rec.name), 'utf8'), opts);
}
