// A flow's `omit`: its slow start left out of the interval statistics (mean ± σ, σ/μ), not of its
// whole-run goodput.
import type { FlowTopology } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import type { IntervalSample } from './iperf.js';
import { afterOmit, emptyFlowResult, summariseFlow } from './summary.js';

const flow: FlowTopology = {
  name: 'reno-1',
  transport: 'tcp',
  stack: 'reno',
  path: 'main',
  direction: 'forward',
  streams: 1,
  port: 5201,
  rttMs: 170,
  clientNs: 'lfn-p0-snd',
  serverNs: 'lfn-p0-rcv',
  serverAddr: '10.1.2.2',
  startMs: 0,
  durationMs: 40_000,
  bytes: null,
  windowBytes: null,
  rateBps: null,
  payloadSeed: 1001,
};

/** 5 s intervals from a data start at 0.3 s: slow start reaches 60 Mbit/s, then 100 steady. */
const intervals: IntervalSample[] = [60, 100, 100, 100, 100, 100, 100, 100].map((mbps, k) => ({
  kind: 'interval',
  flow: 'reno-1',
  t: 0.3 + 5 * (k + 1),
  seconds: 5,
  goodputBps: mbps * 1e6,
  sendBps: null,
  retransmits: null,
  cwndBytes: null,
  rttMs: null,
  streams: [],
}));

describe('omit', () => {
  it('keeps the intervals that begin at least omit after the first began', () => {
    expect(afterOmit(intervals, 0)).toHaveLength(8);
    expect(afterOmit(intervals, 5).map((s) => s.t)).toEqual(intervals.slice(1).map((s) => s.t));
    expect(afterOmit(intervals, 5.1)).toHaveLength(6);
    expect(afterOmit([], 5)).toEqual([]);
  });

  it("leaves slow start out of the flow's mean, σ and stability, and says so", () => {
    const r = (omitMs?: number) => ({
      ...emptyFlowResult({ ...flow, ...(omitMs === undefined ? {} : { omitMs }) }),
      intervals,
    });
    const all = summariseFlow(r());
    // One slow interval in eight: σ/μ 0.139 although the flow is steady after it.
    expect(all.stability).toBeCloseTo(0.1393, 3);
    expect(all.goodputMbps.mean).toBe(95);
    expect(all.omitS).toBeUndefined();
    const steady = summariseFlow(r(5000));
    expect(steady.stability).toBe(0);
    expect(steady.goodputMbps).toMatchObject({ mean: 100, sd: 0 });
    expect(steady.omitS).toBe(5);
  });
});
