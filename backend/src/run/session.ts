// A plan's commands and processes, carried out through the lab's control channel.
import type { Cmd, Proc } from '@lfnlab/emulator';
import { formatArgv } from '@lfnlab/emulator';
import type { Channel, ExitEvent, FiredEvent, OutputEvent } from '@lfnlab/lab-images';

/** One item of a timetable: a process to start or commands to run at `atMs` from t0, on the lab's clock. */
export type TimetableItem =
  | { tag: string; atMs: number; spawn: Pick<Proc, 'name' | 'argv'> & { stream?: boolean } }
  | { tag: string; atMs: number; exec: Cmd[] };

/** Where the lab put t0: its CLOCK_MONOTONIC and CLOCK_REALTIME, ms. */
export interface TimetableStart {
  t0MonoMs: number;
  t0RealtimeMs: number;
}

export interface StepResult {
  argv: string[];
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
  attempts?: number;
  error?: string;
}

export class PlanStepError extends Error {
  constructor(readonly result: StepResult) {
    super(
      `lab command failed (exit ${result.code}${result.error ? `, ${result.error}` : ''}): ${formatArgv(result.argv)}\n${result.stderr.trim()}`,
    );
  }
}

type ExitWaiter = {
  promise: Promise<ExitEvent>;
  resolve: (e: ExitEvent) => void;
  reject: (e: Error) => void;
};

export class LabSession {
  private exits = new Map<string, ExitWaiter>();
  private lostReason: Error | null = null;
  /** Why the channel went away mid-session (qemu died, the agent stopped answering); null while up. */
  get lost(): Error | null {
    return this.lostReason;
  }

  private readonly onExit = (e: ExitEvent) => this.waiter(e.name).resolve(e);
  // A process whose exit can no longer arrive must not be awaited for ever: with the socket gone
  // nothing else holds Node's event loop, and the process would end silently with status 0.
  private readonly onClose = (err: Error) => {
    this.lostReason = err;
    for (const w of this.exits.values()) w.reject(err);
  };

  constructor(readonly channel: Channel) {
    channel.on('exit', this.onExit);
    channel.on('close', this.onClose);
  }

  /**
   * Stops listening to the channel, which outlives this session when a campaign keeps it open
   * between runs: the next run's processes have the same names, and their exits are its own.
   */
  detach(): void {
    this.channel.off('exit', this.onExit);
    this.channel.off('close', this.onClose);
  }

  private waiter(name: string): ExitWaiter {
    let w = this.exits.get(name);
    if (!w) {
      let resolve!: (e: ExitEvent) => void;
      let reject!: (e: Error) => void;
      const promise = new Promise<ExitEvent>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      // Nobody may be awaiting this exit when the channel dies; that is not an unhandled rejection.
      promise.catch(() => undefined);
      w = { promise, resolve, reject };
      if (this.lostReason) reject(this.lostReason);
      this.exits.set(name, w);
    }
    return w;
  }

  /** Run commands in order; the first failure of a command that must succeed throws. */
  async exec(cmds: Cmd[], opts: { stopOnError?: boolean } = {}): Promise<StepResult[]> {
    if (cmds.length === 0) return [];
    const steps = cmds.map((c) => ({
      argv: c.argv,
      stdin: c.stdin,
      allowFail: c.allowFail,
      until: c.until,
      timeoutMs: c.timeoutMs,
    }));
    const stopOnError = opts.stopOnError ?? true;
    const res = await this.channel.call<{ ok: boolean; results: StepResult[] }>(
      'exec',
      { steps, stopOnError },
      600_000,
    );
    if (stopOnError && !res.ok) {
      const bad = res.results.find((r, i) => (r.code !== 0 || r.error) && !cmds[i]?.allowFail);
      if (bad) throw new PlanStepError(bad);
    }
    return res.results;
  }

  async run(cmd: Cmd): Promise<StepResult> {
    const [r] = await this.exec([cmd]);
    return r as StepResult;
  }

  /** Start a supervised process; its exit is awaited with `exited(name)`. */
  async spawn(proc: Pick<Proc, 'name' | 'argv'>, opts: { stream?: boolean } = {}): Promise<number> {
    this.waiter(proc.name); // registered first: a process may exit before spawn's reply arrives
    const r = await this.channel.call<{ pid: number }>('spawn', {
      name: proc.name,
      argv: proc.argv,
      stream: opts.stream ?? false,
    });
    return r.pid;
  }

  /**
   * Hands the lab a timetable: it picks t0 `leadMs` after the timetable arrives and carries out each
   * item at t0 + atMs on its own clock, reporting each as a `fired` event (see onFired). Processes
   * started this way are awaited with `exited(name)` like spawned ones.
   */
  async schedule(items: TimetableItem[], leadMs: number): Promise<TimetableStart> {
    for (const it of items) if ('spawn' in it) this.waiter(it.spawn.name);
    const body = items.map((it) =>
      'spawn' in it
        ? {
            tag: it.tag,
            atMs: it.atMs,
            spawn: { name: it.spawn.name, argv: it.spawn.argv, stream: it.spawn.stream ?? false },
          }
        : {
            tag: it.tag,
            atMs: it.atMs,
            exec: {
              steps: it.exec.map((c) => ({
                argv: c.argv,
                allowFail: c.allowFail,
                until: c.until,
                timeoutMs: c.timeoutMs,
              })),
              stopOnError: true,
            },
          },
    );
    return this.channel.call<TimetableStart>('schedule', { leadMs, items: body });
  }

  onFired(fn: (e: FiredEvent) => void): () => void {
    this.channel.on('fired', fn);
    return () => this.channel.off('fired', fn);
  }

  exited(name: string): Promise<ExitEvent> {
    return this.waiter(name).promise;
  }

  onOutput(fn: (e: OutputEvent) => void): () => void {
    this.channel.on('output', fn);
    return () => this.channel.off('output', fn);
  }

  signal(name: string, signal: 'TERM' | 'KILL' | 'INT'): Promise<unknown> {
    return this.channel.call('signal', { name, signal });
  }

  reset(): Promise<{ killed: string[]; namespaces: string[]; errors: string[] }> {
    return this.channel.call('reset', {}, 60_000);
  }

  info<T = Record<string, unknown>>(): Promise<T> {
    return this.channel.call<T>('info');
  }
}
