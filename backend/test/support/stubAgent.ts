// A lab agent for tests without qemu: every command succeeds at once, idle-RTT probes answer with
// the RTT a test chooses (plus a fixed emulator excess), processes exit when the flows would have
// or when signalled. It stands in for lab-images' Channel.
import { EventEmitter } from 'node:events';
import type { FiredEvent, LabImage, LabRecord } from '@lfnlab/lab-images';

/** The image a stub lab claims to run: enough of a manifest for the run's environment record. */
export const STUB_IMAGE = {
  id: 'stub',
  manifest: {
    kernel: { abi: '6.1.0-stub' },
    tools: [],
    agent: { sourceHash: 'x', goVersion: 'go' },
    samplers: { sourceHash: 'x' },
    modules: { count: 0, boot: [] },
  },
} as unknown as LabImage;

/** The lab record of a stub lab (labUp's answer). */
export const STUB_LAB = {
  name: 'stub',
  pid: 1,
  accel: 'kvm',
  clock: 'realtime',
  imageId: 'stub',
  cpus: 2,
  memMb: 1024,
  startedAt: new Date(0).toISOString(),
  bootMs: 1,
  argv: [],
  qemuVersion: 'stub',
} satisfies LabRecord;

export type Step = { argv: string[] };
type Item = { tag: string; atMs: number; spawn?: { name: string }; exec?: { steps: Step[] } };

/** What the emulator adds to the configured RTT in the stub lab's pings, ms. */
export const EXCESS_MS = 1.3;

/** An agent that runs nothing: every command succeeds, pings answer, processes exit when told to. */
export class StubAgent extends EventEmitter {
  labClock = undefined;
  /** Every command the lab was asked to run: at once (at: null) or from the timetable at its time. */
  readonly commands: { at: number | null; tag: string | null; line: string }[] = [];
  private spawned = new Set<string>();
  /** How many times the lab was reset (every namespace and process removed). */
  resets = 0;
  closed = false;
  /**
   * What the emulator adds to the RTT right now, ms: EXCESS_MS on a dumbbell just built, none once
   * the delay stages were changed (calibrated). A test may set it to make a kept calibration drift.
   */
  excessMs = EXCESS_MS;
  constructor(private readonly rttOf: (argv: string[]) => number | undefined) {
    super();
  }
  private result(s: Step) {
    const rtt = this.rttOf(s.argv);
    const ms = (rtt ?? 0) + this.excessMs;
    const stdout =
      rtt !== undefined
        ? `10 packets transmitted, 10 received, 0% packet loss\nrtt min/avg/max/mdev = ${ms}/${ms}/${ms}/0.01 ms`
        : '';
    return { argv: s.argv, code: 0, stdout, stderr: '', ms: 1 };
  }
  private exit(name: string, monoMs = 0) {
    if (!this.spawned.delete(name)) return;
    setImmediate(() =>
      this.emit('exit', { name, code: 0, signal: '', ms: 1, stdout: '', stderr: '', monoMs }),
    );
  }
  /** An agent that dropped the session: every request times out. */
  silent = false;
  async call(op: string, body: Record<string, unknown> = {}): Promise<unknown> {
    if (this.silent) throw new Error(`${op} timed out after 10 s`);
    switch (op) {
      case 'reset':
        this.resets += 1;
        return { killed: [], namespaces: [], errors: [] };
      case 'ping':
        return { running: this.spawned.size, monotonicMs: 0 };
      case 'info':
        return { kernel: '6.1.0-stub', stacksAvailable: ['cubic', 'reno', 'bbr'], boot: { modules: [] } };
      case 'exec': {
        const steps = body.steps as Step[];
        for (const s of steps) {
          const line = s.argv.join(' ');
          this.commands.push({ at: null, tag: null, line });
          if (line.startsWith('ip netns add')) this.excessMs = EXCESS_MS;
          if (line.includes('qdisc change') && line.includes(' delay ')) this.excessMs = 0;
        }
        return { ok: true, results: steps.map((s) => this.result(s)) };
      }
      case 'spawn':
        this.spawned.add(body.name as string);
        return { pid: 1 };
      case 'signal':
        this.exit(body.name as string);
        return {};
      case 'schedule': {
        const items = body.items as Item[];
        setImmediate(() => {
          for (const it of items) {
            if (it.spawn) this.spawned.add(it.spawn.name);
            for (const s of it.exec?.steps ?? [])
              this.commands.push({ at: it.atMs, tag: it.tag, line: s.argv.join(' ') });
            const fired: FiredEvent = {
              tag: it.tag,
              atMs: it.atMs,
              monoMs: it.atMs,
              tMs: it.atMs,
              ok: true,
              results: (it.exec?.steps ?? []).map((s) => this.result(s)),
            };
            this.emit('fired', fired);
          }
          // Clients, cross traffic and their servers end once the flows have run; samplers when signalled.
          const samplers = new Set(items.filter((it) => it.tag.startsWith('sampler:')).map((it) => it.tag));
          for (const name of [...this.spawned]) if (!samplers.has(`sampler:${name}`)) this.exit(name, 20_000);
        });
        return { t0MonoMs: 0, t0RealtimeMs: Date.now() };
      }
      default:
        return {};
    }
  }
  close() {
    this.closed = true;
    this.emit('close', new Error('control channel closed'));
  }
}
