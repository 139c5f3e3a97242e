// Seed 000 §4.5: with a UDP stream swinging through the bottleneck, a stack that takes the capacity
// the stream leaves keeps the link's whole load level. The run metric stability.aggregate is σ/μ of
// the flow and the stream added up, over the intervals of the flow's own stability index.
import { buildPlan, validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { findMetric } from '../report/format.js';
import { runMetrics } from './runMetrics.js';
import type { GoodputSample, Sample, UdpSample } from './samples.js';

const specOf = (cross: boolean) => {
  const v = validateSpec({
    name: 'sine',
    duration: '60s',
    paths: {
      main: {
        rtt: '70ms',
        rate: '75Mbit',
        ...(cross ? { cross: [{ pattern: 'sine', mean: '12.5%', amplitude: '7.5%', period: '30s' }] } : {}),
      },
    },
    flows: [{ name: 'test', stack: 'reno', omit: '5s' }],
  });
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return v.spec;
};

const udpBps = (t: number) => 75e6 * (0.125 + 0.075 * Math.sin((2 * Math.PI * t) / 30));
/** 10 Hz samples: the stream's sink stamps a report at its end, the flow's sampler at its tick. */
const ticks = Array.from({ length: 600 }, (_, i) => (i + 1) / 10);
const udp = (): UdpSample[] =>
  ticks.map((t) => ({
    kind: 'udp',
    t,
    source: 'main-udp1',
    path: 'main',
    bps: udpBps(t - 0.1),
    lost: 0,
    owdMeanMs: 35,
  }));
const flow = (bps: (t: number) => number): GoodputSample[] =>
  ticks.map((t) => ({ kind: 'goodput', t: t - 0.1, flow: 'test', bps: bps(t - 0.1), bytesReceived: 0 }));

function metricsOf(cross: boolean, samples: Sample[]) {
  const spec = specOf(cross);
  const plan = buildPlan(spec);
  const m = runMetrics(spec, plan.topology.paths, plan.topology.flows, samples);
  const group = m.groups.find((g) => g.direction === 'forward');
  return {
    mean: findMetric(group?.metrics, 'throughput.aggregate'),
    aggregate: findMetric(group?.metrics, 'stability.aggregate'),
    flow: findMetric(m.flows[0]?.metrics, 'stability.sigma_over_mu'),
  };
}

describe('the stability of the link’s whole load (stability.aggregate)', () => {
  it('is near 0 when the flow takes what the stream leaves, while the flow alone swings', () => {
    const m = metricsOf(true, [...udp(), ...flow((t) => 74e6 - udpBps(t))]);
    expect(m.aggregate).not.toBeNull();
    expect(m.aggregate as number).toBeLessThan(0.005);
    // Flow and stream together: the 74 Mbit/s the flow was given room for.
    expect((m.mean as number) / 1e6).toBeCloseTo(74, 1);
    // The stream's σ over 5 s means against the flow's mean of about 64.6 Mbit/s.
    expect(m.flow as number).toBeGreaterThan(0.05);
  });

  it('carries the stream’s swing when the flow does not follow it (a window-capped flow)', () => {
    const m = metricsOf(true, [...udp(), ...flow(() => 21e6)]);
    expect(m.flow as number).toBeLessThan(1e-9);
    expect(m.aggregate as number).toBeGreaterThan(0.1);
    // 21 Mbit/s of flow and the stream's 9.375 on average (12.5 % of 75).
    expect((m.mean as number) / 1e6).toBeCloseTo(30.4, 0);
  });

  it('is not given without cross traffic, nor when the stream left no samples', () => {
    expect(
      metricsOf(
        false,
        flow(() => 70e6),
      ).aggregate,
    ).toBeNull();
    expect(
      metricsOf(
        true,
        flow(() => 70e6),
      ).aggregate,
    ).toBeNull();
  });
});
