// The service's storage: every run's samples and events into InfluxDB through one SampleWriter
// (batched, spooled to disk while InfluxDB is away), the run's summary when it ends, and a health
// point every few seconds. Storage can be off (no InfluxDB configured): the run directory is the
// record either way, and `lfnlab reindex` rebuilds the database from it.
import { readdirSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { buildPlan, type Spec } from '@lfnlab/emulator';
import { EVENT_TYPES } from '@lfnlab/grafana';
import type { Sample } from '../run/samples.js';
import type { RunSummary } from '../run/summary.js';
import { InfluxClient, type RetentionPolicy } from './influx.js';
import { type Point, type RunContext, samplePoint, trafficOrigin } from './points.js';
import { endPoints, eventPoint, healthPoint, summaryPoints } from './runPoints.js';
import { SampleWriter } from './writer.js';

export interface StorageOptions {
  /** InfluxDB base URL (v1 API); null turns storage off. */
  url: string | null;
  database?: string;
  /** How long InfluxDB keeps points (InfluxQL duration, default 30d). */
  retention?: string;
  spoolDir: string;
  /** How often the health point is written (default 5 s; 0 = never). */
  healthEveryMs?: number;
  log?: (m: string) => void;
}

export interface RunMeta {
  runId: string;
  user: string;
  preset?: string | null;
  campaign?: string | null;
  spec: Spec;
}

export interface RunSink {
  onSample(s: Sample): void;
  onEvent(type: string, detail: Record<string, unknown>): void;
  /** Writes the summary and the closing events, and waits until they are in InfluxDB or the spool. */
  finish(summary: RunSummary): Promise<void>;
}

export interface StorageHealth {
  influx: 'up' | 'down' | 'off';
  spoolBytes: number;
  pendingLines: number;
  written: number;
  lastError: string | null;
}

function dirBytes(dir: string): number {
  try {
    return readdirSync(dir).reduce((n, f) => {
      try {
        return n + statSync(join(dir, f)).size;
      } catch {
        return n; // replayed and removed while we looked
      }
    }, 0);
  } catch {
    return 0;
  }
}

/** What samplePoint() needs about each flow, from the plan the spec makes (names as the lab uses them). */
export function flowTags(spec: Spec): RunContext['flows'] {
  return Object.fromEntries(
    buildPlan(spec).topology.flows.map((f) => [
      f.name,
      { stack: f.stack, path: f.path, direction: f.direction },
    ]),
  );
}

export class Storage {
  private healthTimer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly o: StorageOptions,
    private readonly writer: SampleWriter | null,
  ) {
    const every = o.healthEveryMs ?? 5000;
    if (writer && every > 0) {
      this.healthTimer = setInterval(() => this.writeHealth(), every);
      this.healthTimer.unref();
    }
  }

  /** Opens the writer (replaying any spool a previous process left); the database and its
   * retention policy are created on the first write, and again whenever InfluxDB lost them. */
  static async open(o: StorageOptions): Promise<Storage> {
    if (!o.url) return new Storage(o, null);
    const retentionPolicy: RetentionPolicy = { name: 'lfnlab', duration: o.retention ?? '30d' };
    const writer = await SampleWriter.open({
      client: new InfluxClient({ url: o.url }),
      database: o.database ?? 'lfnlab',
      retentionPolicy,
      spoolDir: o.spoolDir,
      log: o.log,
    });
    return new Storage(o, writer);
  }

  forRun(meta: RunMeta): RunSink {
    const flows = flowTags(meta.spec);
    let ctx: RunContext | null = null;
    // Samples can only be timed once the traffic event gives the lab's clock at t = 0.
    let early: Sample[] = [];
    const pendingEvents: Array<{ t: number; flow: string }> = [];
    const add = (p: Point) => this.writer?.add(p);
    const flowStart = (c: RunContext, e: { t: number; flow: string }) => {
      const f = c.flows[e.flow];
      add(
        eventPoint(c, {
          type: EVENT_TYPES.flowStart,
          t: e.t,
          flow: e.flow,
          text: `${e.flow} starts (${f?.stack ?? '?'}, ${f?.path ?? '?'})`,
        }),
      );
    };
    return {
      onSample: (s) => {
        if (!this.writer) return;
        if (ctx) add(samplePoint(ctx, s));
        else early.push(s);
      },
      onEvent: (type, detail) => {
        if (!this.writer) return;
        const t0EpochMs = type === 'traffic' ? trafficOrigin(detail) : null;
        if (t0EpochMs !== null) {
          ctx = { runId: meta.runId, user: meta.user, t0EpochMs, flows };
          for (const s of early) add(samplePoint(ctx, s));
          for (const e of pendingEvents) flowStart(ctx, e);
          early = [];
        } else if (type === 'flow-started' && typeof detail.flow === 'string') {
          const e = { t: typeof detail.t === 'number' ? detail.t : 0, flow: detail.flow };
          if (ctx) flowStart(ctx, e);
          else pendingEvents.push(e);
        }
      },
      finish: async (summary) => {
        if (!this.writer) return;
        // A run that never reached traffic has no time origin: its summary is timed at its end.
        const now = Date.now();
        const c = { ...(ctx ?? { runId: meta.runId, user: meta.user, t0EpochMs: now, flows }), endEpochMs: now };
        for (const p of [...endPoints(c, summary), ...summaryPoints(c, summary, meta.campaign)]) add(p);
        await this.writer.flush();
      },
    };
  }

  /** Everything added so far is in InfluxDB or the spool. */
  async flush(): Promise<void> {
    await this.writer?.flush();
  }

  health(): StorageHealth {
    if (!this.writer) return { influx: 'off', spoolBytes: 0, pendingLines: 0, written: 0, lastError: null };
    const s = this.writer.stats();
    return {
      influx: s.pending.spool > 0 ? 'down' : 'up',
      spoolBytes: dirBytes(this.o.spoolDir),
      pendingLines: s.pending.memory + s.pending.spool,
      written: s.written,
      lastError: s.lastError,
    };
  }

  private writeHealth(): void {
    const h = this.health();
    this.writer?.add(
      healthPoint({
        host: hostname(),
        spoolBytes: h.spoolBytes,
        pointsWritten: h.written,
        timeMs: Date.now(),
      }),
    );
  }

  async close(): Promise<void> {
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.healthTimer = null;
    await this.writer?.close();
  }
}
