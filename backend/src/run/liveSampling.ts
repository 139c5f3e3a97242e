// Samplers during a run: started before the first flow, stopped after the last, their streamed
// output turned into typed samples as it arrives (to the run directory and any live listener).
import type { Plan } from '@lfnlab/emulator';
import type { ExitEvent, OutputEvent } from '@lfnlab/lab-images';
import { SampleDemux, type SamplerCounters } from './demux.js';
import type { RunRecorder } from './record.js';
import type { Sample } from './samples.js';
import type { LabSession } from './session.js';

export class LiveSampling {
  private demux: SampleDemux | undefined;
  private exits = new Map<string, Promise<ExitEvent>>();
  readonly samples: Sample[] = [];

  constructor(
    private readonly session: LabSession,
    private readonly plan: Plan,
    private readonly rec: RunRecorder,
    private readonly onSample?: (s: Sample) => void,
  ) {}

  /** `t0RealMs`: the lab clock at traffic start; sample times are seconds from it. */
  async start(t0RealMs: number): Promise<void> {
    this.demux = new SampleDemux(
      this.plan,
      t0RealMs,
      (s) => {
        this.samples.push(s);
        this.rec.sample(s);
        this.onSample?.(s);
      },
      (name, text) => this.rec.raw(name, text),
    );
    this.session.onOutput((e: OutputEvent) => this.demux?.feed(e.name, e.data));
    for (const s of this.plan.samplers) {
      const exit = this.session.exited(s.name).then((e) => {
        if (e.stdout) this.demux?.feed(s.name, e.stdout);
        this.demux?.end(s.name);
        return e;
      });
      // When the lab dies the exit never comes; stop() must not wait for it nor the process crash.
      exit.catch(() => undefined);
      this.exits.set(s.name, exit);
      await this.session.spawn(s, { stream: true });
    }
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
