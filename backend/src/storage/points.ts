// How samples become InfluxDB points: one measurement per sample kind, tags to select by (run,
// flow, stack, path, direction, user), numeric fields. The Grafana dashboards and every query
// name these; they are a contract, so add fields rather than rename them.
import type { Sample } from '../run/samples.js';

export interface RunContext {
  runId: string;
  user: string;
  /** Host time at traffic start (ms since the epoch; see trafficOrigin): samples' t is seconds from it. */
  t0EpochMs: number;
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

/** Measurement names, one per sample kind. */
export const MEASUREMENTS = {
  tcp: 'lfn_tcp',
  goodput: 'lfn_goodput',
  queue: 'lfn_queue',
  cpu: 'lfn_cpu',
  rtt: 'lfn_rtt',
  interval: 'lfn_interval',
  udp: 'lfn_udp',
  /** Not samples: a run's events, its summary when it ends, and the service's own health (runPoints.ts). */
  event: 'lfn_event',
  summary: 'lfn_summary',
  health: 'lfn_health',
} as const;

/** Tags and fields each measurement carries (what dashboards and queries may name). */
export const SCHEMA: Record<
  (typeof MEASUREMENTS)[keyof typeof MEASUREMENTS],
  { tags: string[]; fields: string[] }
> = {
  lfn_tcp: {
    tags: ['run', 'user', 'flow', 'stack', 'path', 'direction'],
    fields: [
      'cwnd_packets',
      'ssthresh_packets',
      'srtt_ms',
      'rttvar_ms',
      'min_rtt_ms',
      'pacing_bps',
      'delivery_bps',
      'bytes_acked',
      'retrans_segments',
      'lost_packets',
      'unacked_packets',
      'data_segs_out',
      'streams',
    ],
  },
  lfn_goodput: {
    tags: ['run', 'user', 'flow', 'stack', 'path', 'direction'],
    fields: ['bps', 'bytes_received'],
  },
  lfn_queue: {
    tags: ['run', 'user', 'path', 'direction', 'stage', 'dev'],
    fields: ['backlog_packets', 'backlog_bytes', 'drops', 'packets', 'bytes'],
  },
  lfn_cpu: { tags: ['run', 'user'], fields: ['busy_pct', 'user_pct', 'system_pct', 'softirq_pct'] },
  lfn_rtt: { tags: ['run', 'user', 'path'], fields: ['rtt_ms', 'seq'] },
  lfn_udp: { tags: ['run', 'user', 'path', 'source'], fields: ['rate_bps', 'lost', 'owd_ms'] },
  lfn_interval: {
    tags: ['run', 'user', 'flow', 'stack', 'path', 'direction'],
    fields: ['goodput_bps', 'send_bps', 'retransmits', 'cwnd_bytes', 'rtt_ms', 'seconds'],
  },
  /** type flow_start / flow_end (tag flow set) or verdict; text is what an annotation shows. */
  lfn_event: { tags: ['run', 'user', 'type', 'flow'], fields: ['text'] },
  /** One point per (run, stack, path) when a run ends; tag campaign only for a campaign's runs. */
  lfn_summary: {
    tags: ['run', 'user', 'campaign', 'stack', 'path'],
    fields: ['goodput_mbps', 'jain', 'verdict_code', 'lab_limited_share'],
  },
  /** The service itself, every few seconds: spool size and a counter of points written. */
  lfn_health: { tags: ['host'], fields: ['spool_bytes', 'points_written'] },
};

const timeNs = (ctx: RunContext, t: number) =>
  (BigInt(Math.round(ctx.t0EpochMs * 1000)) * 1000n + BigInt(Math.round(t * 1e6)) * 1000n).toString();

/** Drop null and non-finite values: InfluxDB has no null, and a missing field is honest. */
function numeric(fields: Record<string, number | null | undefined>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(fields).filter(
      (e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]),
    ),
  );
}

export function samplePoint(ctx: RunContext, s: Sample): Point {
  const base = { run: ctx.runId, user: ctx.user };
  const flowTags = (flow: string) => {
    const f = ctx.flows[flow];
    return {
      ...base,
      flow,
      stack: f?.stack ?? 'unknown',
      path: f?.path ?? 'unknown',
      direction: f?.direction ?? 'forward',
    };
  };
  const time = timeNs(ctx, s.t);
  switch (s.kind) {
    case 'tcp':
      return {
        measurement: MEASUREMENTS.tcp,
        tags: flowTags(s.flow),
        fields: numeric({
          cwnd_packets: s.cwndPackets,
          ssthresh_packets: s.ssthreshPackets,
          srtt_ms: s.srttMs,
          rttvar_ms: s.rttvarMs,
          min_rtt_ms: s.minRttMs,
          pacing_bps: s.pacingBps,
          delivery_bps: s.deliveryBps,
          bytes_acked: s.bytesAcked,
          retrans_segments: s.retransSegments,
          lost_packets: s.lostPackets,
          unacked_packets: s.unackedPackets,
          data_segs_out: s.dataSegsOut,
          streams: s.streams,
        }),
        timeNs: time,
      };
    case 'goodput':
      return {
        measurement: MEASUREMENTS.goodput,
        tags: flowTags(s.flow),
        fields: numeric({ bps: s.bps, bytes_received: s.bytesReceived }),
        timeNs: time,
      };
    case 'queue':
      return {
        measurement: MEASUREMENTS.queue,
        tags: { ...base, path: s.path, direction: s.direction, stage: s.stage, dev: s.dev },
        fields: numeric({
          backlog_packets: s.backlogPackets,
          backlog_bytes: s.backlogBytes,
          drops: s.drops,
          packets: s.packets,
          bytes: s.bytes,
        }),
        timeNs: time,
      };
    case 'cpu':
      return {
        measurement: MEASUREMENTS.cpu,
        tags: base,
        fields: numeric({
          busy_pct: s.busyPct,
          user_pct: s.userPct,
          system_pct: s.systemPct,
          softirq_pct: s.softirqPct,
        }),
        timeNs: time,
      };
    case 'rtt':
      return {
        measurement: MEASUREMENTS.rtt,
        tags: { ...base, path: s.path },
        fields: numeric({ rtt_ms: s.rttMs, seq: s.seq }),
        timeNs: time,
      };
    case 'udp':
      return {
        measurement: MEASUREMENTS.udp,
        tags: { ...base, path: s.path, source: s.source },
        fields: numeric({ rate_bps: s.bps, lost: s.lost, owd_ms: s.owdMeanMs }),
        timeNs: time,
      };
    case 'interval':
      return {
        measurement: MEASUREMENTS.interval,
        tags: flowTags(s.flow),
        fields: numeric({
          goodput_bps: s.goodputBps,
          send_bps: s.sendBps,
          retransmits: s.retransmits,
          cwnd_bytes: s.cwndBytes,
          rtt_ms: s.rttMs,
          seconds: s.seconds,
        }),
        timeNs: time,
      };
  }
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
