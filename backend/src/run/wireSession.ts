// A run through a bump in the wire talks to two agents: the lab's (the wire, its stages and
// samplers) and the lab host's (the external hosts: their namespaces, iperf3, TCP samplers, the
// RTT probe). The plan marks what runs on the hosts (`on: 'hosts'`); this session sends each
// command, process and timetable item to its agent, so the run's steps stay those of any run.
// The lab's clock stays the run's clock: the hosts' timetable starts at the same moment, and their
// exits and fired items are put on the lab's clock by the two t0s.
import type { Cmd, Plan, Proc } from '@lfnlab/emulator';
import type { Channel, ExitEvent, FiredEvent, OutputEvent } from '@lfnlab/lab-images';
import { LabSession, type StepResult, type TimetableItem, type TimetableStart } from './session.js';

/** Where the lab put t0, and where the hosts did (their CLOCK_REALTIME, for their samplers' stamps). */
export interface WireTimetableStart extends TimetableStart {
  hosts: TimetableStart;
}

export class WireSession extends LabSession {
  readonly hosts: LabSession;
  private readonly onHostsSide: Set<string>;
  /** Host-side monotonic ms to add to put a host time on the lab's monotonic clock. */
  private hostsToLabMs = 0;

  constructor(lab: Channel, hostsChannel: Channel, plan: Plan) {
    super(lab);
    this.hosts = new LabSession(hostsChannel);
    const procs: (Proc | { name: string; on?: 'hosts' })[] = [
      ...plan.servers,
      ...plan.clients,
      ...plan.samplers,
    ];
    this.onHostsSide = new Set(procs.filter((p) => p.on === 'hosts').map((p) => p.name));
  }

  /** Both channels: either closing ends the run. */
  get channels(): Channel[] {
    return [this.channel, this.hosts.channel];
  }

  override get lost(): Error | null {
    return super.lost ?? this.hosts.lost;
  }

  override detach(): void {
    super.detach();
    this.hosts.detach();
  }

  /** In order, each run of consecutive commands on its own side. */
  override async exec(cmds: Cmd[], opts: { stopOnError?: boolean } = {}): Promise<StepResult[]> {
    const out: StepResult[] = [];
    for (let i = 0; i < cmds.length; ) {
      const side = cmds[i]?.on;
      let j = i;
      while (j < cmds.length && cmds[j]?.on === side) j++;
      const part = cmds.slice(i, j);
      out.push(...(await (side === 'hosts' ? this.hosts.exec(part, opts) : super.exec(part, opts))));
      i = j;
    }
    return out;
  }

  override spawn(proc: Pick<Proc, 'name' | 'argv'>, opts: { stream?: boolean } = {}): Promise<number> {
    return this.onHostsSide.has(proc.name) ? this.hosts.spawn(proc, opts) : super.spawn(proc, opts);
  }

  private onHosts(it: TimetableItem): boolean {
    if ('spawn' in it) return this.onHostsSide.has(it.spawn.name);
    const sides = new Set(it.exec.map((c) => c.on === 'hosts'));
    if (sides.size > 1) throw new Error(`timetable item ${it.tag} mixes lab and host commands`);
    return sides.has(true);
  }

  override async schedule(items: TimetableItem[], leadMs: number): Promise<WireTimetableStart> {
    const hostItems = items.filter((it) => this.onHosts(it));
    const labItems = items.filter((it) => !this.onHosts(it));
    // Sent together, so both sides pick their t0 the same lead after the same moment.
    const [lab, hosts] = await Promise.all([
      super.schedule(labItems, leadMs),
      this.hosts.schedule(hostItems, leadMs),
    ]);
    this.hostsToLabMs = lab.t0MonoMs - hosts.t0MonoMs;
    return { ...lab, hosts };
  }

  override onFired(fn: (e: FiredEvent) => void): () => void {
    const offLab = super.onFired(fn);
    const offHosts = this.hosts.onFired((e) => fn({ ...e, monoMs: e.monoMs + this.hostsToLabMs }));
    return () => {
      offLab();
      offHosts();
    };
  }

  override exited(name: string): Promise<ExitEvent> {
    if (!this.onHostsSide.has(name)) return super.exited(name);
    return this.hosts
      .exited(name)
      .then((e) => (e.monoMs === undefined ? e : { ...e, monoMs: e.monoMs + this.hostsToLabMs }));
  }

  override onOutput(fn: (e: OutputEvent) => void): () => void {
    const offLab = super.onOutput(fn);
    const offHosts = this.hosts.onOutput(fn);
    return () => {
      offLab();
      offHosts();
    };
  }

  override signal(name: string, signal: 'TERM' | 'KILL' | 'INT'): Promise<unknown> {
    return this.onHostsSide.has(name) ? this.hosts.signal(name, signal) : super.signal(name, signal);
  }

  override async reset(): Promise<{ killed: string[]; namespaces: string[]; errors: string[] }> {
    const [lab, hosts] = await Promise.all([super.reset(), this.hosts.reset()]);
    return {
      killed: [...lab.killed, ...hosts.killed],
      namespaces: [...lab.namespaces, ...hosts.namespaces],
      errors: [...lab.errors, ...hosts.errors],
    };
  }

  /** The lab's report, with the stacks the flows can use: the external hosts' kernel's. */
  override async info<T = Record<string, unknown>>(): Promise<T> {
    const [lab, hosts] = await Promise.all([
      super.info<Record<string, unknown>>(),
      this.hosts.info<{ kernel: string; stacksAvailable: string[] }>(),
    ]);
    return {
      ...lab,
      stacksAvailable: hosts.stacksAvailable,
      labStacksAvailable: lab.stacksAvailable,
      externalHosts: { kernel: hosts.kernel, stacksAvailable: hosts.stacksAvailable },
    } as T;
  }
}
