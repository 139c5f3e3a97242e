// One job on a worker: ask the service to start it (it says no unless the run is queued, so a job
// is never run twice), drive one of the worker's labs into a scratch directory while streaming to
// the service (through a spool on disk, so a service that is away loses nothing), then, once every
// batch is acknowledged, upload what of the run directory the service does not have already (the
// streamed samples usually are) and say how it ended. The scratch directory and the spool are
// removed once the service has the record.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { RunJob } from '../service/queue.js';
import { outcomeOf, type RunExecutor } from '../service/runExecutor.js';
import { RunStream } from './runStream.js';
import type { ServiceClient } from './serviceClient.js';

/** How long a stopping worker waits for the service to take a run's batches and record. */
const STOPPING_PATIENCE_MS = 30_000;

export interface RunOnWorkerOptions {
  client: ServiceClient;
  executor: RunExecutor;
  /** Where run directories are written before upload (a directory per run). */
  scratchDir: string;
  log: (line: string) => void;
  streamEveryMs?: number;
}

/** Every regular file under `dir`, as paths relative to it with "/" between names. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(relative(dir, p).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

export async function runOnWorker(
  o: RunOnWorkerOptions,
  job: RunJob,
  signal: AbortSignal,
  workerLab: string = job.lab,
): Promise<void> {
  const log = (l: string) => o.log(`[${job.runId}] ${l.trim()}`);
  if (!(await o.client.start(job.runId, job.lab, workerLab))) {
    log('the service says it is not queued (stopped, or already run): skipped');
    return;
  }
  const outDir = join(o.scratchDir, job.runId);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  // The driver runs it on this host's lab; the service's record keeps the run's own lab.
  const local: RunJob = { ...job, outDir, lab: workerLab };
  const abort = new AbortController();
  const stop = () => abort.abort();
  // A stop may have come before the handler did (the queue read it when it took the job).
  if (signal.aborted) abort.abort();
  else signal.addEventListener('abort', stop, { once: true });
  const stream = new RunStream({
    client: o.client,
    runId: job.runId,
    spoolDir: join(o.scratchDir, `${job.runId}.spool`),
    log,
    everyMs: o.streamEveryMs,
    onRefused: (why) => {
      log(`the service gave the run up (${why}); stopping it here`);
      abort.abort();
    },
  });
  log(`started on lab ${workerLab}${workerLab !== job.lab ? ` (the run's lab: ${job.lab})` : ''}`);
  try {
    const driven = await o.executor.drive(local, abort.signal, stream.feed, log);
    let { status, error } = outcomeOf(driven);
    if (status !== 'completed') ({ error } = await o.executor.settle(local, { status, error }, driven.plan));
    // A worker that is stopping (Ctrl-C, systemd) waits for an absent service only briefly.
    const patience = signal.aborted ? STOPPING_PATIENCE_MS : undefined;
    await stream.close(patience);
    if (stream.refused) {
      // The service has ended the run and keeps what arrived; it takes nothing more for it.
      log(`${status} here, but the service had already ended it; its record is the service's`);
      rmSync(outDir, { recursive: true, force: true });
      return;
    }
    const theirs = new Map((await o.client.files(job.runId, patience)).map((f) => [f.path, f.sha256]));
    const already: string[] = [];
    let sent = 0;
    for (const f of filesUnder(outDir))
      if (await o.client.upload(job.runId, f, join(outDir, f), theirs.get(f), patience)) sent++;
      else already.push(f);
    await o.client.finished(job.runId, status, error, patience);
    log(
      `${status}${error ? `: ${error}` : ''}; record handed to the service (${sent} file(s) uploaded; already there from the stream: ${already.join(', ') || 'none'})`,
    );
    rmSync(outDir, { recursive: true, force: true });
  } finally {
    stream.stop();
    signal.removeEventListener('abort', stop);
  }
}
