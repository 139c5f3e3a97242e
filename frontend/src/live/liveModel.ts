// What the live page shows, built from the socket's messages: four charts' series, progress, the
// event list (including loss bursts found in the queue's drop counter) and the run's state.
import type { LiveMessage, LiveSample } from '../api/types';
import { BucketSeries } from './bucketSeries';

export type ChartId = 'throughput' | 'cwnd' | 'rtt' | 'queue';

export interface LiveEvent {
  seq: number;
  /** s from traffic start when known, else null. */
  tS: number | null;
  kind: string;
  text: string;
}

/** A loss burst ends after this long without a new drop. */
const BURST_GAP_S = 1;

export class LiveModel {
  readonly charts: Record<ChartId, BucketSeries>;
  events: LiveEvent[] = [];
  progress: { elapsedS: number; totalS: number; etaS?: number | null; dilation?: number | null } | null =
    null;
  lastSeq = 0;
  done = false;
  caughtUp = false;
  /** The charts hold a finished run's recorded samples rather than a live stream. */
  replayed = false;
  /** Latest sample time, s (for the events' time stamps). */
  latestT = 0;
  version = 0;
  private listeners = new Set<() => void>();
  private drops = new Map<string, number>();
  private bursts = new Map<string, { startS: number; lastS: number; packets: number }>();

  // 1024 buckets: about one point per horizontal pixel of a chart on a laptop screen.
  constructor(cap = 1024, baseStepS = 0.1) {
    this.charts = {
      throughput: new BucketSeries(cap, baseStepS),
      cwnd: new BucketSeries(cap, baseStepS),
      rtt: new BucketSeries(cap, baseStepS),
      queue: new BucketSeries(cap, baseStepS),
    };
  }

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  getVersion = (): number => this.version;

  private changed(): void {
    this.version++;
    for (const fn of this.listeners) fn();
  }

  /** Apply one socket message; duplicates from a resumed connection are ignored by seq. */
  apply(msg: LiveMessage): void {
    if (msg.seq <= this.lastSeq) return;
    this.lastSeq = msg.seq;
    switch (msg.type) {
      case 'sample':
        this.sample(msg.sample, msg.seq);
        break;
      case 'progress':
        this.progress = {
          elapsedS: msg.elapsedS,
          totalS: msg.totalS,
          ...(msg.dilation ? { dilation: msg.dilation, etaS: msg.etaS ?? null } : {}),
        };
        break;
      case 'caught-up':
        this.caughtUp = true;
        break;
      case 'event':
        this.event(msg.seq, msg.event, msg.data);
        break;
    }
    this.changed();
  }

  /** A finished run's recorded samples (GET /api/runs/:id/samples), drawn as the live ones were. */
  replay(samples: readonly LiveSample[]): void {
    for (const s of samples) this.sample(s, 0);
    this.replayed = true;
    this.changed();
  }

  /** Whether any chart holds a point. */
  get hasData(): boolean {
    return Object.values(this.charts).some((c) => c.names.length > 0);
  }

  private sample(s: LiveSample, seq: number): void {
    if (s.t > this.latestT) this.latestT = s.t;
    switch (s.kind) {
      case 'goodput':
        this.charts.throughput.add(s.t, s.flow, s.bps / 1e6);
        break;
      case 'tcp':
        this.charts.cwnd.add(s.t, s.flow, s.cwndPackets);
        this.charts.rtt.add(s.t, s.flow, s.srttMs);
        break;
      case 'rtt':
        this.charts.rtt.add(s.t, `probe ${s.path}`, s.rttMs);
        break;
      case 'queue':
        if (s.stage !== 'bottleneck') break;
        this.charts.queue.add(s.t, `${s.path} ${s.direction}`, s.backlogPackets);
        this.lossBursts(`${s.path} ${s.direction}`, s.t, s.drops, seq);
        break;
      default:
        break;
    }
  }

  /** Drops are a cumulative counter: a rise starts or extends a burst, a quiet second closes it. */
  private lossBursts(queue: string, t: number, drops: number, seq: number): void {
    const prev = this.drops.get(queue);
    this.drops.set(queue, drops);
    const burst = this.bursts.get(queue);
    const added = prev === undefined ? 0 : drops - prev;
    if (added > 0) {
      if (burst) {
        burst.lastS = t;
        burst.packets += added;
      } else this.bursts.set(queue, { startS: t, lastS: t, packets: added });
    } else if (burst && t - burst.lastS >= BURST_GAP_S) {
      this.bursts.delete(queue);
      this.events.push({
        seq,
        tS: burst.startS,
        kind: 'loss-burst',
        text: `Loss burst at the ${queue} bottleneck: ${burst.packets} packets dropped over ${(burst.lastS - burst.startS).toFixed(1)} s`,
      });
    }
  }

  private event(seq: number, name: string, data: unknown): void {
    const d = (data ?? {}) as Record<string, unknown>;
    const flow = typeof d.flow === 'string' ? d.flow : typeof d.name === 'string' ? d.name : '';
    const tS = typeof d.t === 'number' ? d.t : typeof d.atS === 'number' ? d.atS : this.latestT || null;
    const text =
      name === 'flow-started'
        ? `Flow ${flow} started`
        : name === 'flow-ended'
          ? `Flow ${flow} ended`
          : name === 'verdict'
            ? `Verdict: ${String(d.verdict ?? '')}`
            : name === 'error'
              ? `Error: ${String(d.message ?? d.error ?? '')}`
              : name === 'started'
                ? 'Run started'
                : name === 'queued'
                  ? 'Queued for the lab'
                  : name === 'done'
                    ? `Run finished${d.status ? ` (${String(d.status)})` : ''}`
                    : name;
    if (name === 'done' || name === 'error') this.done = name === 'done' || this.done;
    this.events.push({ seq, tS, kind: name, text });
  }
}
