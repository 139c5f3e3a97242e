// Points that are not samples: a run's events (Grafana's annotations), its summary and fairness
// when it ends (the Campaign and Compare dashboards), and the service's own health (Lab health).
// Their tags and fields are the contract's INFLUX_SCHEMA in @lfnlab/grafana, as the samples' are.
import { EVENT_TYPES, MEASUREMENTS, VERDICT_CODES } from '@lfnlab/grafana';
import type { RunSummary } from '../run/summary.js';
import type { Point, RunContext } from './points.js';

export type EventType = (typeof EVENT_TYPES)[keyof typeof EVENT_TYPES];

const nsFromMs = (ms: number) => (BigInt(Math.round(ms * 1000)) * 1000n).toString();

/** A closing point's time: t seconds after traffic start, but not after the run's end on the host. */
const closingMs = (ctx: RunContext, t: number) =>
  Math.max(ctx.t0EpochMs, Math.min(ctx.t0EpochMs + t * 1000, ctx.endEpochMs ?? Number.POSITIVE_INFINITY));

/** t: seconds from traffic start, as samples count time. */
export function eventPoint(
  ctx: RunContext,
  e: { type: EventType; t: number; text: string; flow?: string },
  closing = false,
): Point {
  const tags: Record<string, string> = { run: ctx.runId, user: ctx.user, type: e.type };
  if (e.flow) tags.flow = e.flow;
  return {
    measurement: MEASUREMENTS.event,
    tags,
    // One line per event: a newline would end the line-protocol record.
    fields: { text: e.text.replace(/\s*\n\s*/g, ' ') },
    timeNs: nsFromMs(closing ? closingMs(ctx, e.t) : ctx.t0EpochMs + e.t * 1000),
  };
}

/** Where the run's traffic ended, s from its start: the last flow's planned end. */
export function trafficEndS(summary: Pick<RunSummary, 'flows'>): number {
  return summary.flows.reduce((end, f) => Math.max(end, f.startS + f.durationS), 0);
}

/**
 * The points a finished run leaves: one lfn_summary point per (stack, path), with the mean goodput
 * of that stack's flows there (Mbit/s per flow) and the verdict as a number (InfluxQL cannot
 * aggregate strings; a run without a verdict, failed before measuring, has no verdict_code); and
 * its fairnessPoints.
 */
export function summaryPoints(ctx: RunContext, summary: RunSummary, campaign?: string | null): Point[] {
  const timeNs = nsFromMs(closingMs(ctx, trafficEndS(summary)));
  const verdict = summary.verdict ? VERDICT_CODES[summary.verdict] : null;
  const groups = new Map<string, { stack: string; path: string; goodput: number[]; labShare: number[] }>();
  for (const f of summary.flows) {
    const key = `${f.stack}\u0000${f.path}`;
    const g = groups.get(key) ?? { stack: f.stack, path: f.path, goodput: [], labShare: [] };
    if (f.goodputMbps.mean !== null) g.goodput.push(f.goodputMbps.mean);
    if (f.limitedBy) g.labShare.push(f.limitedBy.shares.sender);
    groups.set(key, g);
  }
  const perStack = [...groups.values()].map((g): Point => {
    const fields: Record<string, number> = {};
    if (g.goodput.length) fields.goodput_mbps = g.goodput.reduce((a, b) => a + b, 0) / g.goodput.length;
    if (verdict !== null) fields.verdict_code = verdict;
    // Share of the flows' busy time the lab (not the network) held them back: limitedBy.ts.
    if (g.labShare.length)
      fields.lab_limited_share = g.labShare.reduce((a, b) => a + b, 0) / g.labShare.length;
    const tags: Record<string, string> = { run: ctx.runId, user: ctx.user, stack: g.stack, path: g.path };
    if (campaign) tags.campaign = campaign;
    return { measurement: MEASUREMENTS.summary, tags, fields, timeNs };
  });
  return [...perStack, ...fairnessPoints(ctx, summary, timeNs, campaign)];
}

/**
 * One lfn_fairness point per (path, direction) that has a Jain index: the summary's own value
 * (PathSummary.jain, the CLI's "Jain fwd" / "Jain rev"), so Grafana and the run agree.
 */
function fairnessPoints(
  ctx: RunContext,
  summary: Pick<RunSummary, 'paths'>,
  timeNs: string,
  campaign?: string | null,
): Point[] {
  // A summary.json read back by reindex may be partial (a run that failed early): no paths, no points.
  return (summary.paths ?? []).flatMap((p) =>
    (['forward', 'reverse'] as const).flatMap((direction): Point[] => {
      const jain = p.jain[direction];
      if (jain === null || !Number.isFinite(jain)) return [];
      const tags: Record<string, string> = { run: ctx.runId, user: ctx.user, path: p.name, direction };
      if (campaign) tags.campaign = campaign;
      return [{ measurement: MEASUREMENTS.fairness, tags, fields: { jain }, timeNs }];
    }),
  );
}

/** The events a finished run leaves: each flow's end and the verdict, for the Run dashboard. */
export function endPoints(ctx: RunContext, summary: RunSummary): Point[] {
  const ends = summary.flows.map((f) =>
    eventPoint(
      ctx,
      {
        type: EVENT_TYPES.flowEnd,
        t: f.startS + f.durationS,
        flow: f.name,
        text: `${f.name} ends${f.status === 'failed' ? ` (failed: ${f.error ?? 'no reason given'})` : ''}`,
      },
      true,
    ),
  );
  const reasons = summary.fidelity?.reasons ?? [];
  const verdictText = summary.verdict
    ? `verdict: ${summary.verdict}${reasons.length ? ` (${reasons.join('; ')})` : ''}`
    : `run ${summary.status}${summary.error ? `: ${summary.error}` : ''}`;
  return [
    ...ends,
    eventPoint(ctx, { type: EVENT_TYPES.verdict, t: trafficEndS(summary), text: verdictText }, true),
  ];
}

export function healthPoint(o: {
  host: string;
  spoolBytes: number;
  pointsWritten: number;
  timeMs: number;
}): Point {
  return {
    measurement: MEASUREMENTS.health,
    tags: { host: o.host },
    fields: { spool_bytes: o.spoolBytes, points_written: o.pointsWritten },
    timeNs: nsFromMs(o.timeMs),
  };
}
