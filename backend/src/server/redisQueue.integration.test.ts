// `lfnlab serve --lab fake --queue redis://…` as real processes: a redis-server on a free loopback
// port and the built CLI (backend/dist: `npm test` builds first). 30 students each queue a run;
// every run ends in a final state, they start one at a time in the order they were queued (each
// student's first turn), and none is lost or run twice.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@lfnlab/grafana/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOver, loginOver, type Session } from '../../test/support/httpSession.js';
import {
  findRedisServer,
  type LocalRedis,
  REDIS_INSTALL_HINT,
  startLocalRedis,
} from '../../test/support/localRedis.js';
import { serveArgv } from '../../test/support/serveArgs.mjs';
import type { QueueBoardView } from '../service/queueBoard.js';
import type { RunView } from '../service/types.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(repo, 'backend/bin/lfnlab.js');
const built = existsSync(join(repo, 'backend/dist/cli/main.js'));
const redisBin = findRedisServer();
const skipReason = !redisBin
  ? `redis-server is not installed (${REDIS_INSTALL_HINT})`
  : !built
    ? 'backend/dist is not built (run `npm run build` first; `npm test` does)'
    : null;
const title = skipReason
  ? `lfnlab serve --queue redis: SKIPPED, ${skipReason}`
  : 'lfnlab serve --lab fake --queue redis:// (real redis-server, real service process)';

const SPEC = `name: turn
duration: 20s
paths:
  main: { rtt: 20ms, rate: 20Mbit }
flows:
  - { stack: reno }
`;
const STUDENTS = 30;
const HOST_ID = 'itest';

class Service {
  private out = '';
  private child: ChildProcess | null = null;
  url = '';
  constructor(
    private readonly dir: string,
    private readonly redisUrl: string,
  ) {}

  log = () => this.out;

  async start(): Promise<void> {
    const port = await freePort();
    this.url = `http://127.0.0.1:${port}`;
    const child = spawn(
      process.execPath,
      [
        bin,
        ...serveArgv({
          port,
          dir: this.dir,
          extra: ['--fake-speed', '200', '--queue', this.redisUrl, '--host-id', HOST_ID],
        }),
      ],
      { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (d) => (this.out += d));
    child.stderr?.on('data', (d) => (this.out += d));
    this.child = child;
    await this.until(async () => {
      if (child.exitCode !== null) throw new Error(`lfnlab serve exited (${child.exitCode}):\n${this.out}`);
      try {
        return (await fetch(`${this.url}/api/health`, { signal: AbortSignal.timeout(1000) })).ok;
      } catch {
        return false;
      }
    }, 30_000);
  }

  /** Polls `check` (every 100 ms) until it holds; fails with the service's log after `ms`. */
  async until(check: () => Promise<boolean>, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline)
        throw new Error(`condition not met within ${ms} ms; log:\n${this.out.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGINT');
    const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await gone;
    clearTimeout(t);
  }

  /** SIGKILL: the service dies mid-run without recording anything. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGKILL');
    await gone;
  }

  adminPassword(): string {
    return readFileSync(join(this.dir, 'data/admin-password'), 'utf8').trim();
  }

  async runs(s: Session, ids: string[]): Promise<RunView[]> {
    const all = (await this.json<{ runs: RunView[] }>(s, 'GET', '/api/runs')).runs;
    return all.filter((r) => ids.includes(r.id));
  }

  login(username: string, password: string): Promise<Session> {
    return loginOver(this.url, username, password);
  }

  json<T>(s: Session, method: string, path: string, body?: unknown): Promise<T> {
    return callOver<T>(this.url, s, method, path, body);
  }
}

let redis: LocalRedis;
let dir: string;
let service: Service;

describe.skipIf(skipReason !== null)(title, () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-serve-redis-'));
    redis = await startLocalRedis({ dir: join(dir, 'redis') });
    service = new Service(dir, redis.url);
    await service.start();
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`runs ${STUDENTS} students' runs one at a time, in turn, each once`, async () => {
    const password = readFileSync(join(dir, 'data/admin-password'), 'utf8').trim();
    const admin = await service.login('admin', password);
    const students: Session[] = [];
    for (let i = 1; i <= STUDENTS; i++) {
      const username = `student${String(i).padStart(2, '0')}`;
      const pw = `Kq7-turn-${i * 7919}-zeta`; // the policy refuses one containing the username
      await service.json(admin, 'POST', '/api/users', { username, password: pw, role: 'student' });
      students.push(await service.login(username, pw));
    }
    const queued: string[] = [];
    for (const s of students) {
      const [run] = await service
        .json<RunView[] | RunView>(s, 'POST', '/api/runs', { text: SPEC })
        .then((r) => (Array.isArray(r) ? r : [r]));
      queued.push((run as RunView).id);
    }
    // The board reads the line from Redis: the runs still waiting, in the order they were queued.
    const board = await service.json<QueueBoardView>(admin, 'GET', '/api/queue');
    const waiting = board.labs.flatMap((l) => l.waiting.map((e) => e.runId));
    // A run takes at least 100 ms here (20 lab s at 200x) and queueing one ~10 ms: most still wait.
    expect(waiting.length).toBeGreaterThanOrEqual(STUDENTS / 2);
    expect(waiting).toEqual(queued.slice(queued.length - waiting.length));
    expect(board.labs.flatMap((l) => l.waiting.map((e) => e.position))).toEqual(waiting.map((_, i) => i + 1));

    const runs = async () =>
      (await service.json<{ runs: RunView[] }>(admin, 'GET', '/api/runs')).runs.filter((r) =>
        queued.includes(r.id),
      );
    await service.until(
      async () => (await runs()).every((r) => r.status !== 'queued' && r.status !== 'running'),
      120_000,
    );
    const done = await runs();
    expect(done).toHaveLength(STUDENTS);
    expect(new Set(done.map((r) => r.id)).size).toBe(STUDENTS);
    expect(done.map((r) => r.status)).toEqual(done.map(() => 'completed'));
    const byStart = [...done].sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? ''));
    expect(byStart.map((r) => r.id)).toEqual(queued);
    // One at a time: each run started after the one before it had finished.
    for (let i = 1; i < byStart.length; i++)
      expect(Date.parse(byStart[i]?.startedAt ?? '')).toBeGreaterThanOrEqual(
        Date.parse(byStart[i - 1]?.finishedAt ?? ''),
      );
    for (const r of done) expect(existsSync(join(dir, 'runs', r.id, 'summary.json'))).toBe(true);
    // Nothing left in Redis to run again: the lab's queue is empty, no job active or waiting.
    const conn = new Redis(redis.url);
    try {
      const keys = await conn.keys(`bull:lfnlab.${HOST_ID}.default:*`);
      const prioritized = await conn.zcard(`bull:lfnlab.${HOST_ID}.default:prioritized`);
      const active = await conn.llen(`bull:lfnlab.${HOST_ID}.default:active`);
      expect({ prioritized, active }).toEqual({ prioritized: 0, active: 0 });
      expect(keys.length).toBeGreaterThan(0); // the queue was in this Redis
    } finally {
      conn.disconnect();
    }
  }, 180_000);

  it('a stop reaches the run in the lab (aborted, partial) and takes a waiting one out of Redis', async () => {
    const admin = await service.login('admin', service.adminPassword());
    const long = SPEC.replace('duration: 20s', 'duration: 3600s');
    const running = (await service.json<RunView>(admin, 'POST', '/api/runs', { text: long })).id;
    const waiting = (await service.json<RunView>(admin, 'POST', '/api/runs', { text: SPEC })).id;
    const ids = [running, waiting];
    await service.until(async () => (await service.runs(admin, [running]))[0]?.status === 'running', 30_000);
    await service.json(admin, 'POST', `/api/runs/${waiting}/stop`);
    await service.json(admin, 'POST', `/api/runs/${running}/stop`);
    await service.until(
      async () =>
        (await service.runs(admin, ids)).every((x) => x.status !== 'queued' && x.status !== 'running'),
      30_000,
    );
    const [r] = await service.runs(admin, [running]);
    const [w] = await service.runs(admin, [waiting]);
    expect(r).toMatchObject({ status: 'aborted', partial: true, error: 'stopped by admin' });
    expect(w).toMatchObject({ status: 'aborted', startedAt: null });
    expect(w?.error).toMatch(/before it started/);
    const conn = new Redis(redis.url);
    try {
      expect(await conn.exists(`bull:lfnlab.${HOST_ID}.default:${waiting}`)).toBe(0);
    } finally {
      conn.disconnect();
    }
  }, 60_000);
});

describe.skipIf(skipReason !== null)(`${title}: the service killed mid-run`, () => {
  let own: string;
  let r: LocalRedis;
  let svc: Service;
  beforeAll(async () => {
    own = mkdtempSync(join(tmpdir(), 'lfnlab-serve-redis-kill-'));
    r = await startLocalRedis({ dir: join(own, 'redis') });
    svc = new Service(own, r.url);
    await svc.start();
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await r?.stop();
    if (own) rmSync(own, { recursive: true, force: true });
  });

  it('keeps the queued runs in Redis; after a restart each runs once and the killed one ends failed', async () => {
    let admin = await svc.login('admin', svc.adminPassword());
    const names = ['liam', 'mona', 'nils'];
    const sessions: Session[] = [admin];
    for (const [i, username] of names.entries()) {
      const pw = `Kq7-kill-${(i + 1) * 104729}-eta`;
      await svc.json(admin, 'POST', '/api/users', { username, password: pw, role: 'student' });
      sessions.push(await svc.login(username, pw));
    }
    // The admin's run is long (600 lab s at 200x: 3 s), so it is running when the service dies.
    const long = SPEC.replace('duration: 20s', 'duration: 600s');
    const ids: string[] = [];
    for (const [i, s] of sessions.entries())
      ids.push((await svc.json<RunView>(s, 'POST', '/api/runs', { text: i === 0 ? long : SPEC })).id);
    await svc.until(async () => (await svc.runs(admin, ids)).some((x) => x.status === 'running'), 30_000);
    const before = await svc.runs(admin, ids);
    expect(before.find((x) => x.id === ids[0])?.status).toBe('running');
    expect(
      before
        .filter((x) => x.status === 'queued')
        .map((x) => x.id)
        .sort(),
    ).toEqual(ids.slice(1).sort());
    await svc.kill();

    await svc.start();
    admin = await svc.login('admin', svc.adminPassword());
    // Well within the 30-60 s a dead worker's job would hold the lab had the restart not dropped it.
    await svc.until(
      async () => (await svc.runs(admin, ids)).every((x) => x.status !== 'queued' && x.status !== 'running'),
      20_000,
    );
    const after = await svc.runs(admin, ids);
    const killed = after.find((x) => x.id === ids[0]);
    expect(killed).toMatchObject({ status: 'failed', partial: true });
    const rest = ids.slice(1).map((id) => after.find((x) => x.id === id));
    expect(rest.map((x) => x?.status)).toEqual(['completed', 'completed', 'completed']);
    // In the order they were queued, one at a time, after the restart.
    const starts = rest.map((x) => Date.parse(x?.startedAt ?? ''));
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    expect(starts[0]).toBeGreaterThan(Date.parse(killed?.finishedAt ?? ''));
    // The killed run's job is still active in Redis until its lock lapses; the board says what ran.
    const board = await svc.json<QueueBoardView>(admin, 'GET', '/api/queue');
    expect(board.labs.map((l) => l.running)).toEqual(board.labs.map(() => null));
    // None is waiting to run a second time.
    const conn = new Redis(r.url);
    try {
      expect(await conn.zcard(`bull:lfnlab.${HOST_ID}.default:prioritized`)).toBe(0);
      expect(await conn.llen(`bull:lfnlab.${HOST_ID}.default:wait`)).toBe(0);
    } finally {
      conn.disconnect();
    }
  }, 180_000);
});
