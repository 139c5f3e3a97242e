import { connectLab, ensureImage, LabBusyError, labDown, labUp, readLab } from '@lfnlab/lab-images';
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
  summary: 'start, inspect or stop the lab VM (up | status | down)',
  usage: `usage: lfnlab lab up|status|down [--name NAME] [--accel auto|kvm|tcg] [--clock auto|realtime|dilated] [--cpus N] [--mem MiB] [--json]

  up       build the image if needed and boot it (KVM where it really boots, else TCG);
           prints the boot time
  status   whether the lab runs, its accelerator, kernel, stacks, and what is running in it
  down     power the lab off (everything in it is stopped first)

  --name NAME      lab name (default: default)
  --accel MODE     auto (default; also $LFNLAB_ACCEL), kvm or tcg
  --clock MODE     auto (default; also $LFNLAB_CLOCK): dilated under TCG, realtime under KVM.
                   dilated: qemu's instruction counter drives the guest's clock, so its timers
                   fire on time however slow the host is; wall time stretches instead (1 vCPU)
  --cpus N         vCPUs (default: min(host cores, 2); a dilated lab has 1)
  --mem MiB        memory (default: 2048)
  --json           status as JSON
  -h, --help       this text`,
  options: {
    name: { type: 'string' },
    accel: { type: 'string' },
    clock: { type: 'string' },
    cpus: { type: 'string' },
    mem: { type: 'string' },
    json: { type: 'boolean' },
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
      });
      console.log(
        `lab '${name}' up: ${rec.accel.toUpperCase()}, ${rec.clock} clock, ${rec.cpus} vCPU, ${rec.memMb} MiB, image ${rec.imageId}, ready in ${(rec.bootMs / 1000).toFixed(1)} s (started ${rec.startedAt})`,
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
        `lab '${name}': ${state}, ${rec.accel.toUpperCase()}, ${rec.clock ?? 'realtime'} clock, ${rec.cpus} vCPU, ${rec.memMb} MiB, pid ${rec.pid}, image ${rec.imageId}, up since ${rec.startedAt} (booted in ${(rec.bootMs / 1000).toFixed(1)} s)`,
      );
      if (info) {
        const failed = info.boot.modules.filter((m) => !m.ok);
        console.log(`  kernel ${info.kernel}, clocksource ${info.clocksource}`);
        console.log(`  stacks: ${info.stacksAvailable.join(' ')}`);
        if (failed.length) for (const m of failed) console.log(`  FAILED to load ${m.name}: ${m.error}`);
        console.log(
          `  namespaces: ${info.namespaces.join(' ') || 'none'}; processes: ${info.processes.map((p) => p.name).join(' ') || 'none'}`,
        );
      } else if (state === 'busy') {
        console.log('  another lfnlab process holds the control channel (a run is probably in progress)');
      }
      return 0;
    }
    if (action === 'down') {
      const was = await labDown(name);
      console.log(was ? `lab '${name}' powered off` : `lab '${name}' was not running`);
      return 0;
    }
    throw new UsageError(`lab needs an action: up, status or down\n\n${this.usage}`);
  },
};
