// How samples become InfluxDB points: one measurement per sample kind, tags to select by (run,
// flow, stack, path, direction, user), numeric fields. Which measurement, tags and fields is the
// contract in @lfnlab/grafana (influxContract.ts) that the dashboards are generated from.
import { INFLUX_SCHEMA, MEASUREMENTS } from '@lfnlab/grafana';
import { SAMPLE_COLUMNS_BY_KIND } from '../run/sampleColumns.js';
import type { Sample } from '../run/samples.js';

export interface RunContext {
  runId: string;
  user: string;
  /** Host time at traffic start (ms since the epoch; see trafficOrigin): samples' t is seconds from it. */
  t0EpochMs: number;
  /**
   * Host time the run ended, when known. A run's closing points (summary, fairness, flow ends,
   * verdict) are stamped no later: a lab whose clock runs faster than the host's would otherwise
   * put them in the future, outside the dashboards' "now" windows.
   */
  endEpochMs?: number;
  flows: Record<string, { stack: string; path: string; direction: 'forward' | 'reverse' }>;
}

/**
 * The time origin of a run's points, from its `traffic` event: the host's clock when traffic
 * started (`t0`), falling back to the lab's CLOCK_REALTIME (`labRealtimeMs`) for records that lack
 * it. Host time, because a dilated lab's own clock drifts from the host's (an idle one races
 * ahead), and points stamped in the future fall outside Grafana's "now" window.
 */
export function trafficOrigin(traffic: Record<string, unknown>): number | null {
  const host = typeof traffic.t0 === 'string' ? Date.parse(traffic.t0) : Number.NaN;
  if (Number.isFinite(host)) return host;
  const lab = traffic.labRealtimeMs;
  return typeof lab === 'number' && Number.isFinite(lab) ? lab : null;
}

export interface Point {
  measurement: string;
  tags: Record<string, string>;
  /** Numbers are written as floats; a string field (lfn_event.text) is quoted. */
  fields: Record<string, number | string>;
  /** Nanoseconds since the epoch, as a decimal string (beyond 2^53). */
  timeNs: string;
}

const timeNs = (ctx: RunContext, t: number) =>
  (BigInt(Math.round(ctx.t0EpochMs * 1000)) * 1000n + BigInt(Math.round(t * 1e6)) * 1000n).toString();

/** Drop null and non-finite values: InfluxDB has no null, and a missing field is honest. */
function numeric(fields: Record<string, unknown>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(fields).filter(
      (e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]),
    ),
  );
}

/**
 * A sample as its measurement's point: the tags INFLUX_SCHEMA lists (a flow's stack, path and
 * direction from the run's spec, the others from the sample) and the fields SAMPLE_COLUMNS names.
 */
export function samplePoint(ctx: RunContext, s: Sample): Point {
  const measurement = MEASUREMENTS[s.kind];
  const values = s as unknown as Record<string, unknown>;
  const flow = 'flow' in s ? ctx.flows[s.flow] : undefined;
  const fromFlow: Record<string, string> | null =
    'flow' in s
      ? {
          stack: flow?.stack ?? 'unknown',
          path: flow?.path ?? 'unknown',
          direction: flow?.direction ?? 'forward',
        }
      : null;
  const tags: Record<string, string> = {};
  for (const tag of INFLUX_SCHEMA[measurement].tags) {
    if (tag === 'run') tags.run = ctx.runId;
    else if (tag === 'user') tags.user = ctx.user;
    else tags[tag] = fromFlow?.[tag] ?? String(values[tag]);
  }
  const columns: readonly { json: string; influx?: string }[] = SAMPLE_COLUMNS_BY_KIND[s.kind];
  const fields = numeric(
    Object.fromEntries(columns.flatMap((c) => (c.influx ? [[c.influx, values[c.json]]] : []))),
  );
  return { measurement, tags, fields, timeNs: timeNs(ctx, s.t) };
}

const escapeKey = (s: string) => s.replace(/[,= ]/g, (c) => `\\${c}`);
const quoteString = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
const escapeMeasurement = (s: string) => s.replace(/[, ]/g, (c) => `\\${c}`);

/** InfluxDB line protocol for one point (v1 /write with precision=ns). Empty fields give no line. */
export function lineProtocol(p: Point): string | null {
  const fields = Object.entries(p.fields);
  if (fields.length === 0) return null;
  const tags = Object.entries(p.tags)
    .filter(([, v]) => v !== '')
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `,${escapeKey(k)}=${escapeKey(v)}`)
    .join('');
  const f = fields
    .map(([k, v]) => `${escapeKey(k)}=${typeof v === 'string' ? quoteString(v) : String(v)}`)
    .join(',');
  return `${escapeMeasurement(p.measurement)}${tags} ${f} ${p.timeNs}`;
}
