import { describe, expect, it } from 'vitest';
import { signFrame, verifyFrame } from './channel.js';
import { bootedKernelArgs, restartReason } from './lab.js';
import { parseLdd } from './ldd.js';
import { bootModules, moduleClosure, moduleName, parseModulesDep } from './modules.js';
import { KERNEL_CMDLINE, kernelCmdline, qemuArgv, TCG_CPU } from './qemu.js';
import { canonical } from './stage.js';

const key = Buffer.from('k'.repeat(64));

describe('control channel frames', () => {
  it('round-trips a signed frame and rejects any change to it', () => {
    const line = signFrame(key, { v: 1, sid: 's', seq: 3, type: 'exec', id: 9, body: { steps: [] } });
    expect(verifyFrame(key, line)).toMatchObject({ type: 'exec', id: 9, seq: 3 });
    expect(verifyFrame(key, line.replace('"seq":3', '"seq":4'))).toBeNull();
    expect(verifyFrame(Buffer.from('x'.repeat(64)), line)).toBeNull();
    expect(verifyFrame(key, '{"v":1}')).toBeNull();
  });
});

describe('image contents', () => {
  const dep = parseModulesDep(
    [
      'kernel/net/ipv4/tcp_bic.ko:',
      'kernel/net/sched/sch_netem.ko:',
      'kernel/net/sched/act_ct.ko: kernel/net/netfilter/nf_conntrack.ko',
      'kernel/net/netfilter/nf_conntrack.ko: kernel/lib/libcrc32c.ko',
      'kernel/net/sched/sch_cake.ko: kernel/lib/foo.ko',
      'kernel/lib/foo.ko:',
      'kernel/drivers/gpu/drm/i915/i915.ko: kernel/lib/foo.ko',
    ].join('\n'),
  );
  it('keeps the lab modules and their dependencies, not drivers or conntrack', () => {
    expect(moduleClosure(dep)).toEqual([
      'kernel/lib/foo.ko',
      'kernel/net/ipv4/tcp_bic.ko',
      'kernel/net/sched/sch_cake.ko',
      'kernel/net/sched/sch_netem.ko',
    ]);
  });
  it('loads stacks and dumbbell parts at boot, only those the image has', () => {
    const avail = new Set(['tcp_bic', 'veth', 'sch_netem', 'ifb']);
    expect(bootModules(['tcp_bic', 'tcp_missing'], avail)).toEqual(['tcp_bic', 'veth', 'ifb', 'sch_netem']);
    expect(moduleName('kernel/net/ipv4/tcp-x.ko.xz')).toBe('tcp_x');
  });
  it('reads ldd output and maps paths into the merged /usr layout', () => {
    const ldd =
      '\tlinux-vdso.so.1 (0x00007ffd)\n\tlibiperf.so.0 => /lib/x86_64-linux-gnu/libiperf.so.0 (0x1)\n\t/lib64/ld-linux-x86-64.so.2 (0x2)\n';
    expect(parseLdd(ldd)).toEqual(['/lib/x86_64-linux-gnu/libiperf.so.0', '/lib64/ld-linux-x86-64.so.2']);
    expect(canonical('/lib64/ld-linux-x86-64.so.2')).toBe('usr/lib64/ld-linux-x86-64.so.2');
    expect(canonical('/usr/sbin/tc')).toBe('usr/sbin/tc');
  });
});

describe('qemu command line', () => {
  const opts = {
    name: 'default',
    accel: 'tcg',
    clock: 'realtime',
    cpus: 2,
    memMb: 2048,
    vmlinuz: '/c/vmlinuz',
    initrd: '/c/initrd.cpio',
    socket: '/run/lfnlab/labs/default/ctl.sock',
    qmpSocket: '/run/lfnlab/labs/default/qmp.sock',
    keyFile: '/run/lfnlab/labs/default/key',
    consoleLog: '/run/lfnlab/labs/default/console.log',
    pidFile: '/run/lfnlab/labs/default/qemu.pid',
  } as const;
  const argv = qemuArgv(opts);
  it('has no network device and talks only over a Unix socket', () => {
    expect(argv).toContain('none');
    expect(argv[argv.indexOf('-nic') + 1]).toBe('none');
    expect(argv.join(' ')).not.toMatch(/hostfwd|tcp:|-netdev/);
    expect(argv[argv.indexOf('-chardev') + 1]).toBe(
      'socket,id=ctl,path=/run/lfnlab/labs/default/ctl.sock,server=on,wait=off',
    );
  });
  it('has exactly two virtio-net ports on host taps for a wire, still no other network', () => {
    const wired = qemuArgv({
      ...opts,
      wireTaps: { a: 'lfntx1a', b: 'lfntx1b' },
    });
    expect(wired).not.toContain('-nic');
    const netdevs = wired.flatMap((a, i) => (wired[i - 1] === '-netdev' ? [a] : []));
    expect(netdevs).toEqual([
      'tap,id=wirea,ifname=lfntx1a,script=no,downscript=no',
      'tap,id=wireb,ifname=lfntx1b,script=no,downscript=no',
    ]);
    // In this order the guest names them eth0 (a) and eth1 (b).
    const nics = wired.filter((a) => a.startsWith('virtio-net-pci'));
    expect(nics).toEqual([
      'virtio-net-pci,netdev=wirea,mac=52:54:00:1f:00:01',
      'virtio-net-pci,netdev=wireb,mac=52:54:00:1f:00:02',
    ]);
  });
  it('passes the key by fw_cfg from a file, never on the command line', () => {
    expect(argv[argv.indexOf('-fw_cfg') + 1]).toBe('name=opt/lfnlab/key,file=/run/lfnlab/labs/default/key');
    expect(argv[argv.indexOf('-accel') + 1]).toBe('tcg');
  });
  it("emulates every TCG feature unless another model is asked for; KVM passes the host's", () => {
    const cpu = (a: string[]) => a[a.indexOf('-cpu') + 1];
    expect(cpu(argv)).toBe('max');
    expect(TCG_CPU).toBe('max');
    expect(cpu(qemuArgv({ ...opts, cpuModel: 'qemu64' }))).toBe('qemu64');
    expect(cpu(qemuArgv({ ...opts, accel: 'kvm', cpuModel: 'max' }))).toBe('host');
  });
  it('boots the kernel with the module parameters asked for, sorted, and nothing else', () => {
    const append = (a: string[]) => a[a.indexOf('-append') + 1];
    expect(append(argv)).toBe(KERNEL_CMDLINE);
    const withArgs = qemuArgv({ ...opts, kernelArgs: ['tcp_cubic.bic_scale=7', 'tcp_cdg.window=4'] });
    expect(append(withArgs)).toBe(`${KERNEL_CMDLINE} tcp_cdg.window=4 tcp_cubic.bic_scale=7`);
    expect(bootedKernelArgs(withArgs)).toEqual(['tcp_cdg.window=4', 'tcp_cubic.bic_scale=7']);
    expect(bootedKernelArgs(argv)).toEqual([]);
    // One string reaches the guest kernel: anything but module.param=integer could change its boot.
    expect(() => kernelCmdline(['tcp_cubic.bic_scale=7 init=/bin/sh'])).toThrow(
      /not module.parameter=integer/,
    );
    expect(() => kernelCmdline(['panic=0'])).toThrow(/'panic=0'/);
  });
});

describe('whether a running lab serves a request as it is', () => {
  const running = {
    imageId: 'abc',
    clock: 'dilated' as const,
    argv: ['qemu-system-x86_64', '-cpu', 'max', '-smp', '1'],
  };
  const want = { imageId: 'abc', clock: 'dilated' as const, wire: false, cpu: 'max' };
  it('keeps a lab booted as asked', () => {
    expect(restartReason(running, want)).toBeNull();
  });
  it('restarts one on another image, clock or CPU model, or without the wire ports asked for', () => {
    expect(restartReason(running, { ...want, imageId: 'def' })).toBe(
      'runs image abc; the current image is def',
    );
    expect(restartReason(running, { ...want, clock: 'realtime' })).toBe(
      'runs on a dilated clock; realtime was asked for',
    );
    expect(restartReason(running, { ...want, cpu: 'qemu64' })).toBe('emulates CPU max; qemu64 is asked for');
    expect(restartReason(running, { ...want, wire: true })).toMatch(/^has no wire ports/);
    expect(restartReason({ ...running, wireTaps: { a: 'x', b: 'y' } }, { ...want, wire: true })).toBeNull();
  });
  it('restarts one whose kernel booted with other module parameters, or without those asked for', () => {
    const booted = {
      ...running,
      argv: [...running.argv, '-append', kernelCmdline(['tcp_cubic.bic_scale=7'])],
    };
    expect(restartReason(booted, { ...want, kernelArgs: ['tcp_cubic.bic_scale=7'] })).toBeNull();
    expect(restartReason(running, { ...want, kernelArgs: ['tcp_cubic.bic_scale=7'] })).toBe(
      'booted its kernel with no module parameters; tcp_cubic.bic_scale=7 are asked for',
    );
    // The parameter outlives every run on that lab: a spec without it must not inherit it.
    expect(restartReason(booted, want)).toBe(
      'booted its kernel with tcp_cubic.bic_scale=7; none is asked for',
    );
    expect(restartReason(booted, { ...want, kernelArgs: ['tcp_cubic.bic_scale=41'] })).toMatch(
      /with tcp_cubic.bic_scale=7; tcp_cubic.bic_scale=41 are asked for/,
    );
  });
});
