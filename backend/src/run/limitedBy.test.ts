import { buildPlan, validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { labLimitChecks } from './labLimitCheck.js';
import { flowLimits, formatLimit, type LinkProof } from './limitedBy.js';
import type { CpuSample, QueueSample, Sample, TcpFlowSample } from './samples.js';
import { emptyFlowResult, summarise } from './summary.js';

const v = validateSpec({
  name: 'limits',
  duration: '10s',
  paths: { main: { rtt: '40ms', rate: '100Mbit' } },
  flows: [{ stack: 'cubic' }],
});
if (!v.ok) throw new Error('bad spec');
const plan = buildPlan(v.spec);
const flow = plan.topology.flows[0]?.name as string;

/**
 * 10 s at 10 Hz: the flow busy all the time, `rwnd`/`sndbuf` of each tick's 100 ms held by the
 * receiver's window or the send buffer; the bottleneck with `backlog` packets queued, delivering
 * `linkShare` of its 100 Mbit/s; the lab CPU at `cpuPct`.
 */
function run(o: {
  rwnd?: number;
  sndbuf?: number;
  backlog: number | ((i: number) => number);
  /** Bytes queued; by default 1500 per packet queued. */
  backlogBytes?: number;
  linkShare: number;
  cpuPct: number;
  /** Packets in flight per packet of congestion window (1: the window is full). */
  fill?: number;
}): Sample[] {
  const out: Sample[] = [];
  for (let i = 0; i <= 100; i++) {
    const t = i / 10;
    out.push({
      kind: 'tcp',
      t,
      flow,
      cwndPackets: 100,
      unackedPackets: 100 * (o.fill ?? 1),
      busyUs: i * 100_000,
      rwndLimitedUs: i * (o.rwnd ?? 0) * 1000,
      sndbufLimitedUs: i * (o.sndbuf ?? 0) * 1000,
    } as TcpFlowSample);
    out.push({
      kind: 'queue',
      t,
      path: 'main',
      stage: 'bottleneck',
      direction: 'forward',
      dev: 'p0-ifb',
      backlogPackets: typeof o.backlog === 'number' ? o.backlog : o.backlog(i),
      backlogBytes: o.backlogBytes ?? 1500 * (typeof o.backlog === 'number' ? o.backlog : o.backlog(i)),
      drops: 0,
      packets: 0,
      bytes: (t * 100e6 * o.linkShare) / 8,
    } as QueueSample);
    out.push({
      kind: 'cpu',
      t,
      busyPct: o.cpuPct,
      userPct: 0,
      systemPct: o.cpuPct,
      softirqPct: 0,
    } as CpuSample);
  }
  return out;
}

const limits = (samples: Sample[], proof: Partial<LinkProof> = {}) =>
  flowLimits(v.spec, plan.topology.paths, plan.topology.flows, samples, () => ({
    timing: false,
    rate: false,
    ...proof,
  }))[flow];

describe('what limited a flow', () => {
  it('a standing queue at the bottleneck: the network', () => {
    const l = limits(run({ backlog: 40, linkShare: 1, cpuPct: 80 }));
    expect(l?.limitedBy).toBe('network');
    expect(l?.shares.network).toBeCloseTo(1, 6);
    expect(l?.busyS).toBeCloseTo(10, 6);
    expect(formatLimit(l)).toBe('network 100 %');
  });
  it("an idle bottleneck delivering 60 % of its rate, the window two-thirds filled, the lab's CPU busy: the sender (lab)", () => {
    const l = limits(run({ backlog: 0, linkShare: 0.6, cpuPct: 70, fill: 0.65 }));
    expect(l?.limitedBy).toBe('sender');
    expect(formatLimit(l)).toBe('sender (lab) 100 %');
    expect(labLimitChecks({ [flow]: l ?? null })[0]?.status).toBe('fail');
  });
  it('a standing queue while the link delivers 40 % of its rate: the emulated link lags, so the lab', () => {
    expect(limits(run({ backlog: 40, linkShare: 0.4, cpuPct: 20 }))?.limitedBy).toBe('sender');
  });
  it('the same queue under a link whose packet timing was proven exact came and went: the network', () => {
    // CDG sawing just under the BDP: a few packets queued for most of each second, the link
    // idle for the rest. With exact dequeue timing that is the window's doing, not netem lagging.
    const exact = flowLimits(
      v.spec,
      plan.topology.paths,
      plan.topology.flows,
      run({ backlog: 4, linkShare: 0.85, cpuPct: 20 }),
      (p, d) => ({ timing: p === 'main' && d === 'forward', rate: false }),
    )[flow];
    expect(exact?.limitedBy).toBe('network');
    expect(limits(run({ backlog: 4, linkShare: 0.85, cpuPct: 20 }))?.limitedBy).toBe('sender');
  });
  it('ACK-compressed bursts: a queue that never holds a step of sending, under a link whose rate check passed, came and went: the network', () => {
    // 100 Mbit/s sends 1.25 MB in a 100 ms step; 60 packets (90 KB) drain in 7 ms of it.
    const bursts = run({ backlog: 60, linkShare: 0.7, cpuPct: 20 });
    expect(limits(bursts, { rate: true })?.limitedBy).toBe('network');
    expect(limits(bursts)?.limitedBy).toBe('sender');
  });
  it('a queue holding more than a step of sending while the link sends 60 % of its rate: netem lags, the lab, whatever the run-wide rate check said', () => {
    const lagging = run({ backlog: 900, backlogBytes: 1.35e6, linkShare: 0.6, cpuPct: 20 });
    expect(limits(lagging, { rate: true })?.limitedBy).toBe('sender');
    // The same queue under a link sending its rate: full, the network.
    expect(limits(run({ backlog: 900, backlogBytes: 1.35e6, linkShare: 0.95, cpuPct: 20 }))?.limitedBy).toBe(
      'network',
    );
  });
  it('a bunch of packets in one sample of ten does not make a standing queue (TCG releases in bunches)', () => {
    const l = limits(
      run({ backlog: (i) => (i % 10 === 3 ? 20 : 0), linkShare: 0.6, cpuPct: 70, fill: 0.65 }),
    );
    expect(l?.limitedBy).toBe('sender');
  });
  it('an idle bottleneck under a full window (after a loss), the lab CPU busy: the congestion control chose it', () => {
    const l = limits(run({ backlog: 0, linkShare: 0.6, cpuPct: 70 }));
    expect(l?.limitedBy).toBe('congestion-control');
    expect(formatLimit(l)).toBe('congestion control 100 %');
    expect(labLimitChecks({ [flow]: l ?? null })[0]?.status).not.toBe('fail');
  });
  it('an idle bottleneck and an idle lab: the congestion control, also with the window unfilled (pacing)', () => {
    expect(limits(run({ backlog: 0, linkShare: 0.6, cpuPct: 10 }))?.limitedBy).toBe('congestion-control');
    expect(limits(run({ backlog: 0, linkShare: 0.6, cpuPct: 10, fill: 0.5 }))?.limitedBy).toBe(
      'congestion-control',
    );
  });
  it('an old record without the congestion-control share still reads', () => {
    const old = {
      limitedBy: 'network' as const,
      shares: { network: 0.9, 'receiver-window': 0.1, 'send-buffer': 0, sender: 0 },
      busyS: 1,
    };
    expect(formatLimit(old)).toBe('network 90 %');
  });
  it("the receiver's window for 80 ms of every 100: receiver-window, 80 %", () => {
    const l = limits(run({ rwnd: 80, backlog: 0, linkShare: 0.3, cpuPct: 10 }));
    expect(l?.limitedBy).toBe('receiver-window');
    expect(l?.shares['receiver-window']).toBeCloseTo(0.8, 6);
  });
  it('the send buffer: send-buffer, and a valid verdict', () => {
    const l = limits(run({ sndbuf: 90, backlog: 0, linkShare: 0.3, cpuPct: 60 }));
    expect(l?.limitedBy).toBe('send-buffer');
    expect(labLimitChecks({ [flow]: l ?? null })[0]?.status).toBe('pass');
  });
  it('no chrono counters (older records, user-space transports): no answer', () => {
    expect(limits([])).toBeNull();
  });
  it("makes a valid link's run invalid when the lab held the flow", () => {
    const s = summarise({
      spec: v.spec,
      paths: plan.topology.paths,
      results: plan.topology.flows.map(emptyFlowResult),
      samples: run({ backlog: 0, linkShare: 0.6, cpuPct: 70, fill: 0.6 }),
      idleRtt: {},
      status: 'completed',
      error: null,
      fidelity: { verdict: 'valid', checks: [], reasons: [] },
    });
    expect(s.flows[0]?.limitedBy?.limitedBy).toBe('sender');
    expect(s.verdict).toBe('invalid');
    expect(s.fidelity?.reasons[0]).toMatch(/limited by the sender \(the lab\) for 100 %/);
  });
});
