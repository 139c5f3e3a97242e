// Rebuild InfluxDB from run directories: the run directory is the record, the database a view of
// it. Reads summary.json (the run's id, if it has one), spec.json (each flow's stack, path and
// direction), events.jsonl (the `traffic` event: t = 0 of every sample, see trafficOrigin) and
// samples/*.jsonl, and writes every sample through a SampleWriter. Running it twice stores
// nothing twice: a point is its series and timestamp.
import { createReadStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { readRunSummary } from '../report/load.js';
import { SAMPLE_KINDS, type Sample, type SampleKind } from '../run/samples.js';
import type { RunSummary } from '../run/summary.js';
import { type RunContext, samplePoint, trafficOrigin } from './points.js';
import { endPoints, eventPoint, summaryPoints } from './runPoints.js';
import type { SampleWriter } from './writer.js';

export interface ReindexOptions {
  /** The user the run's points are tagged with (default 'local'). */
  user?: string;
  /** The campaign the run belongs to (tags its lfn_summary points). */
  campaign?: string;
  log?: (msg: string) => void;
}

export interface ReindexResult {
  runId: string;
  user: string;
  t0EpochMs: number;
  /** Samples given to the writer, per kind. */
  samples: Partial<Record<SampleKind, number>>;
  total: number;
  /** Lines of samples/*.jsonl that are not a sample (a line cut off by a crash, say). */
  skipped: number;
}

type FlowInfo = { name?: unknown; stack?: unknown; path?: unknown; direction?: unknown };

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/** The t0 of a run's samples (ms since the epoch), from its `traffic` event. */
export function trafficT0(dir: string): number {
  const path = join(dir, 'events.jsonl');
  if (!existsSync(path)) throw new Error(`${dir}: no events.jsonl, so no time origin for the samples`);
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let ev: unknown;
    try {
      ev = JSON.parse(line);
    } catch {
      continue; // a line cut off by a crash
    }
    const t0 = isObject(ev) && ev.type === 'traffic' ? trafficOrigin(ev) : null;
    if (t0 !== null) return t0;
  }
  throw new Error(
    `${path}: no traffic event with a t0 (the run never started traffic), so no time origin for the samples`,
  );
}

/** What samplePoint() needs to know about a run, from its directory. */
export function runContext(dir: string, opts: ReindexOptions = {}): RunContext {
  const log = opts.log ?? (() => undefined);
  const summaryPath = join(dir, 'summary.json');
  const specPath = join(dir, 'spec.json');
  const summary = existsSync(summaryPath) ? readJson(summaryPath) : null;
  if (summary === null)
    log(`${dir}: no summary.json (the run did not finish); reindexing its samples anyway`);
  const spec = existsSync(specPath) ? readJson(specPath) : null;
  if (spec === null) log(`${dir}: no spec.json; flows get stack and path 'unknown'`);

  const flows: RunContext['flows'] = {};
  const add = (list: unknown) => {
    if (!Array.isArray(list)) return;
    const onlyPath = isObject(spec) && isObject(spec.paths) ? Object.keys(spec.paths) : [];
    list.forEach((raw: unknown, i) => {
      if (!isObject(raw)) return;
      const f = raw as FlowInfo;
      if (typeof f.stack !== 'string') return;
      const name = typeof f.name === 'string' ? f.name : `${f.stack}-${i + 1}`;
      if (flows[name]) return;
      const path =
        typeof f.path === 'string' ? f.path : onlyPath.length === 1 ? (onlyPath[0] as string) : 'unknown';
      flows[name] = { stack: f.stack, path, direction: f.direction === 'reverse' ? 'reverse' : 'forward' };
    });
  };
  if (isObject(spec)) add(spec.flows);
  if (isObject(summary)) add(summary.flows);

  const id = isObject(summary) && typeof summary.id === 'string' && summary.id !== '' ? summary.id : null;
  return {
    runId: id ?? basename(resolve(dir)),
    user: opts.user ?? 'local',
    t0EpochMs: trafficT0(dir),
    ...runEnd(dir),
    flows,
  };
}

/** The host time of the run's last event (its end, for a run that finished). */
function runEnd(dir: string): { endEpochMs?: number } {
  const path = join(dir, 'events.jsonl');
  let end: number | undefined;
  for (const line of existsSync(path) ? readFileSync(path, 'utf8').split('\n') : []) {
    try {
      const ev: unknown = line.trim() ? JSON.parse(line) : null;
      const at = isObject(ev) && typeof ev.at === 'string' ? Date.parse(ev.at) : Number.NaN;
      if (Number.isFinite(at)) end = at;
    } catch {
      // a line cut off by a crash
    }
  }
  return end === undefined ? {} : { endEpochMs: end };
}

/** What the service writes besides samples, from the record: flow starts, then ends, verdict and summary. */
function runEventPoints(dir: string, ctx: RunContext, campaign?: string) {
  const points = [];
  const eventsPath = join(dir, 'events.jsonl');
  for (const line of existsSync(eventsPath) ? readFileSync(eventsPath, 'utf8').split('\n') : []) {
    let ev: unknown;
    try {
      ev = line.trim() ? JSON.parse(line) : null;
    } catch {
      continue; // a line cut off by a crash
    }
    if (
      isObject(ev) &&
      ev.type === 'flow-started' &&
      typeof ev.flow === 'string' &&
      typeof ev.t === 'number'
    ) {
      const f = ctx.flows[ev.flow];
      points.push(
        eventPoint(ctx, {
          type: 'flow_start',
          t: ev.t,
          flow: ev.flow,
          text: `${ev.flow} starts (${f?.stack ?? '?'}, ${f?.path ?? '?'})`,
        }),
      );
    }
  }
  const summary = readRunSummary<RunSummary>(dir);
  if (summary && Array.isArray(summary.flows))
    points.push(...endPoints(ctx, summary), ...summaryPoints(ctx, summary, campaign));
  return points;
}

function isSample(x: unknown): x is Sample {
  return (
    isObject(x) &&
    typeof x.kind === 'string' &&
    (SAMPLE_KINDS as string[]).includes(x.kind) &&
    typeof x.t === 'number' &&
    Number.isFinite(x.t)
  );
}

/**
 * Write every sample of the run in `dir` through `writer`, then flush it: when this resolves, the
 * points are in InfluxDB, rejected, or in the writer's spool.
 */
export async function reindexRun(
  dir: string,
  writer: SampleWriter,
  opts: ReindexOptions = {},
): Promise<ReindexResult> {
  const log = opts.log ?? (() => undefined);
  const ctx = runContext(dir, opts);
  const samplesDir = join(dir, 'samples');
  const files = existsSync(samplesDir)
    ? readdirSync(samplesDir)
        .filter((f) => f.endsWith('.jsonl'))
        .sort()
    : [];
  if (files.length === 0) log(`${dir}: no samples/*.jsonl`);
  const samples: Partial<Record<SampleKind, number>> = {};
  let total = 0;
  let skipped = 0;
  for (const file of files) {
    const lines = createInterface({
      input: createReadStream(join(samplesDir, file)),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    let n = 0;
    for await (const line of lines) {
      n += 1;
      if (!line.trim()) continue;
      let s: unknown;
      try {
        s = JSON.parse(line);
      } catch {
        s = null;
      }
      if (!isSample(s)) {
        skipped += 1;
        if (skipped <= 5) log(`${join(samplesDir, file)}:${n}: not a sample, skipped: ${line.slice(0, 120)}`);
        continue;
      }
      writer.add(samplePoint(ctx, s));
      samples[s.kind] = (samples[s.kind] ?? 0) + 1;
      total += 1;
      if (total % 1000 === 0) await writer.ready();
    }
  }
  const events = runEventPoints(dir, ctx, opts.campaign);
  for (const p of events) writer.add(p);
  await writer.flush();
  log(
    `${ctx.runId}: ${total} samples and ${events.length} events and summaries reindexed${skipped ? `, ${skipped} lines skipped` : ''}`,
  );
  return { runId: ctx.runId, user: ctx.user, t0EpochMs: ctx.t0EpochMs, samples, total, skipped };
}
