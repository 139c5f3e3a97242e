// The metrics a qualification suite can bound: each a registry id of @lfnlab/metrics (where it is
// defined and computed), its unit, the range a bound may take, and the units a suite may write it in.
import { METRICS, type MetricId } from '@lfnlab/metrics';

export const QUALIFY_METRICS = {
  goodput_share: { id: 'goodput.share', low: 0, high: 1.5 },
  jain: { id: 'jain.whole', low: 0, high: 1 },
  rtt_inflation: { id: 'rtt.inflation', low: 1, high: 100 },
  recovery_time: { id: 'recovery.time', low: 0, high: 3600 },
  loss_response: { id: 'loss.response', low: 0, high: 1 },
  time_to_90: { id: 'rampup.link_time_90', low: 0, high: 3600 },
} as const satisfies Record<string, { id: MetricId; low: number; high: number }>;

export type QualifyMetric = keyof typeof QUALIFY_METRICS;
export const QUALIFY_METRIC_NAMES = Object.keys(QUALIFY_METRICS) as QualifyMetric[];

/** The metric's unit as the registry states it ('ratio' or 's'). */
export const metricUnit = (m: QualifyMetric) => METRICS[QUALIFY_METRICS[m].id].unit;
export const metricTitle = (m: QualifyMetric) => METRICS[QUALIFY_METRICS[m].id].title;

/** Units a bound may be written in, each with its factor to the metric's own unit. */
export function unitFactors(m: QualifyMetric): Record<string, number> {
  return metricUnit(m) === 's' ? { s: 1, ms: 1e-3 } : { ratio: 1, '%': 1e-2 };
}

/** A number at the precision messages use: 0.62, 12.3, 240. */
export function formatNumber(v: number): string {
  const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return v.toFixed(digits);
}

/** The unit as messages write it after a number: ' s' for seconds, nothing for a ratio. */
export const unitSuffix = (m: QualifyMetric) => (metricUnit(m) === 's' ? ' s' : '');

/** A value in the metric's unit, for messages: 0.62, 12.3 s. */
export const formatValue = (m: QualifyMetric, v: number) => `${formatNumber(v)}${unitSuffix(m)}`;

/** An interval in the metric's unit: 0.58–0.66, 10.2–14.0 s. */
export const formatRange = (m: QualifyMetric, low: number, high: number) =>
  `${formatNumber(low)}–${formatNumber(high)}${unitSuffix(m)}`;
