// Live messages of each run for browsers: a ring buffer of downsampled samples, events and
// progress, numbered by a strictly increasing `seq`. Storage gets every sample at full rate; the
// hub keeps at most `maxHz` points per second per series, so a late joiner can be sent the whole
// window and a reconnecting client resumes after the last `seq` it saw.
import type { Sample } from '../run/samples.js';

export type LiveEvent = 'queued' | 'started' | 'flow-started' | 'flow-ended' | 'verdict' | 'done' | 'error';

export type LiveMessage =
  | { seq: number; type: 'sample'; sample: Sample }
  | { seq: number; type: 'event'; event: LiveEvent; data: Record<string, unknown> }
  | {
      seq: number;
      type: 'progress';
      /** Lab seconds: under a dilated clock the lab's time runs at its own pace. */
      elapsedS: number;
      totalS: number;
      /** Lab seconds per wall second so far, and the wall seconds left at that pace (when known). */
      dilation?: number | null;
      etaS?: number | null;
    }
  | { seq: number; type: 'caught-up' };

type Unnumbered<T> = T extends unknown ? Omit<T, 'seq'> : never;
export type LiveInput = Unnumbered<LiveMessage>;

/** The series a sample belongs to: one line in a plot. */
export function seriesKey(s: Sample): string {
  switch (s.kind) {
    case 'tcp':
    case 'goodput':
    case 'interval':
    case 'wireflow':
      return `${s.kind}/${s.flow}`;
    case 'queue':
      return `queue/${s.path}/${s.stage}/${s.direction}`;
    case 'rtt':
      return `rtt/${s.path}`;
    case 'udp':
      return `udp/${s.source}`;
    case 'cpu':
      return 'cpu';
  }
}

/**
 * Keeps at most one sample per series in each 1/maxHz slot of run time, so no series exceeds
 * maxHz points in any second, and a sampler at exactly maxHz keeps (nearly) all of its points.
 */
export class Downsampler {
  private readonly last = new Map<string, number>();
  constructor(private readonly maxHz: number) {}

  keep(s: Sample): boolean {
    const key = seriesKey(s);
    const slot = Math.floor(s.t * this.maxHz + 1e-6);
    const prev = this.last.get(key);
    if (prev !== undefined && slot <= prev) return false;
    this.last.set(key, slot);
    return true;
  }
}

export interface RunChannelOptions {
  /** Messages kept for late joiners and reconnects. */
  capacity: number;
  maxHz: number;
}

/** One run's live stream. */
export class RunChannel {
  private readonly ring: LiveMessage[] = [];
  private readonly listeners = new Set<(m: LiveMessage) => void>();
  private readonly down: Downsampler;
  private seq = 0;
  ended = false;

  constructor(private readonly o: RunChannelOptions) {
    this.down = new Downsampler(o.maxHz);
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** A number nobody else gets (for a client's own `caught-up` marker). */
  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  sample(s: Sample): void {
    if (this.down.keep(s)) this.publish({ type: 'sample', sample: s });
  }

  publish(m: LiveInput): void {
    const msg = { ...m, seq: this.nextSeq() } as LiveMessage;
    this.ring.push(msg);
    if (this.ring.length > this.o.capacity) this.ring.splice(0, this.ring.length - this.o.capacity);
    if (msg.type === 'event' && msg.event === 'done') this.ended = true;
    for (const l of this.listeners) l(msg);
  }

  /** Messages after `cursor` still in the window (all of it for cursor 0). */
  since(cursor: number): LiveMessage[] {
    return this.ring.filter((m) => m.seq > cursor);
  }

  subscribe(listener: (m: LiveMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscribers(): number {
    return this.listeners.size;
  }
}

export class LiveHub {
  private readonly channels = new Map<string, RunChannel>();
  private readonly finished: string[] = [];

  constructor(
    private readonly o: RunChannelOptions & {
      /** Ended runs whose window stays in memory for late joiners. */
      keepEnded: number;
    } = { capacity: 20_000, maxHz: 20, keepEnded: 20 },
  ) {}

  get maxHz(): number {
    return this.o.maxHz;
  }

  channel(runId: string): RunChannel | null {
    return this.channels.get(runId) ?? null;
  }

  open(runId: string): RunChannel {
    let c = this.channels.get(runId);
    if (!c) {
      c = new RunChannel(this.o);
      this.channels.set(runId, c);
    }
    return c;
  }

  /** The run is over: keep its window for a while, forget the oldest ended ones. */
  ended(runId: string): void {
    this.finished.push(runId);
    while (this.finished.length > this.o.keepEnded) {
      const old = this.finished.shift() as string;
      const c = this.channels.get(old);
      if (c && c.subscribers === 0) this.channels.delete(old);
    }
  }

  drop(runId: string): void {
    this.channels.delete(runId);
  }
}
