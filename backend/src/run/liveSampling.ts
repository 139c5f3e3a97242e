// Samplers during a run: started before the first flow, stopped after the last, their streamed
// output turned into typed samples as it arrives (to the run directory and any live listener).
import type { PktTimingWindow, Plan } from '@lfnlab/emulator';
import type { ExitEvent, OutputEvent } from '@lfnlab/lab-images';
import { SampleDemux, type SamplerCounters } from './demux.js';
import type { RunRecorder } from './record.js';
import type { Sample } from './samples.js';
import type { LabSession, TimetableItem } from './session.js';

export class LiveSampling {
  private demux: SampleDemux | undefined;
  private exits = new Map<string, Promise<ExitEvent>>();
  private offOutput: (() => void) | undefined;
  readonly samples: Sample[] = [];

  constructor(
    private readonly session: LabSession,
    private readonly plan: Plan,
    private readonly rec: RunRecorder,
    private readonly onSample?: (s: Sample) => void,
  ) {}

  /** The packet-timing capture's windows so far. */
  get timing(): PktTimingWindow[] {
    return this.demux?.timing ?? [];
  }

  /** When each TCP flow's data began (s from t0), as the tcp sampler saw it. */
  get dataStarts(): Map<string, number> {
    return this.demux?.dataStarts ?? new Map();
  }

  /** Output that arrived before t0 was known; fed to the demux once it is. */
  private early: { name: string; data: string; end?: boolean }[] = [];

  /**
   * The samplers as timetable items that start at once: they are running before t0, which the lab
   * picks a lead time after the timetable arrives. Call `begin` with that t0.
   */
  items(leadMs: number): TimetableItem[] {
    this.offOutput?.();
    this.offOutput = this.session.onOutput((e: OutputEvent) => this.feed(e.name, e.data));
    for (const s of this.plan.samplers) {
      const exit = this.session.exited(s.name).then((e) => {
        if (e.stdout) this.feed(s.name, e.stdout);
        this.feed(s.name, '', true);
        return e;
      });
      // When the lab dies the exit never comes; stop() must not wait for it nor the process crash.
      exit.catch(() => undefined);
      this.exits.set(s.name, exit);
    }
    return this.plan.samplers.map((s) => ({
      tag: `sampler:${s.name}`,
      atMs: -leadMs,
      spawn: { name: s.name, argv: s.argv, stream: true },
    }));
  }

  /**
   * `t0RealMs`: the lab clock at traffic start; sample times are seconds from it. A wire's samplers
   * on the external hosts stamp with the lab host's clock: `hostsT0RealMs` is that clock at the
   * same moment.
   */
  begin(t0RealMs: number, hostsT0RealMs?: number): void {
    this.demux = new SampleDemux(
      this.plan,
      { lab: t0RealMs, hosts: hostsT0RealMs ?? t0RealMs },
      (s) => {
        this.samples.push(s);
        this.rec.sample(s);
        this.onSample?.(s);
      },
      (name, text) => this.rec.raw(name, text),
    );
    for (const e of this.early.splice(0)) this.feed(e.name, e.data, e.end);
  }

  private feed(name: string, data: string, end = false): void {
    if (!this.demux) {
      this.early.push({ name, data, end });
      return;
    }
    if (data) this.demux.feed(name, data);
    if (end) this.demux.end(name);
  }

  /** Stops taking the channel's output (a kept channel carries the next run's samplers too). */
  detach(): void {
    this.offOutput?.();
    this.offOutput = undefined;
  }

  /**
   * Stop every sampler so it writes its closing counters (ping prints its statistics on SIGINT,
   * the native samplers their `#end` record on SIGINT or SIGTERM), then wait for the last output.
   */
  async stop(): Promise<SamplerCounters[]> {
    await Promise.all(
      this.plan.samplers.map((s) => this.session.signal(s.name, 'INT').catch(() => undefined)),
    );
    await Promise.race([
      Promise.allSettled(this.exits.values()),
      new Promise((r) => setTimeout(r, 10_000).unref()),
    ]);
    return [...(this.demux?.counters.values() ?? [])];
  }
}
