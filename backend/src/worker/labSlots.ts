// The labs one `lfnlab worker` keeps (`--labs N`: default, default-2 … default-N, the names
// `lfnlab serve --labs N` gives its pool): which is free, which runs which run. A job taken from
// any of the group's queues gets a free lab; none free means the job goes back to its queue.
import { EventEmitter } from 'node:events';

/** The pool's lab names, as `serve --labs N` names them: BASE, BASE-2 … BASE-N. */

export interface LabSlotState {
  name: string;
  /** The run it is running, or null when idle. */
  runId: string | null;
}

export class LabSlots extends EventEmitter {
  private readonly runs = new Map<string, string | null>();

  constructor(readonly names: readonly string[]) {
    super();
    if (names.length === 0) throw new Error('a worker keeps at least one lab');
    for (const n of names) this.runs.set(n, null);
  }

  get size(): number {
    return this.names.length;
  }

  get free(): number {
    let n = 0;
    for (const r of this.runs.values()) if (r === null) n++;
    return n;
  }

  /** A free lab for the run (the first free in pool order), or null when all are busy. */
  take(runId: string): string | null {
    for (const [name, r] of this.runs)
      if (r === null) {
        this.runs.set(name, runId);
        this.emit('change');
        return name;
      }
    return null;
  }

  give(name: string): void {
    if (this.runs.get(name) === undefined || this.runs.get(name) === null) return;
    this.runs.set(name, null);
    this.emit('change');
  }

  state(): LabSlotState[] {
    return [...this.runs].map(([name, runId]) => ({ name, runId }));
  }
}
