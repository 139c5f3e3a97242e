// The run directory: the one place a run's record is written. Everything needed to reproduce or
// re-analyse the run lives here; the database (later) is rebuilt from it.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class RunRecorder {
  private samples = 0;

  constructor(readonly dir: string) {
    mkdirSync(join(dir, 'flows'), { recursive: true });
  }

  json(name: string, value: unknown): void {
    writeFileSync(join(this.dir, name), `${JSON.stringify(value, null, 2)}\n`);
  }

  text(name: string, value: string): void {
    writeFileSync(join(this.dir, name), value.endsWith('\n') || value === '' ? value : `${value}\n`);
  }

  /** Typed samples, one JSON object per line, in the order they were taken. */
  sample(s: { kind: string }): void {
    appendFileSync(join(this.dir, 'samples.jsonl'), `${JSON.stringify(s)}\n`);
    this.samples += 1;
  }

  event(type: string, detail: Record<string, unknown> = {}): void {
    appendFileSync(
      join(this.dir, 'events.jsonl'),
      `${JSON.stringify({ at: new Date().toISOString(), type, ...detail })}\n`,
    );
  }

  get sampleCount(): number {
    return this.samples;
  }
}
