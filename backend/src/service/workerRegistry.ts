// The `lfnlab worker` processes the service has heard from: each says every few seconds (a
// heartbeat, with its worker token) which labs it keeps and what they run, and says goodbye when
// it stops. GET /api/health lists them; a worker not heard from for `awayAfterMs` is shown away,
// and one silent for `forgetAfterMs` is dropped from the list.
import type { WorkerCaller } from './workerTokens.js';

/** What a worker sends. */
export interface WorkerHeartbeat {
  /** This worker process (a random id chosen at its start): one host may run several. */
  instance: string;
  /** The machine's host name, as the worker's OS says it. */
  machine: string;
  /** lfnlab's version on the worker. */
  version: string;
  labs: Array<{ name: string; runId: string | null }>;
  /** The worker is stopping: drop it from the list now. */
  leaving?: boolean;
}

export type WorkerState = 'idle' | 'busy' | 'away';

/** A worker as GET /api/health lists it; run ids only for admins. */
export interface WorkerStatus {
  /** The name its worker token was made for: what its runs record as `host`. */
  name: string;
  /** The machine it runs on. */
  host: string;
  version: string;
  /** idle: no lab busy; busy: at least one runs a run; away: not heard from lately. */
  state: WorkerState;
  labs: Array<{ name: string; state: 'idle' | 'busy'; runId?: string | null }>;
  lastSeenAt: string;
  /** Whole seconds since it was last heard from. */
  lastSeenS: number;
}

interface Entry {
  name: string;
  hb: WorkerHeartbeat;
  seenAt: number;
}

export class WorkerRegistry {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly o: { awayAfterMs?: number; forgetAfterMs?: number; now?: () => number } = {},
  ) {}

  private now() {
    return this.o.now?.() ?? Date.now();
  }

  heard(caller: WorkerCaller, hb: WorkerHeartbeat): void {
    // Keyed by token too: another host's token cannot overwrite this worker's entry.
    const key = `${caller.tokenId}/${hb.instance}`;
    if (hb.leaving) this.entries.delete(key);
    else this.entries.set(key, { name: caller.host, hb, seenAt: this.now() });
  }

  list({ withRuns }: { withRuns: boolean }): WorkerStatus[] {
    const now = this.now();
    const out: WorkerStatus[] = [];
    for (const [key, e] of this.entries) {
      const age = now - e.seenAt;
      if (age > (this.o.forgetAfterMs ?? 600_000)) {
        this.entries.delete(key);
        continue;
      }
      const away = age > (this.o.awayAfterMs ?? 15_000);
      const labs = e.hb.labs.map((l) => ({
        name: l.name,
        state: l.runId ? ('busy' as const) : ('idle' as const),
        ...(withRuns ? { runId: l.runId } : {}),
      }));
      out.push({
        name: e.name,
        host: e.hb.machine,
        version: e.hb.version,
        state: away ? 'away' : labs.some((l) => l.state === 'busy') ? 'busy' : 'idle',
        labs,
        lastSeenAt: new Date(e.seenAt).toISOString(),
        lastSeenS: Math.max(0, Math.floor(age / 1000)),
      });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name) || a.host.localeCompare(b.host));
  }
}
