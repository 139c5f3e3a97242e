// The queue as people see it: each queued run's place and expected start (on the run and as a
// board per lab), and moving a waiting run. Others' runs appear on the board without name or
// owner, so a student sees how many are ahead without seeing whose they are.
import type { Spec } from '@lfnlab/emulator';
import type { Access } from './access.js';
import type { RunJob, RunQueue } from './queue.js';
import { queueSpots } from './queueEstimate.js';
import type { RunStore } from './runStore.js';
import { type PublicUser, type QueueSpot, type Run, type RunView, ServiceError } from './types.js';

export interface BoardEntry {
  /** Null for runs the caller may not see. */
  runId: string | null;
  name: string | null;
  /** The run's label (Run.label) where it has one and the caller may see it. */
  label: string | null;
  owner: string | null;
  mine: boolean;
  status: 'queued' | 'running';
  /** For waiting runs: 1 = next. */
  position: number | null;
  estimatedStartAt: string | null;
}

export interface QueueBoardView {
  labs: { lab: string; running: BoardEntry | null; waiting: BoardEntry[] }[];
  /** The caller's own first waiting run: how many start before it (null when none waits). */
  myFirstAhead: number | null;
  myQueued: number;
}

/** 'earlier'/'later': past the neighbouring run the caller controls; 'first'/'last': past all of them. */
export type MoveTo = 'earlier' | 'later' | 'first' | 'last';

export class QueueBoard {
  constructor(
    private readonly store: RunStore,
    private readonly queue: RunQueue,
    private readonly access: Access,
    /** The pace a run is expected to keep on a lab that has not run one (LabDriver.expectedPace). */
    private readonly expectedPace: (spec: Spec) => number = () => 1,
  ) {}

  /** The queue's jobs; a queue that does not answer (Redis away) is a 503 naming it, not a 500. */
  private async jobs(): Promise<[RunJob[], RunJob[]]> {
    try {
      return await Promise.all([this.queue.waitingJobs(), this.queue.runningJobs()]);
    } catch (err) {
      throw new ServiceError(
        503,
        `the run queue does not answer (${(err as Error).message}); recorded runs are safe, and the board is back once the queue is`,
      );
    }
  }

  private async lines(now = new Date()) {
    const [waiting, running] = await this.jobs();
    const labs = new Set([...waiting, ...running].map((j) => j.lab));
    const all = this.store.all();
    const runOf = (j: RunJob) => this.store.get(j.runId);
    const out: { lab: string; running: Run | null; waiting: Run[]; spots: Map<string, QueueSpot> }[] = [];
    for (const lab of [...labs].sort()) {
      const line = {
        // A job can outlive its run: one a killed service held stays active in Redis until its
        // lock lapses, while the restarted service has already recorded the run as failed.
        running:
          running
            .filter((j) => j.lab === lab)
            .map(runOf)
            .find((r) => r?.status === 'running') ?? null,
        waiting: waiting
          .filter((j) => j.lab === lab)
          .map(runOf)
          .filter((r): r is Run => r?.status === 'queued'),
        history: all.filter((r) => r.lab === lab),
      };
      out.push({
        lab,
        running: line.running,
        waiting: line.waiting,
        spots: queueSpots(line, now, this.expectedPace),
      });
    }
    return out;
  }

  /** Every run the lab has had (for its pace and per-run overhead). */
  labHistory(lab: string): Run[] {
    return this.store.all().filter((r) => r.lab === lab);
  }

  async spots(): Promise<Map<string, QueueSpot>> {
    const m = new Map<string, QueueSpot>();
    for (const l of await this.lines()) for (const [id, s] of l.spots) m.set(id, s);
    return m;
  }

  async views(runs: Run[]): Promise<RunView[]> {
    // Runs are listed from their records even while the queue is away; only the places are unknown.
    const spots = runs.some((r) => r.status === 'queued')
      ? await this.spots().catch(() => new Map<string, QueueSpot>())
      : new Map<string, QueueSpot>();
    return runs.map((r) => ({ ...r, queue: r.status === 'queued' ? (spots.get(r.id) ?? null) : null }));
  }

  async view(run: Run): Promise<RunView> {
    return (await this.views([run]))[0] as RunView;
  }

  async board(viewer: PublicUser): Promise<QueueBoardView> {
    const entry = (r: Run, spot: QueueSpot | null): BoardEntry => {
      const seen = this.access.canSee(viewer, r.ownerId);
      return {
        runId: seen ? r.id : null,
        name: seen ? r.name : null,
        label: seen ? (r.label ?? null) : null,
        owner: seen ? r.owner : null,
        mine: r.ownerId === viewer.id,
        status: r.status === 'running' ? 'running' : 'queued',
        position: spot?.position ?? null,
        estimatedStartAt: spot?.estimatedStartAt ?? null,
      };
    };
    const labs = (await this.lines()).map((l) => ({
      lab: l.lab,
      running: l.running ? entry(l.running, null) : null,
      waiting: l.waiting.map((r) => entry(r, l.spots.get(r.id) ?? null)),
    }));
    let myFirstAhead: number | null = null;
    let myQueued = 0;
    for (const l of labs)
      l.waiting.forEach((e, i) => {
        if (!e.mine) return;
        myQueued++;
        const ahead = i + (l.running ? 1 : 0);
        if (myFirstAhead === null || ahead < myFirstAhead) myFirstAhead = ahead;
      });
    return { labs, myFirstAhead, myQueued };
  }

  /** Move a waiting run among the waiting runs `viewer` controls on its lab (instructors, admins). */
  async move(viewer: PublicUser, run: Run, to: MoveTo): Promise<void> {
    if (viewer.role === 'student')
      throw new ServiceError(403, 'only instructors and admins reorder the queue', [
        { path: 'to', message: 'ask your instructor to move a run' },
      ]);
    if (run.status !== 'queued' || !this.access.canControl(viewer, run.ownerId))
      throw new ServiceError(409, `run ${run.id} is not waiting in the queue`, [
        { path: 'id', message: 'only a queued run can be moved' },
      ]);
    const line = (await this.queue.waitingJobs()).filter((j) => j.lab === run.lab);
    const mine = line.filter((j) => {
      const r = this.store.get(j.runId);
      return r && this.access.canControl(viewer, r.ownerId);
    });
    const i = mine.findIndex((j) => j.runId === run.id);
    if (i < 0) throw new ServiceError(409, `run ${run.id} is not waiting in the queue`);
    const after = (j: RunJob | undefined) => {
      // Just after j: before whatever follows it in the whole line (or the end).
      if (!j) return null;
      return line[line.findIndex((x) => x.runId === j.runId) + 1]?.runId ?? null;
    };
    let before: string | null | undefined;
    if (to === 'earlier') before = i > 0 ? mine[i - 1]?.runId : undefined;
    else if (to === 'first') before = i > 0 ? mine[0]?.runId : undefined;
    else if (to === 'later') before = i < mine.length - 1 ? after(mine[i + 1]) : undefined;
    else before = i < mine.length - 1 ? after(mine[mine.length - 1]) : undefined;
    if (before === undefined) return; // already there
    if (!(await this.queue.move(run.id, before)))
      throw new ServiceError(409, `run ${run.id} started or ended meanwhile`);
  }
}
