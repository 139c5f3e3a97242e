// A synthetic run for the chart benchmark: N flows sharing a bottleneck, saw-tooth windows, at the
// live socket's default 10 points per second per series. Deterministic (no Math.random).
import type { LiveMessage, LiveSample } from '../api/types';
import type { LiveModel } from '../live/liveModel';

type Of<K extends LiveSample['kind']> = Extract<LiveSample, { kind: K }>;

// Whole samples as the lab sends them (backend/src/run/samples.ts), from the fields the UI reads.
export const goodputSample = (t: number, flow: string, bps: number): Of<'goodput'> => ({
  kind: 'goodput',
  t,
  flow,
  bps,
  bytesReceived: 0,
});

export const tcpSample = (t: number, flow: string, cwndPackets: number, srttMs: number): Of<'tcp'> => ({
  kind: 'tcp',
  t,
  flow,
  streams: 1,
  cc: 'cubic',
  cwndPackets,
  ssthreshPackets: null,
  srttMs,
  rttvarMs: 0,
  minRttMs: null,
  pacingBps: null,
  deliveryBps: 0,
  bytesAcked: 0,
  retransSegments: 0,
  lostPackets: 0,
  unackedPackets: 0,
  dataSegsOut: 0,
});

export const rttSample = (t: number, path: string, rttMs: number): Of<'rtt'> => ({
  kind: 'rtt',
  t,
  path,
  rttMs,
  seq: 0,
});

export const queueSample = (t: number, path: string, backlogPackets: number, drops: number): Of<'queue'> => ({
  kind: 'queue',
  t,
  path,
  stage: 'bottleneck',
  direction: 'forward',
  dev: 'eth1',
  backlogPackets,
  backlogBytes: 0,
  drops,
  packets: 0,
  bytes: 0,
});

export class SyntheticRun {
  private seq = 0;
  private tick = 0;

  constructor(
    private readonly model: LiveModel,
    readonly flows = 16,
    readonly hz = 10,
    readonly rateMbps = 100,
  ) {}

  get tS(): number {
    return this.tick / this.hz;
  }

  /** Advance by `seconds`, feeding every sample the live socket would send. */
  advance(seconds: number): void {
    const ticks = Math.round(seconds * this.hz);
    for (let k = 0; k < ticks; k++) {
      this.tick++;
      const t = this.tS;
      for (let f = 0; f < this.flows; f++) {
        const phase = ((t + f * 1.7) % 12) / 12; // a 12 s saw-tooth per flow, staggered
        const cwnd = 40 + 60 * phase;
        const flow = `flow-${f + 1}`;
        this.sample(goodputSample(t, flow, (this.rateMbps / this.flows) * (0.7 + 0.5 * phase) * 1e6));
        this.sample(tcpSample(t, flow, cwnd, 70 + 20 * phase));
      }
      this.sample(rttSample(t, 'main', 70 + 15 * Math.sin(t / 3) ** 2));
      this.sample(queueSample(t, 'main', 200 + 150 * Math.sin(t / 5), Math.floor(t / 12) * 3));
    }
    this.push({ seq: 0, type: 'progress', elapsedS: this.tS, totalS: 3600 });
  }

  private sample(sample: LiveSample): void {
    this.push({ seq: 0, type: 'sample', sample });
  }

  private push(m: LiveMessage): void {
    this.model.apply({ ...m, seq: ++this.seq } as LiveMessage);
  }
}
