// The run directory: the one place a run's record is written. Everything needed to reproduce or
// re-analyse the run lives here; the database (later) is rebuilt from it.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where a run directory keeps a sampler's or program's raw output, relative to the directory. */
export const rawFile = (name: string) => join('raw', `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.txt`);

/** The raw name of a cross-traffic source's generator output (`raw/udpgen_<source>.txt`). */
export const udpgenRaw = (source: string) => `udpgen:${source}`;

export class RunRecorder {
  private samples = 0;

  constructor(
    readonly dir: string,
    /** Hears every event as it is recorded (the service streams them live). */
    private readonly onEvent?: (type: string, detail: Record<string, unknown>) => void,
  ) {
    for (const d of ['flows', 'samples', 'raw']) mkdirSync(join(dir, d), { recursive: true });
  }

  json(name: string, value: unknown): void {
    writeFileSync(join(this.dir, name), `${JSON.stringify(value, null, 2)}\n`);
  }

  text(name: string, value: string): void {
    writeFileSync(join(this.dir, name), value.endsWith('\n') || value === '' ? value : `${value}\n`);
  }

  /** Typed samples, one file per kind (`samples/tcp.jsonl`...), one JSON object per line. */
  sample(s: { kind: string }): void {
    appendFileSync(join(this.dir, 'samples', `${s.kind}.jsonl`), `${JSON.stringify(s)}\n`);
    this.samples += 1;
  }

  /** A sampler's output exactly as it arrived (compact TSV or ping's text). */
  raw(sampler: string, text: string): void {
    appendFileSync(join(this.dir, rawFile(sampler)), text);
  }

  event(type: string, detail: Record<string, unknown> = {}): void {
    appendFileSync(
      join(this.dir, 'events.jsonl'),
      `${JSON.stringify({ at: new Date().toISOString(), type, ...detail })}\n`,
    );
    this.onEvent?.(type, detail);
  }

  get sampleCount(): number {
    return this.samples;
  }
}
