// The error policy stated in index.ts, checked through the public entry point: malformed input
// throws MetricInputError; valid input whose metric does not exist gives NaN.

import { describe, expect, it } from 'vitest';
import * as metrics from './index.js';

const { MetricInputError, series } = metrics;
const flat = series([0], [100], 10);

describe('malformed input throws MetricInputError', () => {
  const cases: [string, () => unknown][] = [
    ['empty throughput list', () => metrics.jainIndex([])],
    ['negative throughput', () => metrics.jainIndex([10, -1])],
    ['NaN throughput', () => metrics.efficiency([Number.NaN], 1)],
    ['zero capacity', () => metrics.efficiency([1], 0)],
    ['negative capacity', () => metrics.fairShare(-1, 2)],
    ['negative asymmetry input', () => metrics.asymmetry(-1, 1)],
    ['empty mean', () => metrics.mean([])],
    ['empty series', () => metrics.series([], [])],
    ['unsorted series', () => metrics.series([1, 0], [1, 1])],
    ['zero interval', () => metrics.intervalMeans(flat, 0)],
    ['zero RTT', () => metrics.bdpPackets(1e9, 0, 1500)],
    ['zero MSS', () => metrics.mathisThroughputBitPerS(0, 0.1, 0.01)],
    ['BER above 1', () => metrics.lineErrorsPerS(2, 1e9)],
    ['zero flows', () => metrics.nFlowLinkUse(0)],
    ['retransmits without sends', () => metrics.retransmitRate(1, 0)],
    ['α out of (0, 1)', () => metrics.performanceScore(1, 1, 1.5)],
    ['no Reno measurements', () => metrics.renoEquivalentFlows([], 1)],
    ['negative cwnd', () => metrics.windowRecoveries(series([0, 1], [1, -1]))],
    ['fraction above 1', () => metrics.rampUp(flat, { fractions: [2] })],
    ['no incumbents', () => metrics.convergenceTime(flat, [], { lateStartS: 0 })],
  ];

  it.each(cases)('%s', (_name, call) => {
    expect(call).toThrow(MetricInputError);
  });

  it('names the offending argument', () => {
    expect(() => metrics.efficiency([1], 0)).toThrow(/capacityBitPerS must be greater than 0 \(got 0\)/);
  });
});

describe('valid input without a defined metric gives NaN', () => {
  const cases: [string, () => number][] = [
    ['Jain of idle flows', () => metrics.jainIndex([0, 0, 0])],
    ['asymmetry of idle flows', () => metrics.asymmetry(0, 0)],
    ['stability of an idle flow', () => metrics.stabilityIndex([0, 0])],
    ['stats of a flat idle series', () => metrics.throughputStats(series([0], [0], 10)).stabilityIndex],
    ['interval without data', () => metrics.intervalMeans(series([6], [1], 10), 5).values[0] ?? 0],
    [
      'Reno equivalence beyond the measured range',
      () => metrics.renoEquivalentFlows([{ flows: 1, aggregateBitPerS: 10 }], 20),
    ],
    ['window never recovers', () => metrics.windowRecoveries(series([0, 1], [10, 5]))[0]?.recoveryS ?? 0],
    [
      'never converges',
      () =>
        metrics.convergenceTime(series([0], [1], 10), [series([0], [99], 10)], { lateStartS: 0 })
          .convergenceTimeS,
    ],
    [
      'target never reached',
      () => metrics.rampUp(flat, { maxBitPerS: 1000, fractions: [0.5] }).points[0]?.elapsedS ?? 0,
    ],
  ];

  it.each(cases)('%s', (_name, call) => {
    expect(call()).toBeNaN();
  });
});
