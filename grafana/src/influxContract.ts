// The InfluxDB contract: every measurement lfnlab writes, its tags and its fields with their types
// and meaning. The backend's writer (backend/src/storage/points.ts, runPoints.ts) builds its points
// from it and the dashboards here query only what it names, so a field is added or renamed in this
// one place. Add fields rather than rename them: stored data and users' own queries name them too.
//
// For samples it is also the one table of names a value goes by: the key in the run's JSON samples,
// the InfluxDB field and the CSV export's header (which carries the unit).

export type FieldType = 'float' | 'string';

export interface MeasurementContract {
  /** What one point is and when it is written. */
  doc: string;
  tags: readonly string[];
  /** Tags that may be left out of a point (an empty tag value is not written). */
  optionalTags: readonly string[];
  fields: Readonly<Record<string, FieldType>>;
}

/**
 * One value of a sample under its names: `json`, the key in samples/<kind>.jsonl; `influx`, the
 * field it is written as (absent: not written, e.g. a string or a tag); `csv`, its header in the
 * CSV export (absent: not exported). `t` is the point's timestamp in InfluxDB, not a field.
 */
export interface SampleColumn {
  readonly json: string;
  readonly influx?: string;
  readonly csv?: string;
}

/**
 * Each sample kind's values in CSV column order; the InfluxDB fields are those with an `influx`
 * name, in the same order. Tags that come from the sample (path, stage, source...) keep one name
 * everywhere; a flow's stack, path and direction come from the run's spec, not the sample.
 */
export const SAMPLE_COLUMNS = {
  tcp: [
    { json: 't', csv: 't_s' },
    { json: 'flow', csv: 'flow' },
    { json: 'streams', influx: 'streams', csv: 'streams' },
    { json: 'cc', csv: 'cc' },
    { json: 'cwndPackets', influx: 'cwnd_packets', csv: 'cwnd_packets' },
    { json: 'ssthreshPackets', influx: 'ssthresh_packets', csv: 'ssthresh_packets' },
    { json: 'srttMs', influx: 'srtt_ms', csv: 'srtt_ms' },
    { json: 'rttvarMs', influx: 'rttvar_ms', csv: 'rttvar_ms' },
    { json: 'minRttMs', influx: 'min_rtt_ms', csv: 'min_rtt_ms' },
    { json: 'pacingBps', influx: 'pacing_bps', csv: 'pacing_bps' },
    { json: 'deliveryBps', influx: 'delivery_bps', csv: 'delivery_bps' },
    { json: 'bytesAcked', influx: 'bytes_acked', csv: 'bytes_acked' },
    { json: 'retransSegments', influx: 'retrans_segments', csv: 'retrans_segments' },
    { json: 'lostPackets', influx: 'lost_packets', csv: 'lost_packets' },
    { json: 'unackedPackets', influx: 'unacked_packets', csv: 'unacked_packets' },
    { json: 'dataSegsOut', influx: 'data_segs_out', csv: 'data_segs_out' },
    // The stack's own state, raw (tcpvegas_info; what each number means is the stack's).
    { json: 'vegasEnabled', influx: 'vegas_enabled', csv: 'vegas_enabled' },
    { json: 'vegasRttcnt', influx: 'vegas_rttcnt', csv: 'vegas_rttcnt' },
    { json: 'vegasRtt', influx: 'vegas_rtt', csv: 'vegas_rtt' },
    { json: 'vegasMinrtt', influx: 'vegas_minrtt', csv: 'vegas_minrtt' },
  ],
  goodput: [
    { json: 't', csv: 't_s' },
    { json: 'flow', csv: 'flow' },
    { json: 'bps', influx: 'bps', csv: 'goodput_bps' },
    { json: 'bytesReceived', influx: 'bytes_received', csv: 'bytes_received' },
  ],
  queue: [
    { json: 't', csv: 't_s' },
    { json: 'path', csv: 'path' },
    { json: 'stage', csv: 'stage' },
    { json: 'direction', csv: 'direction' },
    { json: 'dev', csv: 'dev' },
    { json: 'backlogPackets', influx: 'backlog_packets', csv: 'backlog_packets' },
    { json: 'backlogBytes', influx: 'backlog_bytes', csv: 'backlog_bytes' },
    { json: 'drops', influx: 'drops', csv: 'drops_packets' },
    { json: 'packets', influx: 'packets', csv: 'sent_packets' },
    { json: 'bytes', influx: 'bytes', csv: 'sent_bytes' },
  ],
  cpu: [
    { json: 't', csv: 't_s' },
    { json: 'busyPct', influx: 'busy_pct', csv: 'busy_pct' },
    { json: 'userPct', influx: 'user_pct', csv: 'user_pct' },
    { json: 'systemPct', influx: 'system_pct', csv: 'system_pct' },
    { json: 'softirqPct', influx: 'softirq_pct', csv: 'softirq_pct' },
  ],
  rtt: [
    { json: 't', csv: 't_s' },
    { json: 'path', csv: 'path' },
    { json: 'rttMs', influx: 'rtt_ms', csv: 'rtt_ms' },
    { json: 'seq', influx: 'seq', csv: 'seq' },
  ],
  udp: [
    { json: 't', csv: 't_s' },
    { json: 'source', csv: 'source' },
    { json: 'path', csv: 'path' },
    { json: 'bps', influx: 'rate_bps', csv: 'rate_bps' },
    { json: 'lost', influx: 'lost', csv: 'lost_datagrams' },
    { json: 'owdMeanMs', influx: 'owd_ms', csv: 'one_way_delay_ms' },
  ],
  interval: [
    { json: 't', csv: 't_s' },
    { json: 'flow', csv: 'flow' },
    { json: 'seconds', influx: 'seconds', csv: 'interval_s' },
    { json: 'goodputBps', influx: 'goodput_bps', csv: 'goodput_bps' },
    { json: 'sendBps', influx: 'send_bps', csv: 'send_bps' },
    { json: 'retransmits', influx: 'retransmits', csv: 'retransmits_segments' },
    { json: 'cwndBytes', influx: 'cwnd_bytes', csv: 'cwnd_bytes' },
    { json: 'rttMs', influx: 'rtt_ms', csv: 'rtt_ms' },
    // The CSV counts the streams of the interval's report; InfluxDB has no list field.
    { json: 'streams', csv: 'stream_count' },
  ],
  wireflow: [
    { json: 't', csv: 't_s' },
    { json: 'flow', csv: 'flow' },
    { json: 'newBytes', influx: 'new_bytes', csv: 'delivered_bytes' },
    { json: 'goodputBps', influx: 'goodput_bps', csv: 'goodput_bps' },
    { json: 'inBytes', influx: 'in_bytes', csv: 'entered_bytes' },
    { json: 'retransSegments', influx: 'retrans_segments', csv: 'retrans_segments' },
    { json: 'flightBytes', influx: 'flight_bytes', csv: 'flight_bytes' },
    { json: 'rttMs', influx: 'rtt_ms', csv: 'rtt_ms' },
    { json: 'rttMinMs', influx: 'rtt_min_ms', csv: 'rtt_min_ms' },
    { json: 'rttSamples', influx: 'rtt_samples', csv: 'rtt_samples' },
  ],
} as const satisfies Record<string, readonly SampleColumn[]>;

export type SampleKindName = keyof typeof SAMPLE_COLUMNS;

/** Measurement names: one per sample kind, then the points that are not samples. */
export const MEASUREMENTS = {
  tcp: 'lfn_tcp',
  goodput: 'lfn_goodput',
  queue: 'lfn_queue',
  cpu: 'lfn_cpu',
  rtt: 'lfn_rtt',
  interval: 'lfn_interval',
  udp: 'lfn_udp',
  wireflow: 'lfn_wireflow',
  event: 'lfn_event',
  summary: 'lfn_summary',
  fairness: 'lfn_fairness',
  health: 'lfn_health',
} as const;

export type Measurement = (typeof MEASUREMENTS)[keyof typeof MEASUREMENTS];

const FLOW_TAGS = ['run', 'user', 'flow', 'stack', 'path', 'direction'] as const;

/** The InfluxDB fields of a sample kind, all floats, in SAMPLE_COLUMNS order. */
function sampleFields(kind: SampleKindName): Record<string, FieldType> {
  const cols: readonly SampleColumn[] = SAMPLE_COLUMNS[kind];
  return Object.fromEntries(cols.flatMap((c) => (c.influx ? [[c.influx, 'float' as const]] : [])));
}

const sample = (kind: SampleKindName, doc: string, tags: readonly string[]): MeasurementContract => ({
  doc,
  tags,
  optionalTags: [],
  fields: sampleFields(kind),
});

/** Every measurement's tags and fields: what the backend writes and what dashboards may name. */
export const INFLUX_SCHEMA: Readonly<Record<Measurement, MeasurementContract>> = {
  lfn_tcp: sample('tcp', "A flow's sender-side TCP state at one sampler tick.", FLOW_TAGS),
  lfn_goodput: sample('goodput', "A flow's receiver goodput since the previous tick, bit/s.", FLOW_TAGS),
  lfn_queue: sample('queue', 'A router qdisc at one tick.', [
    'run',
    'user',
    'path',
    'direction',
    'stage',
    'dev',
  ]),
  lfn_cpu: sample('cpu', "The lab's CPU use between two ticks, percent of all CPUs.", ['run', 'user']),
  lfn_rtt: sample('rtt', "One reply of a path's RTT probe.", ['run', 'user', 'path']),
  lfn_interval: sample('interval', "iperf3's own report of one interval of a flow.", FLOW_TAGS),
  lfn_udp: sample('udp', 'UDP cross traffic as its sink received it over one report.', [
    'run',
    'user',
    'path',
    'source',
  ]),
  lfn_wireflow: sample(
    'wireflow',
    "A wire's flow as the lab saw it on its two ports over one tick (lfn-flowmeter): new payload delivered toward the receiver, payload entered, retransmissions entering, flight, RTT from TCP timestamps.",
    FLOW_TAGS,
  ),
  lfn_event: {
    doc:
      'One point per run event, at the time it happened: type "flow_start" at each flow\'s start ' +
      '(tag flow set), "flow_end" at its end (tag flow set) and "verdict" when the fidelity verdict ' +
      'is known (no flow tag). Field text is what the annotation shows, e.g. "cubic-1 starts (cubic, main)" ' +
      'or "verdict: valid (12 checks passed)". Read by the Run dashboard annotations.',
    tags: ['run', 'user', 'type', 'flow'],
    optionalTags: ['flow'],
    fields: { text: 'string' },
  },
  lfn_summary: {
    doc:
      'One point per (run, stack, path) when a run finishes, timestamped at the end of its traffic. ' +
      "goodput_mbps: mean goodput of that stack's flows on that path over the run, Mbit/s (per flow); " +
      "verdict_code: the run's fidelity verdict, 0 valid, 1 suspect, 2 invalid (see VERDICT_CODES); " +
      "lab_limited_share: mean share (0..1) of those flows' busy time the lab, not the network, held them back. " +
      'Tag campaign names the sweep the run belongs to and is left out for a single run. ' +
      "Read by the Campaign and Compare dashboards and the Run dashboard's summary stats.",
    tags: ['run', 'user', 'campaign', 'stack', 'path'],
    optionalTags: ['campaign'],
    fields: { goodput_mbps: 'float', verdict_code: 'float', lab_limited_share: 'float' },
  },
  lfn_fairness: {
    doc:
      'One point per (run, path, direction) where two or more flows shared that bottleneck, at the ' +
      "same time as the run's lfn_summary points. jain: Jain's fairness index of those flows' " +
      'whole-run goodputs, the value the run summary and the CLI show as "Jain fwd" / "Jain rev". ' +
      'No point where the index does not exist (one flow, a flow without goodput, no traffic). ' +
      'Tag campaign as on lfn_summary. Read by the Run, Campaign and Compare dashboards.',
    tags: ['run', 'user', 'campaign', 'path', 'direction'],
    optionalTags: ['campaign'],
    fields: { jain: 'float' },
  },
  lfn_health: {
    doc:
      "The backend's own state, every 1 s to 10 s while it runs (not per run): spool_bytes, the size of " +
      'the on-disk spool of points not yet accepted by InfluxDB; points_written, a counter of points ' +
      'InfluxDB accepted since the backend started (the dashboard takes its non-negative rate, so a ' +
      "restart is not a negative spike). Tag host is the backend's host name. Read by Lab health.",
    tags: ['host'],
    optionalTags: [],
    fields: { spool_bytes: 'float', points_written: 'float' },
  },
};

/** lfn_summary.verdict_code: the fidelity verdict as a number (InfluxQL cannot aggregate strings). */
export const VERDICT_CODES = { valid: 0, suspect: 1, invalid: 2 } as const;

/** lfn_event.type values the dashboards query. */
export const EVENT_TYPES = { flowStart: 'flow_start', flowEnd: 'flow_end', verdict: 'verdict' } as const;
