// qemu's command line for a lab, and the accelerator choice. The agent's channel key reaches the
// guest through fw_cfg from a root-only file, so it never shows in `ps`.

export type Accel = 'kvm' | 'tcg';

export interface QemuOptions {
  name: string;
  accel: Accel;
  cpus: number;
  memMb: number;
  vmlinuz: string;
  initrd: string;
  socket: string;
  keyFile: string;
  consoleLog: string;
  pidFile: string;
}

/** Guest kernel command line. tsc as clocksource measured slightly faster under TCG. */
export const KERNEL_CMDLINE = 'console=ttyS0 panic=-1 quiet loglevel=4 clocksource=tsc tsc=reliable';

export function qemuArgv(o: QemuOptions): string[] {
  return [
    'qemu-system-x86_64',
    '-name',
    `lfnlab-${o.name}`,
    '-accel',
    o.accel,
    '-cpu',
    o.accel === 'kvm' ? 'host' : 'max',
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
    KERNEL_CMDLINE,
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
    '-pidfile',
    o.pidFile,
    '-nic',
    'none',
  ];
}
