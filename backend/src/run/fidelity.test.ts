import { describe, expect, it } from 'vitest';
import {
  checkBottleneckRate,
  checkDelayStageLoss,
  checkHiddenDrops,
  checkIdleRtt,
  checkLabCpu,
  checkSamplers,
  verdictOf,
  wilson95,
} from './fidelity.js';
import type { QueueSample } from './samples.js';

const ping = (minMs: number) => ({
  sent: 10,
  received: 10,
  minMs,
  avgMs: minMs + 0.3,
  maxMs: minMs + 1,
  mdevMs: 0.2,
});

describe('idle RTT check', () => {
  it('passes within 0.2 ms + 1 %, warns up to twice that, fails beyond', () => {
    expect(checkIdleRtt('p', 50, 0, ping(50.6)).status).toBe('pass'); // tolerance 0.7 ms
    expect(checkIdleRtt('p', 50, 0, ping(49.2)).status).toBe('warn');
    expect(checkIdleRtt('p', 50, 0, ping(51.5)).status).toBe('fail');
    expect(checkIdleRtt('p', 50, 0, null).status).toBe('fail');
  });
});

describe('bottleneck rate check', () => {
  const q = (t: number, backlog: number, bytes: number): QueueSample => ({
    kind: 'queue',
    t,
    path: 'p',
    stage: 'bottleneck',
    direction: 'forward',
    dev: 'p0-fwd',
    backlogPackets: backlog,
    backlogBytes: backlog * 1514,
    drops: 0,
    packets: 0,
    bytes,
  });
  it('judges the rate only over saturated steps', () => {
    // 10 Mbit/s = 1.25 MB/s; idle second, then 3 saturated seconds at 9.9 Mbit/s
    const samples = [
      q(0, 0, 0),
      q(1, 0, 100),
      q(2, 5, 100_000),
      q(3, 8, 1_337_500),
      q(4, 9, 2_575_000),
      q(5, 3, 3_812_500),
    ];
    const c = checkBottleneckRate('p', 'forward', 10e6, 8, samples);
    expect(c.status).toBe('pass');
    expect(c.measured).toBeCloseTo(9.9e6, -3);
  });
  it('fails a bottleneck that delivers far less than configured, skips one never saturated', () => {
    const slow = [q(0, 5, 0), q(1, 5, 1_000_000), q(2, 5, 2_000_000), q(3, 5, 3_000_000)];
    expect(checkBottleneckRate('p', 'forward', 10e6, 8, slow).status).toBe('fail'); // 8 of 10 Mbit/s
    expect(checkBottleneckRate('p', 'forward', 10e6, 8, [q(0, 0, 0), q(5, 0, 1e6)]).status).toBe('skip');
    // A queue that only ever holds a packet or two is not saturated enough to judge.
    const thin = [q(0, 1, 0), q(1, 1, 1_000_000), q(2, 1, 2_000_000), q(3, 1, 3_000_000)];
    expect(checkBottleneckRate('p', 'forward', 10e6, 8, thin).status).toBe('skip');
  });
});

describe('loss checks', () => {
  const topo = {
    name: 'p',
    routerIfs: { toReceiver: 'p0-rcv', toSender: 'p0-snd' },
    per: { fullFrame: 0.01, ackFrame: 0.0005, ackFrameBytes: 66 },
    frameBytes: 1514,
  } as never;
  const netem = (dev: string, handle: string, packets: number, drops: number) => ({
    kind: 'netem',
    handle,
    dev,
    bytes: 0,
    packets,
    drops,
  });
  it('without a BER, any drop in a delay stage fails (its limit was too small)', () => {
    const before = [netem('p0-rcv', '1:', 0, 0), netem('p0-snd', '1:', 0, 0)];
    const after = [netem('p0-rcv', '1:', 10_000, 37), netem('p0-snd', '1:', 5000, 0)];
    const checks = checkDelayStageLoss(topo, 0, before, after);
    expect(checks.map((c) => c.status)).toEqual(['fail', 'pass']);
    expect(checks[0]?.message).toMatch(/37 drops in the delay stage/);
  });
  it('with a BER, full-frame loss must sit in the 95 % interval of the PER', () => {
    const ok = checkDelayStageLoss(
      topo,
      1e-6,
      [],
      [netem('p0-rcv', '20:', 9900, 100), netem('p0-snd', '20:', 9900, 100)],
    );
    expect(ok.map((c) => c.status)).toEqual(['pass', 'pass']);
    const bad = checkDelayStageLoss(
      topo,
      1e-6,
      [],
      [netem('p0-rcv', '20:', 9500, 500), netem('p0-snd', '20:', 9990, 10)],
    );
    expect(bad.map((c) => c.status)).toEqual(['fail', 'fail']);
  });
  it('computes a Wilson interval', () => {
    const [lo, hi] = wilson95(100, 10_000);
    expect(lo).toBeCloseTo(0.00822, 4);
    expect(hi).toBeCloseTo(0.01216, 4);
  });
  it('fails on drops in veths or IFBs', () => {
    const c = checkHiddenDrops(
      { 'lfn-rtr': [{ ifname: 'p0-snd', stats64: { rx: { dropped: 2 } } }] },
      { 'lfn-rtr': [{ ifname: 'p0-snd', stats64: { rx: { dropped: 9 } } }] },
    );
    expect(c).toMatchObject({ status: 'fail', measured: 7 });
  });
});

describe('lab and samplers', () => {
  it('grades CPU and sampler rate, and rolls checks up into a verdict', () => {
    const cpu = [10, 20, 30].map((t) => ({
      kind: 'cpu' as const,
      t,
      busyPct: 80,
      userPct: 40,
      systemPct: 20,
      softirqPct: 20,
    }));
    expect(checkLabCpu(cpu, 0, 60).status).toBe('warn');
    const samplers = checkSamplers([
      {
        name: 'tcp:a',
        kind: 'tcp',
        lines: 0,
        records: 1000,
        samples: 900,
        unparsed: 0,
        end: { ticks: 100, skipped: 0, records: 1000 },
      },
      {
        name: 'tcp:b',
        kind: 'tcp',
        lines: 0,
        records: 990,
        samples: 900,
        unparsed: 0,
        end: { ticks: 100, skipped: 0, records: 1000 },
      },
      {
        name: 'qdisc',
        kind: 'qdisc',
        lines: 0,
        records: 60,
        samples: 60,
        unparsed: 0,
        end: { ticks: 60, skipped: 40, records: 60 },
      },
    ]);
    expect(samplers.map((c) => c.status)).toEqual(['pass', 'fail', 'fail']);
    expect(samplers[1]?.message).toMatch(/10 lost/);
    const v = verdictOf([checkLabCpu(cpu, 0, 60), ...samplers]);
    expect(v.verdict).toBe('invalid');
    expect(v.reasons).toHaveLength(3);
    expect(verdictOf([checkLabCpu(cpu, 0, 60)]).verdict).toBe('suspect');
  });
});

describe('bottleneck rate with a schedule', () => {
  it('compares against the rate in force at each step', () => {
    const q = (t: number, bytes: number): QueueSample => ({
      kind: 'queue',
      t,
      path: 'p',
      stage: 'bottleneck',
      direction: 'forward',
      dev: 'p0-fwd',
      backlogPackets: 50,
      backlogBytes: 50 * 1514,
      drops: 0,
      packets: 0,
      bytes,
    });
    // 10 Mbit/s for 2 s, then 5 Mbit/s for 2 s, delivered exactly.
    const samples = [q(0, 0), q(1, 1_250_000), q(2, 2_500_000), q(3, 3_125_000), q(4, 3_750_000)];
    const rate = (t: number) => (t < 2 ? 10e6 : 5e6);
    expect(checkBottleneckRate('p', 'forward', rate, 100, samples).status).toBe('pass');
    expect(checkBottleneckRate('p', 'forward', 10e6, 100, samples).status).toBe('fail');
  });
});
