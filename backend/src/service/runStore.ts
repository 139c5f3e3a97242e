// Run records: service.json in each run directory, beside the record runExperiment writes, so the
// run directory stays the one source of truth and a restart finds every run by scanning. Runs made
// by the CLI (no service.json) are listed too, owned by the first admin, their state read from
// summary.json. Records from before user ids (owner by username only) get the id of the account
// that had the name when first read, written back once.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Spec } from '@lfnlab/emulator';
import { readJson, readRunSummary } from '../report/load.js';
import { writeJsonAtomic } from './jsonFile.js';
import type { Run } from './types.js';

export const SERVICE_FILE = 'service.json';

interface Entry {
  run: Run;
  dir: string;
  /** Found on disk without service.json: shown, never rewritten. */
  foreign: boolean;
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

export const stacksOf = (spec: Partial<Spec> | null) => [...new Set((spec?.flows ?? []).map((f) => f.stack))];

/** A run directory the CLI wrote, as a Run. */
function foreignRun(id: string, dir: string, owner: RunOwner): Run | null {
  const spec = readJson<Spec>(join(dir, 'spec.json'));
  const summary = readRunSummary(dir);
  if (!spec && !summary) return null;
  let createdAt = new Date(statSync(dir).mtimeMs).toISOString();
  const firstEvent = existsSync(join(dir, 'events.jsonl'))
    ? readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n', 1)[0]
    : '';
  try {
    const at = (JSON.parse(firstEvent ?? '') as { at?: string }).at;
    if (at) createdAt = at;
  } catch {}
  const totalS = (spec?.duration ?? 0) / 1000;
  return {
    id,
    name: summary?.name ?? spec?.name ?? id,
    owner: owner.username,
    ownerId: owner.id,
    status: summary?.status ?? 'failed',
    verdict: summary?.verdict ?? null,
    preset: null,
    campaign: null,
    lab: 'default',
    stacks: stacksOf(spec),
    createdAt,
    startedAt: summary?.startedAt ?? createdAt,
    finishedAt: summary?.finishedAt ?? null,
    progress: { elapsedS: summary ? totalS : 0, totalS },
    error: summary
      ? summary.error
      : 'no summary.json: the run never finished (killed, or running in another process)',
    partial: summary?.status !== 'completed',
    spec: (spec ?? {}) as Spec,
  };
}

export interface RunOwner {
  id: string;
  username: string;
}

export interface RunOwners {
  /** Who owns runs the CLI wrote (no service.json). */
  foreign(): RunOwner;
  /** A username's current id, for records from before ids; null when no account has it. */
  idOf(username: string): string | null;
}

const NO_OWNERS: RunOwners = {
  foreign: () => ({ id: '(cli)', username: 'admin' }),
  idOf: () => null,
};

export class RunStore {
  private readonly entries = new Map<string, Entry>();

  constructor(
    readonly runsDir: string,
    private readonly owners: RunOwners = NO_OWNERS,
  ) {}

  /** Read every run directory (and the runs inside campaign directories) under runsDir. */
  scan(): void {
    this.entries.clear();
    if (!isDir(this.runsDir)) return;
    for (const name of readdirSync(this.runsDir).sort()) {
      const dir = join(this.runsDir, name);
      if (!isDir(dir)) continue;
      if (existsSync(join(dir, 'campaign.json')) && !existsSync(join(dir, SERVICE_FILE))) {
        for (const child of readdirSync(dir).sort())
          if (isDir(join(dir, child))) this.load(`${name}~${child}`, join(dir, child));
        continue;
      }
      this.load(name, dir);
    }
  }

  private load(id: string, dir: string) {
    const own = readJson<Run>(join(dir, SERVICE_FILE));
    if (own) {
      this.entries.set(own.id, { run: own, dir, foreign: false });
      if (!own.ownerId) {
        own.ownerId = this.owners.idOf(own.owner) ?? `(deleted) ${own.owner}`;
        this.save(own, dir);
      }
      return;
    }
    const run = foreignRun(id, dir, this.owners.foreign());
    if (run) this.entries.set(id, { run, dir, foreign: true });
  }

  all(): Run[] {
    return [...this.entries.values()].map((e) => e.run);
  }

  get(id: string): Run | null {
    return this.entries.get(id)?.run ?? null;
  }

  dir(id: string): string | null {
    return this.entries.get(id)?.dir ?? null;
  }

  dirFor(id: string): string {
    return join(this.runsDir, id);
  }

  /** Record (or update) a run the service owns: service.json written atomically. */
  save(run: Run, dir = this.dir(run.id) ?? this.dirFor(run.id)): void {
    const e = this.entries.get(run.id);
    if (e?.foreign) return;
    this.entries.set(run.id, { run, dir, foreign: false });
    writeJsonAtomic(join(dir, SERVICE_FILE), run, 0o644);
  }
}
