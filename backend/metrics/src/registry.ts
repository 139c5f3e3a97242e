// Every metric the lab reports, under a stable id. summary.json stores { id, value, unit } and the
// UI looks the id up here for a title and a definition, so ids must never be renamed; add new
// ones instead.

export type MetricUnit =
  | 'bit/s'
  | 'bytes'
  | 'packets'
  | 's'
  | 'ms'
  | 'ratio'
  | 'flows'
  | 'errors/s'
  | 'MHz/(Mbit/s)';

export interface MetricDefinition {
  id: string;
  title: string;
  unit: MetricUnit;
  /** One line, in our own words. */
  definition: string;
  /** Where the metric comes from, for the report's references. */
  source?: string;
}

function define<const T extends readonly MetricDefinition[]>(defs: T) {
  return Object.fromEntries(defs.map((d) => [d.id, d])) as { [D in T[number] as D['id']]: D };
}

export const METRICS = define([
  {
    id: 'throughput.mean',
    title: 'Mean throughput',
    unit: 'bit/s',
    definition: 'Average of the per-interval throughputs of one flow.',
    source: 'seed 000 §4.4',
  },
  {
    id: 'throughput.sd',
    title: 'Throughput standard deviation',
    unit: 'bit/s',
    definition: 'Population standard deviation of the per-interval throughputs of one flow.',
    source: 'seed 000 §4.4',
  },
  {
    id: 'stability.sigma_over_mu',
    title: 'Stability index',
    unit: 'ratio',
    definition: 'Spread of interval throughputs relative to their mean (σ/μ); 0 is perfectly steady.',
    source: 'seed 000 §4.6; seed 002 (coefficient of variance)',
  },
  {
    id: 'throughput.aggregate',
    title: 'Aggregate throughput',
    unit: 'bit/s',
    definition:
      'Mean per interval of what a bottleneck direction carried: its TCP flows’ goodput and its UDP cross traffic (as its sink received it, IP bytes) added up.',
    source: 'seed 000 §4.5',
  },
  {
    id: 'stability.aggregate',
    title: 'Aggregate stability index',
    unit: 'ratio',
    definition:
      'σ/μ of what a bottleneck direction carried per interval: its TCP flows and its UDP cross traffic added up. Near 0 when the flows take the capacity the cross traffic leaves.',
    source: 'seed 000 §4.5',
  },
  {
    id: 'retransmit.rate',
    title: 'Retransmit rate',
    unit: 'ratio',
    definition: 'Share of the segments a sender put on the wire that were retransmissions.',
  },
  {
    id: 'cpu.mhz_per_mbps',
    title: 'Sender CPU per unit of throughput',
    unit: 'MHz/(Mbit/s)',
    definition:
      'CPU the sending process used, as a share of one core times the core clock, per Mbit/s it moved.',
    source: 'seed 000 §4.5',
  },
  { id: 'rtt.mean', title: 'Mean RTT', unit: 'ms', definition: 'Average of the round-trip time samples.' },
  {
    id: 'rtt.sd',
    title: 'RTT standard deviation',
    unit: 'ms',
    definition: 'Spread of the round-trip time samples.',
  },
  {
    id: 'jain.whole',
    title: 'Jain fairness, whole run',
    unit: 'ratio',
    definition:
      'Chiu-Jain index of the flows’ mean throughputs over the whole run; 1 is an even split, 1/n one winner.',
    source: 'seed 000 §5.1; seed 001 eq. 7 (TRT)',
  },
  {
    id: 'jain.second_half',
    title: 'Jain fairness, second half',
    unit: 'ratio',
    definition:
      'Chiu-Jain index of the flows’ mean throughputs over the second half of the run, after start-up.',
    source: 'seed 001 §6 (SHT)',
  },
  {
    id: 'jain.per_interval',
    title: 'Jain fairness per interval',
    unit: 'ratio',
    definition: 'Chiu-Jain index computed separately in each fixed interval over the flows active in it.',
  },
  {
    id: 'jain.active_set',
    title: 'Jain fairness per active set',
    unit: 'ratio',
    definition:
      'Chiu-Jain index against the fair share B/n in each stretch where the set of running flows is fixed.',
    source: 'seed 001 §4.1 (ii) (DST)',
  },
  {
    id: 'asymmetry',
    title: 'Asymmetry',
    unit: 'ratio',
    definition: 'Difference of two flows’ throughputs over their sum; +1 means the first starves the second.',
    source: 'seed 000 §5.2',
  },
  {
    id: 'efficiency',
    title: 'Efficiency',
    unit: 'ratio',
    definition: 'Sum of the flows’ mean throughputs divided by the bottleneck capacity.',
    source: 'seed 001 eq. 8',
  },
  {
    id: 'performance.score',
    title: 'Performance score',
    unit: 'ratio',
    definition: 'Weighted blend α·efficiency + (1−α)·fairness, α = 0.2 unless stated.',
    source: 'seed 001 eq. 10',
  },
  {
    id: 'convergence.time',
    title: 'Convergence time',
    unit: 's',
    definition: 'Time from a flow joining until its throughput stays within tolerance of the fair share.',
    source: 'seed 002 (transient fairness)',
  },
  {
    id: 'equivalence.reno_flows',
    title: 'Reno-flow equivalence',
    unit: 'flows',
    definition: 'Number of parallel Reno flows whose combined throughput matches one flow of the stack.',
    source: 'seed 002 (equivalence test)',
  },
  {
    id: 'recovery.time',
    title: 'Loss recovery time',
    unit: 's',
    definition: 'Time from a congestion-window reduction until the window is back at its pre-loss size.',
  },
  {
    id: 'responsiveness',
    title: 'Responsiveness (Reno, theory)',
    unit: 's',
    definition: 'Predicted time for Reno to grow from half the pipe back to a full pipe at one MSS per RTT.',
    source: 'seed 003 eq. 6',
  },
  {
    id: 'rampup.time_50',
    title: 'Time to 50 % of maximum',
    unit: 's',
    definition: 'Time from transfer start until the average rate so far reaches half the maximum.',
    source: 'seed 004 §3.1.2',
  },
  {
    id: 'rampup.time_90',
    title: 'Time to 90 % of maximum',
    unit: 's',
    definition: 'Time from transfer start until the average rate so far reaches 90 % of the maximum.',
    source: 'seed 004 §3.1.2',
  },
  {
    id: 'rampup.bytes_50',
    title: 'Data to 50 % of maximum',
    unit: 'bytes',
    definition: 'Data delivered by the time the average rate so far reaches half the maximum.',
    source: 'seed 004 §3.1.2',
  },
  {
    id: 'rampup.bytes_90',
    title: 'Data to 90 % of maximum',
    unit: 'bytes',
    definition: 'Data delivered by the time the average rate so far reaches 90 % of the maximum.',
    source: 'seed 004 §3.1.2',
  },
  {
    id: 'goodput.share',
    title: 'Goodput share of the link',
    unit: 'ratio',
    definition: 'Whole-run goodput of one flow divided by the bottleneck capacity in its direction.',
  },
  {
    id: 'rampup.link_time_90',
    title: 'Time to 90 % of the link',
    unit: 's',
    definition: 'Time from a flow’s start until its rate first reaches 90 % of the bottleneck capacity.',
  },
  {
    id: 'rtt.inflation',
    title: 'RTT inflation',
    unit: 'ratio',
    definition:
      'Mean RTT the probe saw while traffic ran divided by the idle path’s RTT; 1 means no queueing.',
  },
  {
    id: 'loss.response',
    title: 'Loss response (window reduction factor)',
    unit: 'ratio',
    definition: 'Median congestion window just after a loss reduction over the window just before it.',
  },
  {
    id: 'theory.bdp_bytes',
    title: 'Bandwidth-delay product',
    unit: 'bytes',
    definition: 'Data in flight needed to keep the bottleneck busy for one round trip.',
    source: 'seed 003 eq. 10',
  },
  {
    id: 'theory.bdp_packets',
    title: 'Bandwidth-delay product in packets',
    unit: 'packets',
    definition: 'The bandwidth-delay product counted in full-sized packets.',
    source: 'seed 003 eq. 11',
  },
  {
    id: 'theory.mathis_throughput',
    title: 'Mathis throughput bound',
    unit: 'bit/s',
    definition: 'Throughput Reno can sustain at a given loss rate and RTT: (MSS/RTT)·√(3/2)/√p.',
  },
  {
    id: 'theory.per',
    title: 'Packet error rate',
    unit: 'ratio',
    definition: 'Chance that a packet of the given size carries at least one bit error at the given BER.',
    source: 'seed 003 §III.B',
  },
  {
    id: 'theory.line_errors',
    title: 'Line errors per second',
    unit: 'errors/s',
    definition: 'Bit errors per second a link of the given rate and BER lets through.',
    source: 'seed 003 §III.B',
  },
  {
    id: 'theory.n_flow_link_use',
    title: 'Link use by N Reno flows',
    unit: 'ratio',
    definition: 'Share of capacity that N synchronised Reno flows keep busy on average: 1 − 1/2^(N+1).',
    source: 'seed 003 eq. 12',
  },
]);

export type MetricId = keyof typeof METRICS;

export interface MetricValue {
  id: MetricId;
  value: number;
  unit: MetricUnit;
}

/**
 * The { id, value, unit } record summary.json carries; the unit comes from the registry so a value
 * cannot be filed under the wrong one. JSON has no NaN, so "not reached" (NaN) is written as null
 * by JSON.stringify; readers should treat null as "did not happen".
 */
export function metricValue(id: MetricId, value: number): MetricValue {
  if (!Object.hasOwn(METRICS, id)) throw new Error(`unknown metric id '${String(id)}'`);
  return { id, value, unit: METRICS[id].unit };
}

/**
 * The metrics that moved when a run's metrics were computed again (keys `scope id`, as rejudge
 * notes them), named once each: all when few, else the first three and how many more.
 */
export function movedMetricsText(keys: readonly string[]): string {
  const ids = [...new Set(keys.map((k) => k.slice(k.indexOf(' ') + 1)))];
  if (ids.length === 0) return 'none';
  return ids.length <= 4 ? ids.join(', ') : `${ids.slice(0, 3).join(', ')} and ${ids.length - 3} more`;
}
