// A run's numbered batches on the worker's disk until the service acknowledges them: each batch
// is written (complete or not at all) as it is made, sent from here in order, and deleted only
// once acknowledged. A service that is away or restarting therefore loses nothing, and the
// worker's memory does not grow with the outage.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkerBatch } from '../service/workerRuns.js';

const FILE = /^(\d{9})\.json$/;

export class BatchSpool {
  /** Sequence numbers on disk, oldest first. */
  private readonly seqs: number[] = [];

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const f of readdirSync(dir).sort()) {
      const m = FILE.exec(f);
      if (m) this.seqs.push(Number(m[1]));
    }
  }

  private fileOf(seq: number) {
    return join(this.dir, `${String(seq).padStart(9, '0')}.json`);
  }

  get size(): number {
    return this.seqs.length;
  }

  put(batch: WorkerBatch): void {
    const file = this.fileOf(batch.seq);
    writeFileSync(`${file}.tmp`, JSON.stringify(batch));
    renameSync(`${file}.tmp`, file);
    this.seqs.push(batch.seq);
  }

  /** The oldest batch not yet acknowledged. */
  head(): WorkerBatch | null {
    const seq = this.seqs[0];
    if (seq === undefined) return null;
    return JSON.parse(readFileSync(this.fileOf(seq), 'utf8')) as WorkerBatch;
  }

  /** The service has it: gone from disk. */
  ack(seq: number): void {
    if (this.seqs[0] !== seq) return;
    rmSync(this.fileOf(seq), { force: true });
    this.seqs.shift();
  }

  remove(): void {
    this.seqs.length = 0;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
