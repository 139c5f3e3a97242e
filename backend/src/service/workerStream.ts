// Where a worker's stream of a run stands in the service's run directory, kept so that a service
// killed at any moment resumes in step: the next batch expected and the sizes of the files batches
// append to once the batches before it were applied, written atomically after each batch. A
// restarted service cuts those files back to these sizes, so a batch it had applied in part (or
// wholly, without recording it) is applied once when the worker sends it again. Also the SHA-256
// of the run directory's files, for a worker deciding what to upload.
import { createHash } from 'node:crypto';
import {
  createReadStream,
  existsSync,
  readdirSync,
  renameSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { readJson } from '../report/load.js';

/** Beside the record; a worker cannot upload a name starting with ".". */
export const STREAM_POSITION = '.worker-stream.json';

export interface StreamPosition {
  nextSeq: number;
  sizes?: Record<string, number>;
}

/** The files of a run directory that batches append to, relative to it. */
function appendedFiles(dir: string): string[] {
  const out = ['events.jsonl'];
  const samples = join(dir, 'samples');
  if (existsSync(samples))
    for (const f of readdirSync(samples)) if (f.endsWith('.jsonl')) out.push(`samples/${f}`);
  return out;
}

function sizesOf(dir: string): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const f of appendedFiles(dir)) {
    const p = join(dir, f);
    if (existsSync(p)) sizes[f] = statSync(p).size;
  }
  return sizes;
}

/** After a batch was applied: the next one expected, and the appended files' sizes now. */
export function recordPosition(dir: string, nextSeq: number): void {
  const position: StreamPosition = { nextSeq, sizes: sizesOf(dir) };
  const file = join(dir, STREAM_POSITION);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(position)}\n`);
  renameSync(`${file}.tmp`, file);
}

/**
 * At a restart: the next batch expected, with whatever a batch appended beyond the recorded
 * position cut back. No position: no batch was acknowledged, so the worker still has them all
 * from the first, and the files are cut back to nothing.
 */
export function resumePosition(dir: string): number | null {
  const position = readJson<Partial<StreamPosition>>(join(dir, STREAM_POSITION)) ?? { nextSeq: 1, sizes: {} };
  const sizes = position.sizes;
  if (sizes)
    for (const f of appendedFiles(dir)) {
      const p = join(dir, f);
      const keep = sizes[f] ?? 0;
      if (existsSync(p) && statSync(p).size > keep) truncateSync(p, keep);
    }
  return typeof position.nextSeq === 'number' ? position.nextSeq : null;
}

export async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}
