// lfnlab metrics library: pure functions from measured series to the numbers the seed papers
// report, plus the registry of metric ids that summary.json and the UI share.
//
// Error policy, one rule for every function:
//   - Input that cannot be right throws MetricInputError with the argument's name: empty lists,
//     non-finite numbers, negative throughputs or counts, zero or negative capacity, RTT, MSS or
//     interval, out-of-range fractions, unsorted sample times, mismatched t/v lengths, counters that
//     decrease. These are bugs or unit mix-ups upstream and should stop the pipeline.
//   - Valid input for which the metric does not exist returns NaN: a flow that never converges or
//     never regains its window, a transfer that never reaches 90 %, Jain or σ/μ when every flow
//     moved nothing, asymmetry of two idle flows, a Reno equivalence beyond the measured range,
//     an averaging interval without samples. JSON.stringify writes NaN as null: "did not happen".
//
// Units are carried in names: ...BitPerS, ...S (seconds), ...Ms, ...Bytes; ratios are plain
// numbers in [0, 1] unless stated. Series times are seconds from run start.

export * from './bootstrap.js';
export * from './convergence.js';
export * from './equivalence.js';
export * from './fairness.js';
export * from './fairnessOverTime.js';
export * from './flow.js';
export { MetricInputError } from './guard.js';
export * from './interval.js';
export * from './jackknife.js';
export * from './kendall.js';
export * from './limits.js';
export * from './linkShare.js';
export * from './lossResponse.js';
export * from './rampup.js';
export * from './recovery.js';
export * from './registry.js';
export * from './rttInflation.js';
export * from './series.js';
export * from './stats.js';
export * from './studentT.js';
export * from './theory.js';
