// New runs into the queue: the owner's quota checked, each given an id, a lab (the pool's shortest
// line unless named) and a record with its spec on disk, then its job queued.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureSummary } from './partialSummary.js';
import { randomId } from './passwords.js';
import { enforceQuota } from './quotas.js';
import { finishRun } from './runEnd.js';
import { jobOf } from './runFiles.js';
import type { PlannedRun } from './runInputs.js';
import type { RunServiceDeps } from './runServiceDeps.js';
import { stacksOf } from './runStore.js';
import { isActive, type PublicUser, type Run, ServiceError } from './types.js';

type EnqueueDeps = Pick<RunServiceDeps, 'store' | 'queue' | 'hub' | 'accounts' | 'log' | 'pool'>;

const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
const safeName = (s: string) => s.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 40);

/** Runs whose specs are already validated (resolveRunInput, or an assignment's spec): quota, then queue. */
export async function createPlannedRuns(
  d: EnqueueDeps,
  user: PublicUser,
  planned: PlannedRun[],
  lab?: string,
): Promise<Run[]> {
  const active = d.store.all().filter((r) => r.ownerId === user.id && isActive(r)).length;
  enforceQuota(
    planned.map((p) => p.spec),
    d.accounts.quotaOf(user),
    user.role,
    active,
  );
  const campaignId =
    planned.length > 1 || planned[0]?.campaign ? `${stamp(new Date())}-${randomId(3)}` : null;
  const runs: Run[] = [];
  for (const p of planned) runs.push(await enqueue(d, user, p, lab ?? (await shortestLine(d)), campaignId));
  return runs;
}

/** The pool's lab with the fewest runs waiting or running (the first of equals). */
async function shortestLine(d: EnqueueDeps): Promise<string> {
  const pool = d.pool?.length ? d.pool : ['default'];
  if (pool.length === 1) return pool[0] as string;
  const load = new Map(pool.map((l) => [l, 0]));
  for (const j of [...(await d.queue.waitingJobs()), ...(await d.queue.runningJobs())])
    if (load.has(j.lab)) load.set(j.lab, (load.get(j.lab) ?? 0) + 1);
  return pool.reduce((best, l) => ((load.get(l) ?? 0) < (load.get(best) ?? 0) ? l : best));
}

async function enqueue(
  d: EnqueueDeps,
  user: PublicUser,
  p: PlannedRun,
  lab: string,
  campaignId: string | null,
): Promise<Run> {
  const now = new Date();
  const id = `${stamp(now)}-${safeName(p.spec.name)}-${randomId(3).replace(/[-_]/g, 'x')}`;
  const run: Run = {
    id,
    name: p.name,
    label: p.label,
    owner: user.username,
    ownerId: user.id,
    status: 'queued',
    verdict: null,
    preset: p.preset,
    campaign: campaignId ? `${p.campaign ?? 'campaign'}@${campaignId}` : null,
    lab,
    stacks: stacksOf(p.spec),
    createdAt: now.toISOString(),
    startedAt: null,
    finishedAt: null,
    progress: { elapsedS: 0, totalS: p.spec.duration / 1000 },
    error: null,
    partial: false,
    spec: p.spec,
  };
  const dir = d.store.dirFor(id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'spec.yaml'), p.specText);
  d.store.save(run, dir);
  d.hub.open(id).publish({ type: 'event', event: 'queued', data: { lab } });
  try {
    await d.queue.enqueue(jobOf(d.store, run, p.specText, p.spec));
  } catch (err) {
    // A queue on Redis can be away: the run never queued, so its record says so at once.
    const error = `could not be queued: ${err instanceof Error ? err.message : String(err)}`;
    d.log(`[${id}] ${error}`);
    ensureSummary(dir, run.spec, 'failed', error);
    finishRun(d, run, { status: 'failed', verdict: null, error, partial: false });
    throw new ServiceError(503, `run ${id} ${error}; try again when the queue is back`);
  }
  return run;
}
