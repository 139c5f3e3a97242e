// Lab lifecycle: up (boot the image under KVM where it really works, else TCG), status, down.
// State lives in a root-only directory under /run; nothing listens on any network address.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release } from 'node:os';
import { join } from 'node:path';
import { wireTapNames } from '@lfnlab/emulator';
import { cacheDir, run } from '@lfnlab/kernels';
import { holdAwake, pauseIfUnheld } from './awake.js';
import type { LabImage } from './build.js';
import { Channel, LabBusyError } from './channel.js';
import { pidAlive as alive } from './pids.js';
import { type Accel, cpuArg, KERNEL_CMDLINE, type LabClock, qemuArgv } from './qemu.js';
import { qmpCommand } from './qmp.js';
import { connectLabPc, type LabPcRecord, readLabPc } from './remote.js';

export interface LabRecord {
  name: string;
  /** qemu's pid; 0 for a lab PC. */
  pid: number;
  /** 'remote': a lab PC booted from the ISO, reached over the network (remote.ts). */
  accel: Accel | 'remote';
  /** realtime, or dilated (qemu's instruction counter drives guest time). Absent in old records: realtime. */
  clock: LabClock;
  imageId: string;
  cpus: number;
  memMb: number;
  startedAt: string;
  bootMs: number;
  argv: string[];
  qemuVersion: string;
  /** A lab PC: where its agent listens. */
  remote?: { host: string; port: number };
  /** Booted with two wire ports (a bump in the wire): the host taps behind them. */
  wireTaps?: { a: string; b: string };
}

export interface LabPaths {
  dir: string;
  socket: string;
  qmpSocket: string;
  keyFile: string;
  consoleLog: string;
  qemuLog: string;
  pidFile: string;
  record: string;
}

export function labPaths(name: string): LabPaths {
  const dir = join(process.env.LFNLAB_RUN_DIR || '/run/lfnlab', 'labs', name);
  return {
    dir,
    socket: join(dir, 'ctl.sock'),
    qmpSocket: join(dir, 'qmp.sock'),
    keyFile: join(dir, 'key'),
    consoleLog: join(dir, 'console.log'),
    qemuLog: join(dir, 'qemu.log'),
    pidFile: join(dir, 'qemu.pid'),
    record: join(dir, 'lab.json'),
  };
}

/** The pid is still our qemu: a killed lab's pid may since belong to another process. */
const isQemu = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('qemu-system');
  } catch {
    return process.platform !== 'linux'; // no /proc to ask: trust the signal test
  }
};

/** A lab PC as a lab record: its clock is the PC's own (real time), its CPUs and memory its own. */
function labPcRecord(pc: LabPcRecord): LabRecord {
  return {
    name: pc.name,
    pid: 0,
    accel: 'remote',
    clock: 'realtime',
    imageId: pc.imageId,
    cpus: 0,
    memMb: 0,
    startedAt: pc.createdAt,
    bootMs: 0,
    argv: [],
    qemuVersion: '',
    remote: { host: pc.host, port: pc.port },
  };
}

export function readLab(name: string): LabRecord | null {
  const p = labPaths(name);
  const pc = readLabPc(name);
  if (pc && !existsSync(p.record)) return labPcRecord(pc);
  if (!existsSync(p.record)) return null;
  const rec = JSON.parse(readFileSync(p.record, 'utf8')) as LabRecord;
  return alive(rec.pid) && isQemu(rec.pid) ? rec : null;
}

export function labKey(name: string): Buffer {
  return Buffer.from(readFileSync(labPaths(name).keyFile, 'utf8').trim(), 'utf8');
}

export async function connectLab(
  name: string,
  opts: { timeoutMs?: number; watchdogMs?: number } = {},
): Promise<Channel> {
  const rec = readLab(name);
  if (!rec) throw new Error(`lab '${name}' is not running: start it with 'lfnlab lab up'`);
  const pc = rec.remote ? readLabPc(name) : null;
  if (pc) return connectLabPc(pc, opts);
  const p = labPaths(name);
  if (rec.clock !== 'dilated') return Channel.open(p.socket, labKey(name), opts);
  // A dilated lab is paused while nobody uses it; the channel holds it awake until it closes.
  const release = await holdAwake(p.dir, p.qmpSocket, () => readLab(name)?.pid === rec.pid);
  try {
    const ch = await Channel.open(p.socket, labKey(name), opts);
    ch.once('close', () => void release().catch(() => undefined));
    return ch;
  } catch (err) {
    await release().catch(() => undefined);
    throw err;
  }
}

/** KVM verdicts per host kernel: /dev/kvm existing is no proof that a stock guest kernel boots. */
const verdictFile = () => cacheDir('kvm-verdict.json');
function kvmVerdict(): boolean | undefined {
  try {
    const v = JSON.parse(readFileSync(verdictFile(), 'utf8')) as Record<string, boolean>;
    return v[release()];
  } catch {
    return undefined;
  }
}
function saveKvmVerdict(works: boolean): void {
  let v: Record<string, boolean> = {};
  try {
    v = JSON.parse(readFileSync(verdictFile(), 'utf8'));
  } catch {}
  v[release()] = works;
  mkdirSync(cacheDir(), { recursive: true });
  writeFileSync(verdictFile(), JSON.stringify(v, null, 2));
}

export interface UpOptions {
  name?: string;
  image: LabImage;
  accel?: Accel | 'auto';
  /** Default: dilated wherever the lab runs under TCG, realtime under KVM. */
  clock?: LabClock | 'auto';
  cpus?: number;
  /** The guest CPU model under TCG (default TCG_CPU); a running lab with another is restarted. */
  cpuModel?: string;
  memMb?: number;
  log?: (s: string) => void;
  /** Two wire ports on host taps for a bump in the wire; a running lab without them is restarted. */
  wire?: boolean;
  /**
   * Module parameters the kernel must boot with (load-time stack parameters); a running lab booted
   * with others, or without, is restarted. Default none.
   */
  kernelArgs?: readonly string[];
}

async function boot(
  o: Required<Omit<UpOptions, 'accel' | 'clock' | 'wire' | 'cpuModel' | 'kernelArgs'>> & {
    kernelArgs?: readonly string[];
    cpuModel?: string;
    accel: Accel;
    clock: LabClock;
    timeoutMs: number;
    wireTaps?: { a: string; b: string };
  },
): Promise<LabRecord> {
  const p = labPaths(o.name);
  rmSync(p.dir, { recursive: true, force: true });
  mkdirSync(p.dir, { recursive: true, mode: 0o700 });
  writeFileSync(p.keyFile, randomBytes(32).toString('hex'), { mode: 0o600 });
  const argv = qemuArgv({ ...o, vmlinuz: o.image.vmlinuz, initrd: o.image.initrd, ...p });
  const qemuVersion = (await run(['qemu-system-x86_64', '--version'])).stdout.split('\n')[0] ?? '';
  const t0 = Date.now();
  const logFd = openSync(p.qemuLog, 'a');
  const child = spawn(argv[0] as string, argv.slice(1), { detached: true, stdio: ['ignore', logFd, logFd] });
  child.unref();
  const pid = child.pid ?? 0;
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  const deadline = t0 + o.timeoutMs;
  // The socket appears as soon as qemu listens; the hello waits in it until the agent opens its
  // port, so one connection measures the whole boot.
  let ch: Channel | undefined;
  let lastErr: unknown;
  while (!ch && Date.now() < deadline && !exited) {
    if (!existsSync(p.socket)) {
      await new Promise((r) => setTimeout(r, 25));
      continue;
    }
    try {
      ch = await Channel.open(p.socket, Buffer.from(readFileSync(p.keyFile, 'utf8')), {
        timeoutMs: Math.max(1000, deadline - Date.now()),
      });
    } catch (err) {
      lastErr = err;
      if (!(err instanceof LabBusyError)) await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (!ch) {
    if (!exited) process.kill(pid, 'SIGKILL');
    const qlog = existsSync(p.qemuLog)
      ? readFileSync(p.qemuLog, 'utf8').trim().split('\n').slice(-5).join('\n')
      : '';
    throw new Error(
      `lab did not come up under ${o.accel} within ${o.timeoutMs / 1000} s${exited ? ' (qemu exited)' : ''}${qlog ? `:\n${qlog}` : ''}${lastErr ? `\n${String(lastErr)}` : ''}`,
    );
  }
  ch.close();
  const rec: LabRecord = {
    name: o.name,
    pid,
    accel: o.accel,
    clock: o.clock,
    imageId: o.image.id,
    cpus: o.cpus,
    memMb: o.memMb,
    startedAt: new Date(t0).toISOString(),
    bootMs: Date.now() - t0,
    argv,
    qemuVersion,
    ...(o.wireTaps ? { wireTaps: o.wireTaps } : {}),
  };
  writeFileSync(p.record, `${JSON.stringify(rec, null, 2)}\n`);
  if (o.clock === 'dilated') await pauseIfUnheld(p.dir, p.qmpSocket);
  return rec;
}

/** The argument after `flag` in a running lab's qemu argv. */
const argAfter = (argv: readonly string[], flag: string) => {
  const at = argv.indexOf(flag);
  return at >= 0 ? argv[at + 1] : undefined;
};

/** The module parameters a running lab's kernel booted with (what its -append adds to the fixed line). */
export function bootedKernelArgs(argv: readonly string[]): string[] {
  const line = argAfter(argv, '-append') ?? KERNEL_CMDLINE;
  const fixed = new Set(KERNEL_CMDLINE.split(' '));
  return line.split(' ').filter((a) => a !== '' && !fixed.has(a));
}

/**
 * Why a running lab cannot serve a request as it is (another image, clock, CPU model, kernel
 * arguments, or no wire ports where they are asked for); null when it can.
 */
export function restartReason(
  running: Pick<LabRecord, 'imageId' | 'clock' | 'wireTaps' | 'argv'>,
  want: { imageId: string; clock: LabClock; wire: boolean; cpu: string; kernelArgs?: readonly string[] },
): string | null {
  const clock = running.clock ?? 'realtime';
  const cpu = argAfter(running.argv, '-cpu');
  if (running.imageId !== want.imageId)
    return `runs image ${running.imageId}; the current image is ${want.imageId}`;
  if (clock !== want.clock) return `runs on a ${clock} clock; ${want.clock} was asked for`;
  if (cpu !== want.cpu) return `emulates CPU ${cpu ?? 'unknown'}; ${want.cpu} is asked for`;
  const booted = bootedKernelArgs(running.argv).sort().join(' ');
  const asked = [...new Set(want.kernelArgs ?? [])].sort().join(' ');
  if (booted !== asked)
    return `booted its kernel with ${booted || 'no module parameters'}; ${asked || 'none'} ${asked ? 'are' : 'is'} asked for`;
  if (want.wire && running.wireTaps === undefined)
    return 'has no wire ports; two are asked for (a bump in the wire)';
  return null;
}

/** The clock a lab gets: what was asked for, else dilated under TCG (its timers cannot be trusted otherwise). */
export function chooseClock(asked: LabClock | 'auto' | undefined, accel: Accel): LabClock {
  const want = asked ?? ((process.env.LFNLAB_CLOCK as LabClock | 'auto' | undefined) || 'auto');
  if (want === 'auto') return accel === 'tcg' ? 'dilated' : 'realtime';
  if (want === 'dilated' && accel !== 'tcg')
    throw new Error('a dilated clock needs TCG: run with --accel tcg, or --clock realtime under KVM');
  return want;
}

/**
 * The clock a lab booted now would get, without booting it: what a dry run plans for. KVM is
 * assumed only where a probe boot has already shown that it works on this host.
 */
export function expectedClock(asked: LabClock | 'auto' | undefined): LabClock {
  const want = asked ?? ((process.env.LFNLAB_CLOCK as LabClock | 'auto' | undefined) || 'auto');
  if (want !== 'auto') return want;
  const accel = (process.env.LFNLAB_ACCEL as Accel | 'auto' | undefined) || 'auto';
  const kvm = accel === 'kvm' || (accel === 'auto' && existsSync('/dev/kvm') && kvmVerdict() === true);
  return kvm ? 'realtime' : 'dilated';
}

export async function labUp(o: UpOptions): Promise<LabRecord> {
  const name = o.name ?? 'default';
  const log = o.log ?? ((s: string) => console.error(s));
  const running = readLab(name);
  if (running?.remote) {
    if (o.kernelArgs?.length)
      throw new Error(
        `lab PC '${name}' boots from its own ISO with its own kernel command line; this run needs ${o.kernelArgs.join(' ')} at boot (load-time stack parameters): run it on a qemu lab`,
      );
    // A lab PC boots from its own ISO: this host cannot restart it on another image.
    if (running.imageId !== o.image.id)
      log(
        `lab PC '${name}' was written with image ${running.imageId}; this host's image is ${o.image.id} (write a new ISO with 'lfnlab lab iso' to bring it up to date)`,
      );
    return running;
  }
  if (running && running.accel !== 'remote') {
    const why = restartReason(running, {
      imageId: o.image.id,
      clock: chooseClock(o.clock, running.accel),
      wire: o.wire === true,
      cpu: cpuArg(running.accel, o.cpuModel),
      kernelArgs: o.kernelArgs ?? [],
    });
    if (why === null) return running;
    log(`lab '${name}' ${why}: restarting it`);
    await labDown(name);
  }
  const base = {
    name,
    image: o.image,
    ...(o.cpuModel ? { cpuModel: o.cpuModel } : {}),
    memMb: o.memMb ?? 2048,
    log,
    ...(o.wire ? { wireTaps: wireTapNames(name) } : {}),
    ...(o.kernelArgs?.length ? { kernelArgs: o.kernelArgs } : {}),
  };
  const vcpus = (clock: LabClock) =>
    clock === 'dilated' ? 1 : (o.cpus ?? Math.max(1, Math.min(cpus().length, 2)));
  let accel = o.accel ?? ((process.env.LFNLAB_ACCEL as Accel | 'auto' | undefined) || 'auto');
  const askedClock = o.clock ?? ((process.env.LFNLAB_CLOCK as LabClock | 'auto' | undefined) || 'auto');
  if (accel === 'auto') {
    const verdict = kvmVerdict();
    // Only TCG has an instruction-driven clock: asking for it settles the accelerator.
    if (verdict === false || !existsSync('/dev/kvm') || askedClock === 'dilated') {
      accel = 'tcg';
    } else {
      log(
        verdict
          ? 'booting under KVM'
          : 'trying KVM (a stock kernel hangs on some hosts; falling back to TCG after 20 s)',
      );
      try {
        const clock = chooseClock(o.clock, 'kvm');
        const rec = await boot({ ...base, accel: 'kvm', clock, cpus: vcpus(clock), timeoutMs: 20_000 });
        saveKvmVerdict(true);
        return rec;
      } catch (err) {
        log(
          `KVM did not boot the lab (${(err as Error).message.split('\n')[0]}); using TCG from now on on this host`,
        );
        saveKvmVerdict(false);
        accel = 'tcg';
      }
    }
  }
  const clock = chooseClock(o.clock, accel);
  if (clock === 'dilated' && o.cpus !== undefined && o.cpus !== 1)
    log(`a dilated lab has 1 vCPU (icount runs every vCPU on one clock); --cpus ${o.cpus} ignored`);
  log(
    `booting the lab under ${accel.toUpperCase()} on a ${clock} clock (${vcpus(clock)} vCPU, ${base.memMb} MiB)`,
  );
  return boot({ ...base, accel, clock, cpus: vcpus(clock), timeoutMs: 120_000 });
}

export async function labDown(name = 'default'): Promise<boolean> {
  const p = labPaths(name);
  const rec = readLab(name);
  // A lab PC stays up and stays known: it is switched off at the PC, forgotten with 'lab forget'.
  if (rec?.remote) return false;
  if (rec) {
    try {
      // Awake for the power-off, and never paused again: nothing may hold a lab that is going away.
      if (rec.clock === 'dilated') await qmpCommand(p.qmpSocket, 'cont').catch(() => undefined);
      const ch = await Channel.open(p.socket, labKey(name), { timeoutMs: 3000 });
      await ch.call('poweroff', {}, 5000).catch(() => undefined);
      ch.close();
    } catch {
      // Busy or unresponsive: qemu is stopped below either way.
    }
    for (const sig of ['SIGTERM', 'SIGKILL'] as const) {
      for (let i = 0; i < 50 && alive(rec.pid); i++) await new Promise((r) => setTimeout(r, 100));
      if (alive(rec.pid)) process.kill(rec.pid, sig);
    }
  }
  rmSync(p.dir, { recursive: true, force: true });
  return rec !== null;
}
