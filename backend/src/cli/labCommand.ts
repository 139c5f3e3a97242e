import {
  bootedKernelArgs,
  buildIso,
  connectLab,
  ensureImage,
  forgetLabPc,
  isoProblems,
  LabBusyError,
  type LabPcNetwork,
  labDown,
  labUp,
  readLab,
} from '@lfnlab/lab-images';
import { type Command, UsageError } from './args.js';

interface Info {
  kernel: string;
  cpus: number;
  clocksource: string;
  stacksAvailable: string[];
  namespaces: string[];
  processes: { name: string }[];
  boot: { modules: { name: string; ok: boolean; error?: string }[] };
}

export const labCommand: Command = {
  name: 'lab',
  summary: 'start, inspect or stop the lab VM; write a lab PC ISO (up | status | down | iso | forget)',
  usage: `usage: lfnlab lab up|status|down [--name NAME] [--accel auto|kvm|tcg] [--clock auto|realtime|dilated] [--cpus N] [--mem MiB] [--wire] [--json]
       lfnlab lab iso --name NAME (--address A.B.C.D/P [--gateway A.B.C.D] | --dhcp --connect HOST)
                      [--interface PORT] [--port N] [--out FILE]
       lfnlab lab forget --name NAME

  up       build the image if needed and boot it (KVM where it really boots, else TCG);
           prints the boot time
  status   whether the lab runs, its accelerator, kernel, stacks, and what is running in it
  down     power the lab off (everything in it is stopped first)
  iso      write a bootable ISO (BIOS and UEFI; CD or USB stick) that makes a PC the lab NAME:
           the same kernel, stacks and agent, its control channel TLS on the network (this
           host's lab CA signs the PC's certificate and this host's). Runs then use --lab NAME
  forget   drop a lab PC's record and key (write a new ISO to use the PC again)

  --name NAME      lab name (default: default)
  --accel MODE     auto (default; also $LFNLAB_ACCEL), kvm or tcg
  --clock MODE     auto (default; also $LFNLAB_CLOCK): dilated under TCG, realtime under KVM.
                   dilated: qemu's instruction counter drives the guest's clock, so its timers
                   fire on time however slow the host is; wall time stretches instead (1 vCPU)
  --cpus N         vCPUs (default: min(host cores, 2); a dilated lab has 1)
  --mem MiB        memory (default: 2048)
  --wire           up: two wire ports on host taps, for the lab as a bump in the wire
                   (docs/WIRE.md; a run with a wire spec boots them by itself)
  --json           status as JSON
  --address A/P    iso: the PC's fixed address with prefix length (10.77.0.2/24)
  --gateway A      iso: its default route
  --dhcp           iso: the PC asks DHCP for its address (then --connect is needed)
  --connect HOST   iso: the name or address this host reaches the PC at (default: --address)
  --interface PORT iso: the PC's port for the control channel (default: its first ethernet port)
  --port N         iso: the agent's TCP port (default 7600)
  --out FILE       iso: where to write it (default: lfnlab-NAME.iso)
  -h, --help       this text`,
  options: {
    name: { type: 'string' },
    accel: { type: 'string' },
    clock: { type: 'string' },
    cpus: { type: 'string' },
    mem: { type: 'string' },
    wire: { type: 'boolean' },
    json: { type: 'boolean' },
    address: { type: 'string' },
    gateway: { type: 'string' },
    dhcp: { type: 'boolean' },
    connect: { type: 'string' },
    interface: { type: 'string' },
    port: { type: 'string' },
    out: { type: 'string' },
  },
  async run(values, positionals) {
    const action = positionals[0];
    const name = typeof values.name === 'string' ? values.name : 'default';
    if (action === 'up') {
      const accel = (values.accel as string | undefined) ?? undefined;
      if (accel && !['auto', 'kvm', 'tcg'].includes(accel))
        throw new UsageError(`--accel must be auto, kvm or tcg (got ${accel})`);
      const clock = (values.clock as string | undefined) ?? undefined;
      if (clock && !['auto', 'realtime', 'dilated'].includes(clock))
        throw new UsageError(`--clock must be auto, realtime or dilated (got ${clock})`);
      const image = await ensureImage();
      const rec = await labUp({
        name,
        image,
        accel: accel as 'auto' | 'kvm' | 'tcg' | undefined,
        clock: clock as 'auto' | 'realtime' | 'dilated' | undefined,
        cpus: values.cpus ? Number(values.cpus) : undefined,
        memMb: values.mem ? Number(values.mem) : undefined,
        wire: values.wire === true,
      });
      console.log(
        `lab '${name}' up: ${rec.accel.toUpperCase()}, ${rec.clock} clock, ${rec.cpus} vCPU, ${rec.memMb} MiB, image ${rec.imageId}, ready in ${(rec.bootMs / 1000).toFixed(1)} s (started ${rec.startedAt})${rec.wireTaps ? `; wire ports on host taps ${rec.wireTaps.a} (a) and ${rec.wireTaps.b} (b)` : ''}`,
      );
      return 0;
    }
    if (action === 'status') {
      const rec = readLab(name);
      if (!rec) {
        console.log(values.json ? JSON.stringify({ name, state: 'down' }) : `lab '${name}' is down`);
        return 3;
      }
      let info: Info | null = null;
      let state = 'up';
      try {
        const ch = await connectLab(name, { timeoutMs: 3000 });
        info = await ch.call<Info>('info');
        ch.close();
      } catch (err) {
        state = err instanceof LabBusyError ? 'busy' : 'unresponsive';
      }
      if (values.json) {
        console.log(JSON.stringify({ name, state, lab: rec, info }, null, 2));
        return 0;
      }
      console.log(
        rec.remote
          ? `lab '${name}': ${state}, lab PC at ${rec.remote.host}:${rec.remote.port}, ${info ? `${info.cpus} CPUs, ` : ''}image ${rec.imageId} (ISO written ${rec.startedAt})`
          : `lab '${name}': ${state}, ${rec.accel.toUpperCase()}, ${rec.clock ?? 'realtime'} clock, ${rec.cpus} vCPU, ${rec.memMb} MiB, pid ${rec.pid}, image ${rec.imageId}, up since ${rec.startedAt} (booted in ${(rec.bootMs / 1000).toFixed(1)} s)`,
      );
      if (info) {
        const failed = info.boot.modules.filter((m) => !m.ok);
        const booted = rec.remote ? [] : bootedKernelArgs(rec.argv);
        console.log(
          `  kernel ${info.kernel}, clocksource ${info.clocksource}${booted.length ? `, booted with ${booted.join(' ')}` : ''}`,
        );
        console.log(`  stacks: ${info.stacksAvailable.join(' ')}`);
        if (rec.wireTaps)
          console.log(`  wire ports: eth0 on host tap ${rec.wireTaps.a}, eth1 on ${rec.wireTaps.b}`);
        if (failed.length) for (const m of failed) console.log(`  FAILED to load ${m.name}: ${m.error}`);
        console.log(
          `  namespaces: ${info.namespaces.join(' ') || 'none'}; processes: ${info.processes.map((p) => p.name).join(' ') || 'none'}`,
        );
      } else if (state === 'busy') {
        console.log('  another lfnlab process holds the control channel (a run is probably in progress)');
      }
      return 0;
    }
    if (action === 'iso') {
      if (typeof values.name !== 'string')
        throw new UsageError("--name: needed, the lab PC's name (a DNS label)");
      if (values.dhcp && values.address)
        throw new UsageError('--address and --dhcp: give one (a fixed address, or DHCP)');
      if (!values.dhcp && typeof values.address !== 'string')
        throw new UsageError('--address: needed (10.77.0.2/24), or --dhcp with --connect');
      const network: LabPcNetwork = {
        address: values.dhcp ? 'dhcp' : (values.address as string),
        ...(typeof values.gateway === 'string' ? { gateway: values.gateway } : {}),
        ...(typeof values.interface === 'string' ? { interface: values.interface } : {}),
      };
      const opts = {
        name,
        network,
        ...(typeof values.connect === 'string' ? { host: values.connect } : {}),
        ...(values.port !== undefined ? { port: Number(values.port) } : {}),
      };
      const problems = isoProblems(opts);
      if (problems.length) throw new UsageError(problems.join('\n'));
      const image = await ensureImage();
      const rec = await buildIso({
        ...opts,
        image,
        out: typeof values.out === 'string' ? values.out : `lfnlab-${name}.iso`,
        log: (l) => console.error(l),
      });
      console.log(
        `lab PC '${name}': ${rec.iso?.path} (${((rec.iso?.bytes ?? 0) / 1e6).toFixed(1)} MB, sha256 ${rec.iso?.sha256.slice(0, 16)}…), image ${rec.imageId}; boot it, then use --lab ${name} (agent at ${rec.host}:${rec.port})`,
      );
      return 0;
    }
    if (action === 'forget') {
      const had = forgetLabPc(name);
      console.log(had ? `lab PC '${name}' forgotten` : `no lab PC '${name}'`);
      return had ? 0 : 3;
    }
    if (action === 'down') {
      if (readLab(name)?.remote) {
        console.log(`lab '${name}' is a lab PC: switch it off at the PC ('lab forget' drops its record)`);
        return 0;
      }
      const was = await labDown(name);
      console.log(was ? `lab '${name}' powered off` : `lab '${name}' was not running`);
      return 0;
    }
    throw new UsageError(`lab needs an action: up, status, down, iso or forget\n\n${this.usage}`);
  },
};
