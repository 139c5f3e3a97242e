// qemu's command line for a lab, and the accelerator choice. The agent's channel key reaches the
// guest through fw_cfg from a root-only file, so it never shows in `ps`.

export type Accel = 'kvm' | 'tcg';

/**
 * The guest's clock. `realtime`: guest time follows the host's wall clock, so under TCG the guest's
 * timers fire late whenever emulation falls behind. `dilated`: qemu's instruction counter drives
 * guest time (1 instruction = 1 ns), so the guest's timers fire exactly on guest time however slow or
 * loaded the host is, and wall time stretches instead.
 */
export type LabClock = 'realtime' | 'dilated';

export interface QemuOptions {
  name: string;
  accel: Accel;
  clock: LabClock;
  cpus: number;
  /** The guest CPU model under TCG (KVM always passes the host's through); default TCG_CPU. */
  cpuModel?: string;
  memMb: number;
  vmlinuz: string;
  initrd: string;
  socket: string;
  /** QMP, for pausing a dilated lab between uses (see awake.ts). */
  qmpSocket: string;
  keyFile: string;
  consoleLog: string;
  pidFile: string;
  /**
   * A bump in the wire: two virtio-net ports on these host taps (qemu creates them), the guest's
   * eth0 (a) and eth1 (b) in this order. Without it the lab has no network device at all.
   */
  wireTaps?: { a: string; b: string };
  /** Module parameters the guest kernel boots with (`tcp_cubic.bic_scale=7`): load-time stack parameters. */
  kernelArgs?: readonly string[];
}

/** Guest kernel command line. tsc as clocksource measured slightly faster under TCG. */
export const KERNEL_CMDLINE = 'console=ttyS0 panic=-1 quiet loglevel=4 clocksource=tsc tsc=reliable';

/** Only `module.param=integer`: the command line is one string, and nothing else may ride in it. */
const MODULE_PARAM_ARG = /^[a-z0-9_]+\.[a-z0-9_]+=-?[0-9]+$/;

/** The guest kernel's command line with a run's module parameters, sorted so one set gives one line. */
export function kernelCmdline(args: readonly string[] = []): string {
  const bad = args.find((a) => !MODULE_PARAM_ARG.test(a));
  if (bad !== undefined) throw new Error(`kernel argument '${bad}' is not module.parameter=integer`);
  return [KERNEL_CMDLINE, ...[...new Set(args)].sort()].join(' ');
}

/**
 * The guest CPU under TCG: every feature TCG emulates. Turning off ERMS and FSRM (the guest kernel
 * then copies eight bytes a step instead of `rep movsb`) changed nothing measurable: guest CPU
 * 49.1 % against 49.6 %, pace ratio 1.13 (95 % t interval 0.58 to 1.67), 3 pairs of 16 Reno streams
 * at 100 Mbit/s (bench/results/2026-11-27T21-47-10-674Z-vm.md, `npm run bench -- --only cpumodel`).
 */
export const TCG_CPU = 'max';

/** The -cpu argument a lab gets. */
export function cpuArg(accel: Accel, model: string | undefined): string {
  return accel === 'kvm' ? 'host' : (model ?? TCG_CPU);
}

/**
 * icount: shift=0 is one guest instruction per ns, the fastest guest CPU icount offers. sleep=off lets
 * an idle guest jump straight to its next timer instead of waiting for it in wall time, so idle
 * stretches (RTTs, pauses) cost no wall time. icount runs every vCPU on one host thread, and under
 * qemu 7.2 a second vCPU never comes up (the guest hangs in SMP bring-up): dilated labs have 1 vCPU.
 */
export const ICOUNT = 'shift=0,sleep=off';

export function qemuArgv(o: QemuOptions): string[] {
  if (o.clock === 'dilated' && o.accel !== 'tcg') throw new Error('a dilated clock needs TCG (icount)');
  if (o.clock === 'dilated' && o.cpus !== 1) throw new Error('a dilated lab has exactly 1 vCPU');
  return [
    'qemu-system-x86_64',
    '-name',
    `lfnlab-${o.name}`,
    '-accel',
    o.accel,
    ...(o.clock === 'dilated' ? ['-icount', ICOUNT] : []),
    '-cpu',
    cpuArg(o.accel, o.cpuModel),
    '-smp',
    String(o.cpus),
    '-m',
    `${o.memMb}M`,
    '-nodefaults',
    '-no-user-config',
    '-display',
    'none',
    '-no-reboot',
    '-kernel',
    o.vmlinuz,
    '-initrd',
    o.initrd,
    '-append',
    kernelCmdline(o.kernelArgs),
    '-serial',
    `file:${o.consoleLog}`,
    '-device',
    'virtio-serial-pci,id=vser0',
    '-chardev',
    `socket,id=ctl,path=${o.socket},server=on,wait=off`,
    '-device',
    'virtserialport,bus=vser0.0,chardev=ctl,name=lfnlab.ctl',
    '-fw_cfg',
    `name=opt/lfnlab/key,file=${o.keyFile}`,
    '-qmp',
    `unix:${o.qmpSocket},server=on,wait=off`,
    '-pidfile',
    o.pidFile,
    ...(o.wireTaps ? wireNics(o.wireTaps) : ['-nic', 'none']),
  ];
}

/** Fixed MACs, so a port's frames name it in a capture; locally administered (52:54:00 is qemu's). */
function wireNics(taps: { a: string; b: string }): string[] {
  return (['a', 'b'] as const).flatMap((side, i) => [
    '-netdev',
    `tap,id=wire${side},ifname=${taps[side]},script=no,downscript=no`,
    '-device',
    `virtio-net-pci,netdev=wire${side},mac=52:54:00:1f:00:0${i + 1}`,
  ]);
}
