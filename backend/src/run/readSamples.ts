// A finished run's samples, read back from its run directory (samples/KIND.jsonl).
import { join } from 'node:path';
import { jsonLines } from '../report/load.js';
import { SAMPLE_KINDS, type Sample } from './samples.js';

export function readSamples(dir: string): Sample[] {
  const out: Sample[] = [];
  for (const kind of SAMPLE_KINDS)
    for (const line of jsonLines(join(dir, 'samples', `${kind}.jsonl`))) {
      try {
        out.push(JSON.parse(line) as Sample);
      } catch {} // a torn last line (the run was killed while writing it)
    }
  return out.sort((a, b) => a.t - b.t);
}
