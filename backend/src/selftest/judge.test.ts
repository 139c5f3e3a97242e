import { describe, expect, it } from 'vitest';
import type { GoodputSample, QueueSample, Sample, TcpFlowSample } from '../run/samples.js';
import {
  cutsAndRegrowth,
  expectedQueue,
  expectedRateShare,
  rateAfterRampUp,
  readBack,
  sawtoothUtilisation,
  standingQueue,
} from './judge.js';

const tcp = (cwnds: number[]): Sample[] =>
  cwnds.map((cwndPackets, i) => ({ kind: 'tcp', t: i / 10, flow: 'f', cwndPackets }) as TcpFlowSample);
const goodput = (bps: (t: number) => number): Sample[] =>
  Array.from(
    { length: 80 },
    (_, i) =>
      ({ kind: 'goodput', t: i / 10, flow: 'f', bps: bps(i / 10), bytesReceived: 0 }) as GoodputSample,
  );
const backlog = (pkts: number): Sample[] =>
  Array.from(
    { length: 80 },
    (_, i) =>
      ({
        kind: 'queue',
        t: i / 10,
        stage: 'bottleneck',
        direction: 'forward',
        backlogPackets: pkts,
      }) as QueueSample,
  );

describe('selftest judgements', () => {
  it('reads back the stack the socket reports, and only that', () => {
    const f = { observedStacks: ['vegas'] } as never;
    expect(readBack('vegas', f).pass).toBe(true);
    expect(readBack('hstcplp', f)).toEqual({ pass: false, measured: 'vegas' });
  });
  it('judges the rate over the second half, after the ramp-up', () => {
    // Slow for the first 2 s, then 46 Mbit/s of 50: 92 %.
    const r = rateAfterRampUp(
      goodput((t) => (t < 2 ? 5e6 : 46e6)),
      'f',
      8,
      50e6,
    );
    expect(r.share).toBeCloseTo(0.92, 6);
    expect(r.judgement.pass).toBe(true);
    expect(
      rateAfterRampUp(
        goodput(() => 41.4e6),
        'f',
        8,
        50e6,
      ).judgement,
    ).toEqual({ pass: false, measured: '83 %' });
  });
  it("predicts the idle-link share from the stack's back-off: full for all but the LP family", () => {
    // Reno in 1 BDP saws between 1 and 2 BDP: the link never idles.
    expect(sawtoothUtilisation(1, 2)).toBe(1);
    // Entirely below the BDP: the mean window.
    expect(sawtoothUtilisation(0.2, 0.6)).toBeCloseTo(0.4, 9);
    // LP halves at BDP + 15 % of a 1-BDP buffer: 0.575..1.15 BDP, the link idle 74 % of the
    // cycle at a mean of 0.79: 84.3 %.
    expect(expectedRateShare('lp', 167, 167)).toBeCloseTo(0.8428, 3);
    expect(expectedRateShare('hstcplp', 167, 167)).toBeCloseTo(0.8428, 3);
    expect(expectedRateShare('cubic', 167, 167)).toBe(1);
    // CDG saws from the BDP down to 0.7 of it.
    expect(expectedRateShare('cdg', 167, 167)).toBeCloseTo(0.85, 2);
    // 76 % passes against LP's prediction (>= 90 % of 84 %) but not against the full link.
    const g = goodput(() => 38e6);
    expect(rateAfterRampUp(g, 'f', 8, 50e6, 0.9, 0.8428).judgement).toEqual({
      pass: true,
      measured: '76 % (predicted 84 %)',
    });
    expect(rateAfterRampUp(g, 'f', 8, 50e6).judgement.pass).toBe(false);
  });
  it('counts window cuts and regrowth in a sawtooth, and none in a flat line', () => {
    const saw = cutsAndRegrowth(tcp([10, 20, 40, 80, 40, 45, 50, 60, 30, 35, 40]), 'f');
    expect([saw.cuts, saw.regrowths]).toEqual([2, 2]);
    expect(saw.judgement.pass).toBe(true);
    // Cut to 1 and never back (HSTCP-LP's collapse): a cut without regrowth fails.
    expect(cutsAndRegrowth(tcp([10, 40, 80, 1, 1, 1, 1]), 'f').judgement).toEqual({
      pass: false,
      measured: '1 cuts, 0 regrowths',
    });
    expect(cutsAndRegrowth(tcp([50, 50, 50, 50]), 'f').cuts).toBe(0);
  });
  it("sees Scalable's one-loss cut to 87.5 % and its regrowth, which the 0.8 / 1.2 rule misses", () => {
    // One loss, then 1 % per RTT back up: the shape of a failed CI selftest (1 cut, 0 regrowths).
    const scalable = tcp([80, 88, 97, 85, 86, 88, 90, 93, 96, 84, 85, 87, 90, 94]);
    expect(cutsAndRegrowth(scalable, 'f').cuts).toBe(0);
    expect(cutsAndRegrowth(scalable, 'f', 'scalable').judgement).toEqual({
      pass: true,
      measured: '2 cuts, 2 regrowths',
    });
  });
  it("compares a delay-based stack's standing queue with its parameters' prediction", () => {
    expect(expectedQueue('vegas', 167)).toEqual({ lo: 2, hi: 4 });
    expect(expectedQueue('cubic', 167)).toBeNull();
    expect(standingQueue(backlog(3), 'vegas', 167, 8)).toEqual({
      pass: true,
      measured: '3 pkts (expected 2-4)',
    });
    expect(standingQueue(backlog(60), 'vegas', 167, 8).pass).toBe(false);
    expect(standingQueue(backlog(95), 'fast', 167, 8).pass).toBe(true);
    expect(standingQueue(backlog(160), 'hstcplp', 167, 8).pass).toBe(false);
    expect(standingQueue(backlog(160), 'cubic', 167, 8).pass).toBeNull();
  });
  it('holds an added delay-based stack to half the buffer, and does not judge other families', () => {
    expect(standingQueue(backlog(80), 'lfnvendor', 167, 8, 'delay')).toEqual({
      pass: true,
      measured: '80 pkts (delay-based: at most 83)',
    });
    expect(standingQueue(backlog(120), 'lfnvendor', 167, 8, 'delay').pass).toBe(false);
    expect(standingQueue(backlog(120), 'lfnvendor', 167, 8, 'loss').pass).toBeNull();
    // A built-in stack keeps its own prediction whatever family is passed.
    expect(standingQueue(backlog(3), 'vegas', 167, 8, 'delay').measured).toBe('3 pkts (expected 2-4)');
  });
});
