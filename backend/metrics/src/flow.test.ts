import { describe, expect, it } from 'vitest';
import {
  aggregateThroughputStats,
  retransmitRate,
  rttStats,
  stabilityIndex,
  throughputStats,
} from './flow.js';
import { MetricInputError } from './guard.js';
import { series } from './series.js';

const M = 1e6;

/** 1 s rate samples, 5 s at 100 Mbit/s then 5 s at 200 Mbit/s, repeated: 5 s means 100, 200, 100, 200. */
function alternating(): ReturnType<typeof series> {
  const t = Array.from({ length: 20 }, (_, i) => i);
  const v = t.map((i) => (Math.floor(i / 5) % 2 === 0 ? 100 * M : 200 * M));
  return series(t, v, 20);
}

describe('throughputStats', () => {
  it('averages over 5 s intervals by default, as seed 000 does', () => {
    const st = throughputStats(alternating());
    expect(st.intervals).toBe(4);
    expect(st.meanBitPerS).toBeCloseTo(150 * M, 3);
    expect(st.sdBitPerS).toBeCloseTo(50 * M, 3);
    expect(st.stabilityIndex).toBeCloseTo(1 / 3, 12);
  });

  it('depends on the interval: over 10 s the alternation averages out', () => {
    const st = throughputStats(alternating(), { intervalS: 10 });
    expect(st.intervals).toBe(2);
    expect(st.sdBitPerS).toBeCloseTo(0, 3);
    expect(st.stabilityIndex).toBeCloseTo(0, 12);
  });

  it('can be restricted to part of the run', () => {
    const st = throughputStats(alternating(), { startS: 5, endS: 10 });
    expect(st).toMatchObject({ meanBitPerS: 200 * M, sdBitPerS: 0, intervals: 1 });
  });

  it('rejects negative throughput and runs without data', () => {
    expect(() => throughputStats(series([0, 1], [5, -1], 2), { intervalS: 1 })).toThrow(MetricInputError);
    expect(() => throughputStats(series([100], [5], 101), { intervalS: 1, endS: 50 })).toThrow(
      /no throughput/,
    );
  });
});

describe('stabilityIndex', () => {
  it('is σ/μ of the values', () => {
    // seed 000 Table 1, Reno Caltech 256 KB: 238 ± 15 Mbit/s. Two values mean ± σ reproduce it.
    expect(stabilityIndex([238 - 15, 238 + 15])).toBeCloseTo(15 / 238, 12);
    expect(stabilityIndex([5, 5, 5])).toBe(0);
  });

  it('is NaN for a flow that moved nothing', () => {
    expect(stabilityIndex([0, 0])).toBeNaN();
  });
});

describe('retransmitRate', () => {
  it('divides retransmitted by sent segments', () => {
    expect(retransmitRate(30, 12_000)).toBe(0.0025);
    expect(retransmitRate(0, 10)).toBe(0);
  });

  it('rejects impossible counters', () => {
    expect(() => retransmitRate(1, 0)).toThrow(/sent nothing/);
    expect(() => retransmitRate(11, 10)).toThrow(/exceeds/);
    expect(() => retransmitRate(-1, 10)).toThrow(MetricInputError);
  });
});

describe('rttStats', () => {
  const rtt = series([0, 1, 2, 3], [10, 12, 14, 100]);

  it('summarises the samples in the window', () => {
    const st = rttStats(rtt, { toS: 3 });
    expect(st.meanMs).toBe(12);
    expect(st.sdMs).toBeCloseTo(Math.sqrt(8 / 3), 12);
    expect(st).toMatchObject({ minMs: 10, maxMs: 14, samples: 3 });
  });

  it('uses every sample by default', () => {
    expect(rttStats(rtt).samples).toBe(4);
    expect(rttStats(rtt).maxMs).toBe(100);
  });

  it('rejects empty windows and negative RTTs', () => {
    expect(() => rttStats(rtt, { fromS: 10 })).toThrow(/no RTT samples/);
    expect(() => rttStats(series([0], [-3]))).toThrow(MetricInputError);
  });
});

describe('aggregateThroughputStats', () => {
  /** A part that swings opposite to alternating(): 5 s means 100, 0, 100, 0 Mbit/s. */
  const opposite = () => {
    const t = Array.from({ length: 20 }, (_, i) => i);
    return series(
      t,
      t.map((i) => (Math.floor(i / 5) % 2 === 0 ? 100 * M : 0)),
      20,
    );
  };

  it('is flat when one part takes exactly what the other leaves', () => {
    const st = aggregateThroughputStats([alternating(), opposite()]);
    expect(st.intervals).toBe(4);
    expect(st.meanBitPerS).toBeCloseTo(200 * M, 3);
    expect(st.stabilityIndex).toBeCloseTo(0, 12);
  });

  it('swings with both parts when they move together', () => {
    const together = aggregateThroughputStats([alternating(), alternating()]);
    expect(together.stabilityIndex).toBeCloseTo(1 / 3, 12);
  });

  it('leaves out an interval where a part has no data, and starts where asked', () => {
    const late = series([10, 15], [50 * M, 50 * M], 20);
    const st = aggregateThroughputStats([alternating(), late]);
    expect(st.intervals).toBe(2);
    expect(st.meanBitPerS).toBeCloseTo(200 * M, 3);
    expect(aggregateThroughputStats([alternating()], { startS: 5 }).intervals).toBe(3);
  });

  it('refuses no parts', () => {
    expect(() => aggregateThroughputStats([])).toThrow(MetricInputError);
  });
});
