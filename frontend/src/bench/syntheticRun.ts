// A synthetic run for the chart benchmark: N flows sharing a bottleneck, saw-tooth windows, at the
// live socket's default 10 points per second per series. Deterministic (no Math.random).
import type { LiveMessage } from '../api/types';
import type { LiveModel } from '../live/liveModel';

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
        this.push({
          seq: 0,
          type: 'sample',
          sample: { kind: 'goodput', t, flow, bps: (this.rateMbps / this.flows) * (0.7 + 0.5 * phase) * 1e6 },
        });
        this.push({
          seq: 0,
          type: 'sample',
          sample: {
            kind: 'tcp',
            t,
            flow,
            cwndPackets: cwnd,
            srttMs: 70 + 20 * phase,
            deliveryBps: 0,
            retransSegments: 0,
          },
        });
      }
      this.push({
        seq: 0,
        type: 'sample',
        sample: { kind: 'rtt', t, path: 'main', rttMs: 70 + 15 * Math.sin(t / 3) ** 2 },
      });
      this.push({
        seq: 0,
        type: 'sample',
        sample: {
          kind: 'queue',
          t,
          path: 'main',
          stage: 'bottleneck',
          direction: 'forward',
          backlogPackets: 200 + 150 * Math.sin(t / 5),
          drops: Math.floor(t / 12) * 3,
        },
      });
    }
    this.push({ seq: 0, type: 'progress', elapsedS: this.tS, totalS: 3600 });
  }

  private push(m: LiveMessage): void {
    this.model.apply({ ...m, seq: ++this.seq } as LiveMessage);
  }
}
