// The qdisc sampler's lines → queue and CPU samples: each router device's counters are tagged with the
// path, stage and direction the plan built it for.
import { cpuPercent, type Plan, type QdiscCpuRecord, type QdiscRecord } from '@lfnlab/emulator';
import type { CpuSample, QueueSample, Sample } from './samples.js';

/** The qdisc sampler's records as queue samples (bottleneck and delay stages) and the router's CPU. */
export class QdiscDemux {
  private prevCpu: QdiscCpuRecord | null = null;
  private readonly devs = new Map<
    string,
    Omit<QueueSample, 'kind' | 't' | 'backlogPackets' | 'backlogBytes' | 'drops' | 'packets' | 'bytes'>
  >();

  constructor(
    plan: Plan,
    private readonly t: (realMs: number) => number,
    private readonly emit: (s: Sample) => void,
  ) {
    for (const p of plan.topology.paths) {
      const r = p.routerIfs;
      this.devs.set(r.forwardIfb, {
        path: p.name,
        stage: 'bottleneck',
        direction: 'forward',
        dev: r.forwardIfb,
      });
      this.devs.set(r.reverseIfb, {
        path: p.name,
        stage: 'bottleneck',
        direction: 'reverse',
        dev: r.reverseIfb,
      });
      this.devs.set(r.toReceiver, { path: p.name, stage: 'delay', direction: 'forward', dev: r.toReceiver });
      this.devs.set(r.toSender, { path: p.name, stage: 'delay', direction: 'reverse', dev: r.toSender });
    }
  }

  qdisc(r: QdiscRecord): number {
    const where = this.devs.get(r.dev);
    if (!where || r.parent !== 'root') return 0;
    this.emit({
      kind: 'queue',
      t: this.t(r.timeMs),
      ...where,
      backlogPackets: r.qlen,
      backlogBytes: r.backlogBytes,
      drops: r.drops,
      packets: r.packets,
      bytes: r.bytes,
    });
    return 1;
  }

  /** CPU counters move in whole jiffies: average over at least a quarter second. */
  cpu(r: QdiscCpuRecord): number {
    const prev = this.prevCpu;
    if (!prev) {
      this.prevCpu = r;
      return 0;
    }
    if (r.monoMs - prev.monoMs < 250) return 0;
    this.prevCpu = r;
    const p = cpuPercent(prev, r);
    if (p.jiffies <= 0) return 0;
    const sample: CpuSample = {
      kind: 'cpu',
      t: this.t(r.timeMs),
      busyPct: p.total,
      userPct: p.user + p.nice,
      systemPct: p.system,
      softirqPct: p.softirq + p.irq,
    };
    this.emit(sample);
    return 1;
  }
}
