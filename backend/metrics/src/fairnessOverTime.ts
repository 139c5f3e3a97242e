// Fairness of several flows' throughput series: over a window, per interval, and per stretch of
// a staggered-start run where the set of active flows is constant (seed 001's DST).

import { efficiency, fairShare, jainIndex, jainIndexNormalised, performanceScore } from './fairness.js';
import { at, fail, requireFinite, requirePositive } from './guard.js';
import {
  checkSeries,
  type Intervals,
  intervalMeans,
  type Series,
  seriesEnd,
  timeWeightedMean,
} from './series.js';

/**
 * Each flow's time-weighted mean throughput over [fromS, toS), counting only the time the flow has
 * data (a flow that joined late is averaged over its own lifetime). Throws if a flow has no data
 * there, since a silent flow would otherwise vanish from the fairness index.
 */
export function meanThroughputs(flowsBitPerS: readonly Series[], fromS: number, toS: number): number[] {
  if (flowsBitPerS.length === 0) fail('flowsBitPerS must not be empty');
  return flowsBitPerS.map((s, i) => {
    checkSeries(s, `flowsBitPerS[${i}]`);
    const m = timeWeightedMean(s, fromS, toS);
    if (Number.isNaN(m)) fail(`flowsBitPerS[${i}] has no data between ${fromS} s and ${toS} s`);
    return m;
  });
}

/** Jain index of the flows' means over the whole run [0, runDurationS) (seed 001 TRT). */
export function jainWholeRun(flowsBitPerS: readonly Series[], runDurationS: number): number {
  requirePositive(runDurationS, 'runDurationS');
  return jainIndex(meanThroughputs(flowsBitPerS, 0, runDurationS));
}

/** Jain index of the flows' means over the second half of the run (seed 001 SHT), after start-up. */
export function jainSecondHalf(flowsBitPerS: readonly Series[], runDurationS: number): number {
  requirePositive(runDurationS, 'runDurationS');
  return jainIndex(meanThroughputs(flowsBitPerS, runDurationS / 2, runDurationS));
}

/**
 * Jain index in each fixed interval, over the flows that have data in it. Intervals where no
 * flow has data, or every flow moved nothing, are NaN.
 */
export function jainPerInterval(
  flowsBitPerS: readonly Series[],
  intervalS: number,
  { startS = 0, endS }: { startS?: number; endS?: number } = {},
): Intervals {
  if (flowsBitPerS.length === 0) fail('flowsBitPerS must not be empty');
  flowsBitPerS.forEach((s, i) => {
    checkSeries(s, `flowsBitPerS[${i}]`);
  });
  const end = endS ?? Math.max(...flowsBitPerS.map(seriesEnd));
  const perFlow = flowsBitPerS.map((s) => intervalMeans(s, intervalS, { startS, endS: end }).values);
  const values = at(perFlow, 0).map((_, k) => {
    const present = perFlow.map((vals) => at(vals, k)).filter((x) => !Number.isNaN(x));
    return present.length === 0 ? Number.NaN : jainIndex(present);
  });
  return { startS, intervalS, values };
}

export interface StaggeredFlow {
  throughputBitPerS: Series;
  /** When the flow joins (s from run start). */
  startS: number;
  /** When it leaves; default: end of run. */
  stopS?: number;
}

export interface ActiveSetFairness {
  /** The stretch of the run where the set of active flows does not change. */
  fromS: number;
  toS: number;
  /** Start of the part actually measured (fromS plus the settling time skipped). */
  measuredFromS: number;
  /** Indices into the flows argument. */
  active: number[];
  meanBitPerS: number[];
  /** Q_opt = B/n for this stretch. */
  fairShareBitPerS: number;
  jain: number;
  efficiency: number;
  performance: number;
}

/**
 * Seed 001 §4.1 (ii): with flows joining one by one, fairness is computed separately in each
 * stretch where the number of flows is constant, against that stretch's Q_opt = B/n.
 * `settleFraction` skips the start of each stretch (0.5 measures its second half), because a
 * newcomer's ramp-up would otherwise dominate the index.
 */
export function fairnessByActiveSet(
  flows: readonly StaggeredFlow[],
  capacityBitPerS: number,
  runDurationS: number,
  { settleFraction = 0, alpha }: { settleFraction?: number; alpha?: number } = {},
): ActiveSetFairness[] {
  if (flows.length === 0) fail('flows must not be empty');
  requirePositive(capacityBitPerS, 'capacityBitPerS');
  requirePositive(runDurationS, 'runDurationS');
  if (!(settleFraction >= 0 && settleFraction < 1))
    fail(`settleFraction must be in [0, 1) (got ${settleFraction})`);
  const spans = flows.map((f, i) => {
    checkSeries(f.throughputBitPerS, `flows[${i}].throughputBitPerS`);
    const from = requireFinite(f.startS, `flows[${i}].startS`);
    const to = f.stopS === undefined ? runDurationS : requireFinite(f.stopS, `flows[${i}].stopS`);
    if (from < 0 || to <= from) fail(`flows[${i}] must have 0 <= startS < stopS (got ${from}, ${to})`);
    return { from, to: Math.min(to, runDurationS) };
  });
  const cuts = [...new Set([0, runDurationS, ...spans.flatMap((s) => [s.from, s.to])])]
    .filter((x) => x >= 0 && x <= runDurationS)
    .sort((a, b) => a - b);
  const result: ActiveSetFairness[] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const fromS = at(cuts, k);
    const toS = at(cuts, k + 1);
    const active = spans.flatMap((s, i) => (s.from <= fromS && s.to >= toS ? [i] : []));
    if (active.length === 0) continue;
    const measuredFromS = fromS + settleFraction * (toS - fromS);
    const means = active.map((i) => {
      const m = timeWeightedMean(at(flows, i).throughputBitPerS, measuredFromS, toS);
      if (Number.isNaN(m))
        fail(`flows[${i}] is active but has no data between ${measuredFromS} s and ${toS} s`);
      return m;
    });
    const jain = jainIndexNormalised(means, capacityBitPerS);
    const eff = efficiency(means, capacityBitPerS);
    result.push({
      fromS,
      toS,
      measuredFromS,
      active,
      meanBitPerS: means,
      fairShareBitPerS: fairShare(capacityBitPerS, active.length),
      jain,
      efficiency: eff,
      performance: Number.isNaN(jain) ? Number.NaN : performanceScore(eff, jain, alpha),
    });
  }
  return result;
}
