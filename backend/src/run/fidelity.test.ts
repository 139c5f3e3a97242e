import { describe, expect, it } from 'vitest';
import { checkDelayStageLoss, checkHiddenDrops, wilson95 } from './dropChecks.js';
import {
  checkBottleneckRate,
  checkIdleRtt,
  checkLabCpu,
  checkSamplers,
  checkStackParams,
  verdictOf,
} from './fidelity.js';
import type { QueueSample } from './samples.js';
import type { DirectionTiming } from './timingChecks.js';

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
  /** Samples every `stepS` s for `seconds`, a constant backlog, sending at `bps`. */
  const steady = (stepS: number, seconds: number, backlog: number, bps: number) =>
    Array.from({ length: Math.round(seconds / stepS) + 1 }, (_, k) =>
      q(k * stepS, backlog, (k * stepS * bps) / 8),
    );
  const timing = (servedBps: number, configuredBps: number, busy = 5000) =>
    ({ gaps: { busy, servedBps, configuredBps } }) as DirectionTiming;

  it('judges the rate over steps the backlog could not drain in', () => {
    // 50 Hz at 10 Mbit/s: 40 queued frames hold 48 ms of sending, more than a 20 ms step.
    const c = checkBottleneckRate('p', 'forward', 10e6, steady(0.02, 3, 40, 9.9e6));
    expect(c.status).toBe('pass');
    expect(c.measured).toBeCloseTo(9.9e6, -3);
    expect(checkBottleneckRate('p', 'forward', 10e6, steady(0.02, 3, 40, 8e6)).status).toBe('fail');
    expect(checkBottleneckRate('p', 'forward', 10e6, steady(0.02, 3, 40, 9.5e6)).status).toBe('warn');
  });

  it('does not count a step whose queue could have emptied in between as a slow link', () => {
    // 10 Hz at 25 Mbit/s: 60 frames (29 ms of sending) at both ends of every 100 ms step, but bursts
    // leave the link idle part of each step: it sent 15 Mbit/s on average. The old rule (half the
    // buffer at both ends) called that a link at 60 % of its rate.
    const bursty = steady(0.1, 10, 60, 15e6);
    const alone = checkBottleneckRate('p', 'forward', 25e6, bursty);
    expect(alone.status).toBe('skip');
    expect(alone.message).toMatch(/never held a step's worth/);
    // The packet timing's busy gaps then judge it: the link served its rate while it had a queue ...
    const served = checkBottleneckRate('p', 'forward', 25e6, bursty, timing(24.9e6, 25e6));
    expect(served.status).toBe('pass');
    expect(served.message).toMatch(/while it had a queue/);
    // ... or did not.
    expect(checkBottleneckRate('p', 'forward', 25e6, bursty, timing(21e6, 25e6)).status).toBe('fail');
  });

  it('skips a direction never saturated, and does not judge a lightly used one by its timing', () => {
    expect(checkBottleneckRate('p', 'forward', 10e6, [q(0, 0, 0), q(5, 0, 1e6)]).status).toBe('skip');
    // A queue that only ever holds a frame is not saturated enough to judge.
    expect(checkBottleneckRate('p', 'forward', 10e6, steady(0.02, 3, 1, 9.9e6)).status).toBe('skip');
    // ACKs at 2 % of the rate: their queued gaps say when the lab did its packet work, not the rate.
    const acks = steady(0.1, 10, 3, 0.2e6);
    const ackCheck = checkBottleneckRate('p', 'forward', 10e6, acks, timing(5e6, 10e6));
    expect(ackCheck.status).toBe('skip');
    expect(ackCheck.message).toMatch(/the direction carried 2\.0 % of its rate; rate not judged/);
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
    // 10 Mbit/s for 2 s, then 5 Mbit/s for 2 s, delivered exactly, sampled at 20 Hz (50 frames
    // hold 61 ms of sending at 10 Mbit/s).
    const samples = Array.from({ length: 81 }, (_, k) => {
      const t = k * 0.05;
      return q(t, t <= 2 ? (t * 10e6) / 8 : (2 * 10e6 + (t - 2) * 5e6) / 8);
    });
    const rate = (t: number) => (t < 2 ? 10e6 : 5e6);
    expect(checkBottleneckRate('p', 'forward', rate, samples).status).toBe('pass');
    expect(checkBottleneckRate('p', 'forward', 10e6, samples).status).toBe('fail');
  });
});

describe('stack parameters in force', () => {
  const spec = { stackParams: { hstcplp: { hs_window_pct: 16, owd_newest: 1 } } };

  it("pass when every value read back before and after traffic is the spec's", () => {
    const read = { hstcplp: { hs_window_pct: 16, owd_newest: 1 } };
    expect(checkStackParams(spec, [read, read])?.status).toBe('pass');
  });

  it("fail, naming the parameter, when a value in force is not the spec's", () => {
    // As a kept dumbbell left it: the previous run's owd_newest 0 still in force.
    const c = checkStackParams(spec, [{ hstcplp: { hs_window_pct: 16, owd_newest: 0 } }, undefined]);
    expect(c?.status).toBe('fail');
    expect(c?.message).toContain('hstcplp owd_newest 0 (spec 1)');
    expect(checkStackParams(spec, [{ hstcplp: { hs_window_pct: 16, owd_newest: null } }])?.message).toContain(
      'owd_newest unreadable',
    );
  });

  it('are not judged when the spec sets none or nothing was read (older records)', () => {
    expect(checkStackParams({}, [{ fast: { alpha: 16 } }])).toBeNull();
    expect(checkStackParams(spec, [undefined, undefined])).toBeNull();
  });
});
