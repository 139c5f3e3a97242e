// A lab PC from the ISO, as a vendor would set one up: `lfnlab lab iso` writes it, qemu boots it
// from CD-ROM (BIOS, and UEFI with OVMF) with a virtio NIC on a host tap, and this host drives it
// over that network: TLS with both certificates checked, a client without one refused, and a
// whole experiment run through `lfnlab run --lab NAME`.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../bin/lfnlab.js', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'lfnlab-labpc-'));
const NAME = 'labpc-test';
const TAP = 'lfnpc0';
const HOST_IP = '10.77.0.1';
const PC_IP = '10.77.0.2';
// The records, CA and key of this test only; the image cache is the shared one.
const env = { ...process.env, LFNLAB_DATA: join(tmp, 'data') };
const iso = join(tmp, `${NAME}.iso`);

const lfnlab = (...args: string[]) =>
  spawnSync('node', [CLI, ...args], { encoding: 'utf8', env, timeout: 900_000 });

const sh = (argv: string[]) => spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8' });

let qemu: ChildProcess | null = null;

async function bootIso(firmware: 'bios' | 'uefi', consoleLog: string): Promise<ChildProcess> {
  // One lab PC at a time: a test that failed half-way must not leave its PC answering the next.
  await stopQemu();
  qemu = spawn(
    'qemu-system-x86_64',
    [
      '-name',
      `lfnlab-${NAME}`,
      '-accel',
      'tcg',
      '-cpu',
      'max',
      '-smp',
      '1',
      '-m',
      '1024',
      '-nodefaults',
      '-no-user-config',
      '-display',
      'none',
      '-no-reboot',
      ...(firmware === 'uefi' ? ['-bios', '/usr/share/ovmf/OVMF.fd'] : []),
      '-drive',
      `file=${iso},media=cdrom,readonly=on,if=ide`,
      '-boot',
      'd',
      '-netdev',
      `tap,id=n0,ifname=${TAP},script=no,downscript=no`,
      '-device',
      'virtio-net-pci,netdev=n0',
      '-serial',
      `file:${consoleLog}`,
    ],
    { stdio: 'ignore' },
  );
  // Even when this process dies before afterAll, its lab PC must not run on.
  const q = qemu;
  const guard = () => q.kill('SIGKILL');
  process.once('exit', guard);
  q.once('exit', () => process.off('exit', guard));
  return q;
}

function stopQemu(): Promise<void> {
  const q = qemu;
  qemu = null;
  if (!q || q.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    q.once('exit', () => resolve());
    q.kill('SIGKILL');
  });
}

/** `lab status` until the agent answers over TLS; each try is the real connection (no timer guesses). */
function waitForAgent(consoleLog: string, deadlineMs: number): { state: string; info: { kernel: string } } {
  const until = Date.now() + deadlineMs;
  let last = '';
  while (Date.now() < until) {
    const r = lfnlab('lab', 'status', '--name', NAME, '--json');
    last = r.stdout + r.stderr;
    try {
      const s = JSON.parse(r.stdout) as { state: string; info: { kernel: string } };
      if (s.state === 'up') return s;
    } catch {}
    if (qemu?.exitCode != null) break;
  }
  const console_ = existsSync(consoleLog) ? readFileSync(consoleLog, 'utf8').slice(-3000) : '';
  throw new Error(`the lab PC did not answer: ${last}\nconsole:\n${console_}`);
}

beforeAll(() => {
  for (const argv of [
    ['ip', 'tuntap', 'add', 'dev', TAP, 'mode', 'tap'],
    ['ip', 'addr', 'add', `${HOST_IP}/30`, 'dev', TAP],
    ['ip', 'link', 'set', TAP, 'up'],
  ]) {
    const r = sh(argv);
    if (r.status !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr}`);
  }
});

afterAll(async () => {
  await stopQemu();
  sh(['ip', 'link', 'del', TAP]);
  rmSync(tmp, { recursive: true, force: true });
});

describe('a lab PC booted from the ISO', () => {
  it('refuses bad options by name before building anything', () => {
    const r = lfnlab('lab', 'iso', '--name', 'Bad_Name', '--address', '10.77.0.300/24');
    expect(r.status).toBe(64);
    expect(r.stderr).toMatch(/--name: must be a DNS label/);
    expect(r.stderr).toMatch(/--address: must be an IPv4 address with a prefix length/);
  });

  it('writes a hybrid ISO: a BIOS and a UEFI boot entry, and a record for this host', {
    timeout: 600_000,
  }, () => {
    const r = lfnlab('lab', 'iso', '--name', NAME, '--address', `${PC_IP}/30`, '--out', iso);
    console.log(r.stdout, r.stderr.slice(-2000));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`use --lab ${NAME} \\(agent at ${PC_IP}:7600\\)`));
    const report = sh(['xorriso', '-indev', iso, '-report_el_torito', 'plain']);
    const boot = `${report.stdout}\n${report.stderr}`;
    expect(boot).toMatch(/El Torito boot img :\s+1\s+BIOS/);
    expect(boot).toMatch(/El Torito boot img :\s+2\s+UEFI/);
    const rec = JSON.parse(readFileSync(join(tmp, 'data', 'lab-pcs', NAME, 'lab.json'), 'utf8'));
    expect(rec).toMatchObject({ name: NAME, host: PC_IP, port: 7600, network: { address: `${PC_IP}/30` } });
  });

  it('boots under BIOS, answers over TLS only with a certificate from the lab CA, and runs an experiment', {
    timeout: 900_000,
  }, async () => {
    const consoleLog = join(tmp, 'console-bios.log');
    await bootIso('bios', consoleLog);
    const t0 = Date.now();
    const status = waitForAgent(consoleLog, 240_000);
    console.log(
      `lab PC up over the network in ${((Date.now() - t0) / 1000).toFixed(1)} s: kernel ${status.info.kernel}`,
    );
    expect(status.info.kernel).toMatch(/^6\.1\./);

    // Without a client certificate the agent ends the handshake: nothing reaches the session.
    const refused = await new Promise<string>((resolve) => {
      const s = tlsConnect({
        host: PC_IP,
        port: 7600,
        servername: NAME,
        ca: readFileSync(join(tmp, 'data', 'lab-pcs', 'ca.pem')),
        minVersion: 'TLSv1.3',
      });
      s.on('data', () => resolve('data'));
      s.on('error', (e) => resolve(`error: ${e.message}`));
      s.on('close', () => resolve('closed'));
      s.on('secureConnect', () => s.write('{"v":1}\tbad\n'));
    });
    expect(refused).not.toBe('data');

    const spec = join(tmp, 'spec.yaml');
    writeFileSync(
      spec,
      'name: labpc\nduration: 6s\nseed: 7\npaths: {main: {rtt: 20ms, rate: 20Mbit, buffer: 1bdp}}\nflows: [{stack: cubic}]\n',
    );
    const out = join(tmp, 'run');
    const r = lfnlab('run', spec, '--lab', NAME, '--out', out);
    console.log(r.stdout.slice(-3000), r.stderr.slice(-2000));
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.status).toBe('completed');
    // This "PC" is qemu without an instruction clock on a loaded 2-core host, so late timers may
    // well make the link invalid, and the run must say so (exit 3) as it would on any lab.
    expect(r.status).toBe(summary.verdict === 'invalid' ? 3 : 0);
    expect(r.stdout).toMatch(/lab: lab PC at 10\.77\.0\.2:7600 \(TLS\)/);
    expect(summary.flows[0].goodputMbps.mean).toBeGreaterThan(5);
    const environment = JSON.parse(readFileSync(join(out, 'environment.json'), 'utf8'));
    expect(environment.lab).toMatchObject({
      name: NAME,
      accel: 'remote',
      remote: { host: PC_IP, port: 7600 },
    });
    await stopQemu();
  });

  it('boots under UEFI (OVMF) and answers', { timeout: 600_000 }, async () => {
    const consoleLog = join(tmp, 'console-uefi.log');
    await bootIso('uefi', consoleLog);
    const t0 = Date.now();
    const status = waitForAgent(consoleLog, 300_000);
    console.log(`UEFI: lab PC up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    expect(status.state).toBe('up');
    // OVMF's boot manager, not SeaBIOS, loaded GRUB.
    expect(readFileSync(consoleLog, 'utf8')).toMatch(/BdsDxe/);
    await stopQemu();
  });
});
