// The measurements the dashboards read, all written by the backend: samples by
// backend/src/storage/points.ts, and lfn_event, lfn_summary and lfn_health by runPoints.ts beside
// it. The tests check every query against points.ts SCHEMA; the three below also carry their field
// types and meaning (the contract runPoints.ts implements, checked equal to SCHEMA).

/** Measurements written by backend/src/storage/points.ts today (its MEASUREMENTS values). */
export const BACKEND_MEASUREMENTS = [
  'lfn_tcp',
  'lfn_goodput',
  'lfn_queue',
  'lfn_cpu',
  'lfn_rtt',
  'lfn_interval',
  'lfn_udp',
  'lfn_event',
  'lfn_summary',
  'lfn_health',
] as const;

export type FieldType = 'float' | 'string';

export interface ExpectedMeasurement {
  /** What one point is and when it is written. */
  doc: string;
  tags: readonly string[];
  /** Tags that may be left out of a point (an empty tag value is not written). */
  optionalTags: readonly string[];
  fields: Readonly<Record<string, FieldType>>;
}

/**
 * The non-sample measurements, with field types. Numbers are floats (points.ts writes integers
 * without the `i` suffix); `lfn_event.text` is the only string field.
 */
export const EXPECTED_SCHEMA = {
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
      "jain: Jain fairness index over all of the run's flows (the same on every point of a run); " +
      "verdict_code: the run's fidelity verdict, 0 valid, 1 suspect, 2 invalid (see VERDICT_CODES); " +
      "lab_limited_share: mean share (0..1) of those flows' busy time the lab, not the network, held them back. " +
      'Tag campaign names the sweep the run belongs to and is left out for a single run. ' +
      "Read by the Campaign and Compare dashboards and the Run dashboard's summary stats.",
    tags: ['run', 'user', 'campaign', 'stack', 'path'],
    optionalTags: ['campaign'],
    fields: { goodput_mbps: 'float', jain: 'float', verdict_code: 'float', lab_limited_share: 'float' },
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
} as const satisfies Record<string, ExpectedMeasurement>;

export type Measurement = (typeof BACKEND_MEASUREMENTS)[number];

/** lfn_summary.verdict_code: the fidelity verdict as a number (InfluxQL cannot aggregate strings). */
export const VERDICT_CODES = { valid: 0, suspect: 1, invalid: 2 } as const;

/** lfn_event.type values the dashboards query. */
export const EVENT_TYPES = { flowStart: 'flow_start', flowEnd: 'flow_end', verdict: 'verdict' } as const;
