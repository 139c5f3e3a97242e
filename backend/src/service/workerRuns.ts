// The service's side of runs that `lfnlab worker` processes drive on other lab hosts. The service
// stays the one writer of run records: a worker asks to start a queued run (409 otherwise, so a
// job never runs twice), streams numbered batches of the run's plan, samples, events and progress
// (fed to storage and the live hub exactly as a local run's, and appended to the run directory as
// they arrive), uploads the files of its run directory (each checked by SHA-256) and reports how
// the run ended. A worker that falls silent for `silenceMs` (killed, or cut off) leaves the run
// failed and partial, summarised from the samples that arrived, and its job dropped from the queue.
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  createWriteStream,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Plan } from '@lfnlab/emulator';
import { readJson } from '../report/load.js';
import type { Sample } from '../run/samples.js';
import type { RunSummary } from '../run/summary.js';
import { ensureSummary } from './partialSummary.js';
import type { RunQueue } from './queue.js';
import type { RunOutcome } from './runExecutor.js';
import type { ActiveRun, RunService } from './runService.js';
import type { RunStore } from './runStore.js';
import { type Run, ServiceError } from './types.js';
import { recordPosition, resumePosition, STREAM_POSITION, sha256File } from './workerStream.js';
import type { WorkerCaller } from './workerTokens.js';

/** One numbered batch of a run's stream, in the order the worker's driver produced them. */
export interface WorkerBatch {
  seq: number;
  plan?: Plan;
  samples: Sample[];
  /** Each event with the number of this batch's samples that came before it. */
  events: Array<{ type: string; detail: Record<string, unknown>; after: number }>;
  progress?: { t: number; dilation: number | null };
}

/** A file of a run directory as a worker may upload it: plain names, at most four levels deep. */
const RECORD_PATH = /^(?:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}\/){0,3}[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
/** The service's own record of the run, never taken from a worker. */
const SERVICE_FILES = new Set(['service.json']);
export const MAX_RECORD_FILE_BYTES = 1024 ** 3;
export function recordPathProblem(path: string): string | null {
  if (!RECORD_PATH.test(path) || path.split('/').some((p) => p === '.' || p === '..'))
    return 'must be a relative path of plain names (letters, digits, "_", "-", "."), at most 4 deep';
  if (SERVICE_FILES.has(path)) return 'is the service’s own record of the run';
  return null;
}

interface RemoteRun {
  active: ActiveRun;
  host: string;
  dir: string;
  /**
   * The next batch expected; earlier ones were applied (a repeat is acknowledged again). Null for
   * a run taken back after a restart whose stream position was not recorded: the next one goes.
   */
  nextSeq: number | null;
  silence: NodeJS.Timeout;
}

export interface WorkerRunsOptions {
  runs: RunService;
  store: RunStore;
  queue: RunQueue;
  log: (line: string) => void;
  /** A running run's worker that sends nothing for this long is taken for dead (default 30 s). */
  silenceMs?: number;
  /**
   * Workers run this service's jobs (`serve --workers`): only then may a worker start a run, and
   * queued runs whose job was lost are queued again.
   */
  labsOnWorkers?: boolean;
}

export class WorkerRuns {
  private readonly remote = new Map<string, RemoteRun>();
  private readonly silenceMs: number;
  private readonly lostCheck: NodeJS.Timeout | null = null;

  constructor(private readonly o: WorkerRunsOptions) {
    this.silenceMs = o.silenceMs ?? 30_000;
    if (o.labsOnWorkers) {
      // A job taken by a worker that died (or gave up) before starting its run leaves the queue
      // while the run stays queued: look for such runs now and then.
      let checking = false;
      this.lostCheck = setInterval(() => {
        if (checking) return;
        checking = true;
        this.o.runs
          .requeueLost(this.silenceMs)
          .catch((err) => this.o.log(`looking for runs whose job was lost: ${(err as Error).message}`))
          .finally(() => {
            checking = false;
          });
      }, this.silenceMs);
      this.lostCheck.unref();
    }
  }

  private dirOf(runId: string) {
    return this.o.store.dir(runId) ?? this.o.store.dirFor(runId);
  }

  /** The run, if this worker's host is running it; 409 otherwise (ended, or another host's). */
  private own(caller: WorkerCaller, runId: string): RemoteRun {
    const r = this.remote.get(runId);
    if (!r) {
      const run = this.o.store.get(runId);
      if (!run) throw new ServiceError(404, `no run ${runId}`);
      throw new ServiceError(409, `run ${runId} is ${run.status}, not running on a worker`);
    }
    if (r.host !== caller.host)
      throw new ServiceError(409, `run ${runId} runs on worker host ${r.host}, not ${caller.host}`);
    if (r.active.run.status !== 'running') {
      // Ended by the service meanwhile (a stop its queue could not pass on): nothing more is taken.
      clearTimeout(r.silence);
      this.remote.delete(runId);
      throw new ServiceError(409, `run ${runId} is ${r.active.run.status}`);
    }
    // Any call from the worker is a sign of life (uploads come after the last batch).
    this.touch(runId);
    return r;
  }

  /** The worker of a running run was heard from: its silence counts from now. */
  private touch(runId: string) {
    const r = this.remote.get(runId);
    if (!r) return;
    clearTimeout(r.silence);
    r.silence = this.armSilence(runId);
  }

  private armSilence(runId: string): NodeJS.Timeout {
    const t = setTimeout(() => void this.silent(runId), this.silenceMs);
    t.unref();
    return t;
  }

  /** `lab` is the run's lab (its queue); `workerLab` the worker's own lab that runs it. */
  start(caller: WorkerCaller, runId: string, lab: string, workerLab?: string): Run {
    if (!this.o.labsOnWorkers)
      throw new ServiceError(409, 'this service runs its runs on its own labs (start it with --workers)');
    const run = this.o.store.get(runId);
    if (run && run.lab !== lab)
      throw new ServiceError(409, `run ${runId} is queued for lab ${run.lab}, not ${lab}`);
    const active = this.o.runs.startRun(runId, caller.host);
    if (workerLab !== undefined) {
      active.run.hostLab = workerLab;
      this.o.store.save(active.run);
    }
    this.remote.set(runId, {
      active,
      host: caller.host,
      dir: this.dirOf(runId),
      nextSeq: 1,
      silence: this.armSilence(runId),
    });
    this.o.log(
      `[${runId}] started on worker host ${caller.host}, lab ${lab}${workerLab ? ` (its lab ${workerLab})` : ''}`,
    );
    return active.run;
  }

  batch(caller: WorkerCaller, runId: string, b: WorkerBatch): { ack: number } {
    const r = this.own(caller, runId);
    if (r.nextSeq === null) r.nextSeq = b.seq;
    if (b.seq < r.nextSeq) return { ack: b.seq };
    if (b.seq > r.nextSeq)
      throw new ServiceError(409, `batch ${b.seq} of run ${runId} came before batch ${r.nextSeq}`, [
        { path: 'seq', message: `must be ${r.nextSeq} (or an earlier one, sent again)` },
      ]);
    const feed = r.active.feed;
    if (b.plan) {
      feed.onPlan(b.plan);
      // Kept at once (the worker uploads the same at the end): a restarted service needs it.
      writeFileSync(join(r.dir, 'plan.json'), `${JSON.stringify(b.plan, null, 2)}\n`);
    }
    // In the run directory as they arrive: a worker killed mid-run leaves what was streamed.
    const lines = new Map<string, string[]>();
    for (const s of b.samples) {
      const l = lines.get(s.kind) ?? [];
      l.push(JSON.stringify(s));
      lines.set(s.kind, l);
    }
    if (lines.size) mkdirSync(join(r.dir, 'samples'), { recursive: true });
    for (const [kind, l] of lines)
      appendFileSync(join(r.dir, 'samples', `${kind}.jsonl`), `${l.join('\n')}\n`);
    const at = new Date().toISOString();
    if (b.events.length)
      appendFileSync(
        join(r.dir, 'events.jsonl'),
        `${b.events.map((e) => JSON.stringify({ at, type: e.type, ...e.detail })).join('\n')}\n`,
      );
    // To the live feed in the order the driver gave them (flow events decide what a sample ends).
    const events = [...b.events].sort((x, y) => x.after - y.after);
    let e = 0;
    b.samples.forEach((s, i) => {
      for (; e < events.length && (events[e]?.after ?? 0) <= i; e++) {
        const ev = events[e] as WorkerBatch['events'][number];
        feed.onEvent(ev.type, ev.detail);
      }
      feed.onSample(s);
    });
    for (const ev of events.slice(e)) feed.onEvent(ev.type, ev.detail);
    if (b.progress) feed.onProgress(b.progress);
    r.nextSeq = b.seq + 1;
    recordPosition(r.dir, r.nextSeq);
    return { ack: b.seq };
  }

  /** The run directory's files as the service has them (not its own service.json), with SHA-256. */
  async files(
    caller: WorkerCaller,
    runId: string,
  ): Promise<Array<{ path: string; sha256: string; bytes: number }>> {
    const r = this.own(caller, runId);
    const out: Array<{ path: string; sha256: string; bytes: number }> = [];
    const walk = async (rel: string) => {
      for (const e of readdirSync(join(r.dir, rel), { withFileTypes: true })) {
        const path = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) await walk(path);
        else if (e.isFile() && recordPathProblem(path) === null) {
          const p = join(r.dir, path);
          out.push({ path, sha256: await sha256File(p), bytes: statSync(p).size });
        }
      }
    };
    await walk('');
    return out.sort((a, b) => a.path.localeCompare(b.path));
  }

  /** One file of the worker's run directory into the service's, kept only if its SHA-256 matches. */
  async upload(
    caller: WorkerCaller,
    runId: string,
    path: string,
    sha256: string,
    body: Readable,
  ): Promise<{ path: string; bytes: number }> {
    const r = this.own(caller, runId);
    const problem = recordPathProblem(path);
    if (problem) throw new ServiceError(400, `path ${problem}`, [{ path: 'path', message: problem }]);
    const target = join(r.dir, path);
    // A long upload is a live worker too.
    const alive = setInterval(() => this.touch(runId), Math.max(1000, this.silenceMs / 3));
    alive.unref();
    mkdirSync(dirname(target), { recursive: true });
    const tmp = `${target}.upload-${process.pid}`;
    const hash = createHash('sha256');
    let bytes = 0;
    const count = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        if (bytes > MAX_RECORD_FILE_BYTES) return done(new Error('too large'));
        hash.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(body, count, createWriteStream(tmp));
    } catch (err) {
      rmSync(tmp, { force: true });
      clearInterval(alive);
      if (bytes > MAX_RECORD_FILE_BYTES)
        throw new ServiceError(413, `${path} is larger than ${MAX_RECORD_FILE_BYTES} bytes`);
      throw err;
    }
    clearInterval(alive);
    const got = hash.digest('hex');
    if (got !== sha256.toLowerCase()) {
      rmSync(tmp, { force: true });
      throw new ServiceError(400, `${path}: SHA-256 of what arrived is ${got}, not ${sha256}`, [
        { path: 'sha256', message: 'does not match the uploaded bytes; send the file again' },
      ]);
    }
    renameSync(tmp, target);
    return { path, bytes };
  }

  /** The worker's word on how the run ended; its summary is the uploaded summary.json. */
  async finished(
    caller: WorkerCaller,
    runId: string,
    o: { status: 'completed' | 'failed' | 'aborted'; error: string | null },
  ): Promise<Run> {
    const r = this.own(caller, runId);
    const stoppedBy = this.o.runs.takeStopRequest(runId);
    let { status, error } = o;
    if (status === 'aborted') error = stoppedBy ? `stopped by ${stoppedBy}` : (error ?? 'aborted');
    let summary = readJson<RunSummary>(join(r.dir, 'summary.json'));
    if (status === 'completed' && !summary) {
      status = 'failed';
      error = 'the worker reported the run completed but uploaded no summary.json';
    }
    if (status !== 'completed')
      summary = ensureSummary(r.dir, r.active.run.spec, status, error ?? status, r.active.plan());
    await this.end(runId, { status, error }, summary);
    return r.active.run;
  }

  private async end(runId: string, outcome: RunOutcome, summary: RunSummary | null) {
    const r = this.remote.get(runId);
    if (!r) return;
    clearTimeout(r.silence);
    this.remote.delete(runId);
    rmSync(join(r.dir, STREAM_POSITION), { force: true });
    // A record the service already ended otherwise (stopped) keeps what it says.
    if (r.active.run.status === 'running') await r.active.end(outcome, summary);
  }

  /**
   * After a restart of the service: a run its worker was running is taken back as running, its
   * plan and stream position from the run directory, and the worker has silenceMs to report again
   * (its calls are retried meanwhile); otherwise it ends failed and partial as for a silent worker.
   */
  adopt(run: Run): boolean {
    if (!run.host) return false;
    const dir = this.dirOf(run.id);
    const active = this.o.runs.resumeRun(run);
    const plan = readJson<Plan>(join(dir, 'plan.json'));
    if (plan) active.feed.onPlan(plan);
    this.remote.set(run.id, {
      active,
      host: run.host,
      dir,
      nextSeq: resumePosition(dir),
      silence: this.armSilence(run.id),
    });
    this.o.log(`[${run.id}] was running on worker host ${run.host}: waiting for it to report again`);
    return true;
  }

  /** Nothing from the worker for silenceMs: it is taken for dead, and its job for abandoned. */
  private async silent(runId: string) {
    const r = this.remote.get(runId);
    if (!r) return;
    const silence = `worker host ${r.host} stopped reporting (nothing for ${Math.round(this.silenceMs / 1000)} s); what it streamed until then is kept`;
    // Someone had asked to stop it: that is what the record says, with why the worker never answered.
    const stoppedBy = this.o.runs.takeStopRequest(runId);
    const status = stoppedBy ? 'aborted' : 'failed';
    const error = stoppedBy ? `stopped by ${stoppedBy}; ${silence}` : silence;
    this.o.log(`[${runId}] ${error}`);
    const summary = ensureSummary(r.dir, r.active.run.spec, status, error, r.active.plan());
    await this.end(runId, { status, error }, summary);
    // Its BullMQ job would stay active until its lock lapsed; it must not run again either way.
    await this.o.queue
      .abandon(runId)
      .catch((err) => this.o.log(`[${runId}] could not drop its job: ${(err as Error).message}`));
  }

  /** The service stops: runs on workers stay running in their records (the next start settles them). */
  close(): void {
    if (this.lostCheck) clearInterval(this.lostCheck);
    for (const r of this.remote.values()) clearTimeout(r.silence);
    this.remote.clear();
  }
}
