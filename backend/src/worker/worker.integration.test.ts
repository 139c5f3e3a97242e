// `lfnlab serve --queue redis://… --workers` with two `lfnlab worker --lab fake` processes, all real
// processes (redis-server on a free loopback port, the built CLI: `npm run build` first). Runs of
// several users end completed on the workers with their records in the service's runs directory;
// a worker SIGKILLed mid-run leaves that run failed and partial with the samples that arrived,
// run once; the other runs complete, and a worker started again for that host takes new jobs.
// A worker with --labs 2 runs two at once, one per lab, as GET /api/health shows; a service
// SIGKILLed mid-run loses no batch: the worker spools them and replays them when it is back.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@lfnlab/grafana/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BUILT, CliProcess, listeningSockets, until } from '../../test/support/cliProcess.js';
import { callOver, loginOver, type Session } from '../../test/support/httpSession.js';
import {
  findRedisServer,
  type LocalRedis,
  REDIS_INSTALL_HINT,
  startLocalRedis,
} from '../../test/support/localRedis.js';
import { untilAllFinal, untilRunning } from '../../test/support/runPolling.js';
import { serveArgv, workerArgv } from '../../test/support/serveArgs.mjs';
import type { RunView } from '../service/types.js';
import type { WorkerStatus } from '../service/workerRegistry.js';

const redisBin = findRedisServer();
const skipReason = !redisBin
  ? `redis-server is not installed (${REDIS_INSTALL_HINT})`
  : !CLI_BUILT
    ? 'backend/dist is not built (run `npm run build` first; `npm test` does)'
    : null;
const title = skipReason
  ? `lfnlab worker: SKIPPED, ${skipReason}`
  : 'lfnlab worker --lab fake with lfnlab serve --workers (real redis-server, service and workers)';

const SPEC = `name: farm
duration: 20s
paths:
  main: { rtt: 20ms, rate: 20Mbit }
flows:
  - { stack: cubic }
`;
const POOL = 'itfarm';
/** Lab seconds per wall second on the workers: a 20 s run takes 1 s. */
const SPEED = 20;

let dir: string;
let redis: LocalRedis;
let service: CliProcess;
let url: string;
const workers = new Map<string, CliProcess>();

const login = (username: string, password: string) => loginOver(url, username, password);
const call = <T>(s: Session, method: string, path: string, body?: unknown) =>
  callOver<T>(url, s, method, path, body);

const queueRun = async (s: Session, text = SPEC) =>
  (await call<RunView>(s, 'POST', '/api/runs', { text })).id;

async function runsOf(s: Session, ids: string[]): Promise<RunView[]> {
  const all = (await call<{ runs: RunView[] }>(s, 'GET', '/api/runs')).runs;
  return ids.map((id) => all.find((r) => r.id === id)).filter((r): r is RunView => !!r);
}

/** Every run of `ids` ended (each as the admin sees it). */
const ended = (ids: string[], ms = 60_000) =>
  untilAllFinal(() => runsOf(admin, ids), ids.length, { ms, context: logs });
const running = (id: string, elapsedS: number) =>
  untilRunning(async () => (await runsOf(admin, [id]))[0], { elapsedS, context: logs });
const logs = () =>
  [`--- service\n${service.output()}`, ...[...workers].map(([h, w]) => `--- ${h}\n${w.output()}`)].join('\n');

function workerProcess(host: string, labs = 1): CliProcess {
  return new CliProcess(
    `worker ${host}`,
    workerArgv({ queue: redis.url, service: url, dir, host, hostId: POOL, labs, fakeSpeed: SPEED }),
    dir,
  );
}

async function startWorker(host: string, labs = 1): Promise<CliProcess> {
  const w = workerProcess(host, labs);
  workers.set(host, w);
  await w.start((p) => p.output().includes('listening on nothing'));
  return w;
}

const startedLines = (id: string) =>
  service
    .output()
    .split('\n')
    .filter((l) => l.includes(`[${id}] started on worker host`)).length;

let admin: Session;
const students: Session[] = [];

describe.skipIf(skipReason !== null)(title, () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-worker-'));
    redis = await startLocalRedis({ dir: join(dir, 'redis') });
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    service = new CliProcess(
      'service',
      serveArgv({
        port,
        dir,
        extra: ['--queue', redis.url, '--host-id', POOL, '--workers', '--worker-timeout', '4'],
      }),
      dir,
    );
    await service.start(async () => {
      try {
        return (await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(1000) })).ok;
      } catch {
        return false;
      }
    });
    admin = await login('admin', readFileSync(join(dir, 'data/admin-password'), 'utf8').trim());
    for (const host of ['pcA', 'pcB']) {
      const t = await call<{ token: string; host: string }>(admin, 'POST', '/api/worker-tokens', { host });
      expect(t.host).toBe(host);
      writeFileSync(join(dir, `${host}.token`), `${t.token}\n`, { mode: 0o600 });
    }
    for (let i = 1; i <= 6; i++) {
      const username = `farmer${i}`;
      const password = `Kq7-farm-${i * 7919}-zeta`;
      await call(admin, 'POST', '/api/users', { username, password, role: 'student' });
      students.push(await login(username, password));
    }
  }, 90_000);
  afterAll(async () => {
    for (const w of workers.values()) await w.stop();
    await service?.stop();
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a wrong token, an unreachable service and an absent Redis in plain words', async () => {
    writeFileSync(join(dir, 'bad.token'), 'lfnw_not-a-token\n');
    const bad = new CliProcess(
      'bad token',
      [
        'worker',
        '--queue',
        redis.url,
        '--service',
        url,
        '--token-file',
        join(dir, 'bad.token'),
        '--lab',
        'fake',
      ],
      dir,
    );
    await bad.start(() => true).catch(() => undefined);
    expect(await bad.exitCode()).toBe(1);
    expect(bad.output()).toMatch(/refused the worker token/);
    const away = new CliProcess(
      'no service',
      [
        'worker',
        '--queue',
        redis.url,
        '--service',
        `http://127.0.0.1:${await freePort()}`,
        '--token-file',
        join(dir, 'pcA.token'),
        '--lab',
        'fake',
      ],
      dir,
    );
    await away.start(() => true).catch(() => undefined);
    expect(await away.exitCode()).toBe(1);
    expect(away.output()).toMatch(/is unreachable \(ECONNREFUSED\)/);
    const noRedis = new CliProcess(
      'no redis',
      [
        'worker',
        '--queue',
        `redis://127.0.0.1:${await freePort()}`,
        '--service',
        url,
        '--token-file',
        join(dir, 'pcA.token'),
        '--lab',
        'fake',
      ],
      dir,
    );
    await noRedis.start(() => true).catch(() => undefined);
    expect(await noRedis.exitCode()).toBe(1);
    expect(noRedis.output()).toMatch(
      /no answer from Redis at redis:\/\/127\.0\.0\.1:\d+.*is redis-server running/,
    );
    // A worker token opens /api/worker/* and nothing else.
    const token = readFileSync(join(dir, 'pcA.token'), 'utf8').trim();
    const runs = await fetch(`${url}/api/runs`, { headers: { authorization: `Bearer ${token}` } });
    expect(runs.status).toBe(401);
    const hello = await fetch(`${url}/api/worker/hello`, { headers: { authorization: `Bearer ${token}` } });
    expect(await hello.json()).toEqual({ host: 'pcA' });
  });

  it('runs several users’ runs on two workers (listening on nothing), each once, records in the service’s runs directory', async () => {
    for (const host of ['pcA', 'pcB']) {
      const w = await startWorker(host);
      expect(listeningSockets(w.pid as number), `${host} listens on nothing`).toEqual([]);
    }
    // The service does (on loopback): the check would see it.
    expect(listeningSockets(service.pid as number).length).toBeGreaterThan(0);
    const ids: string[] = [];
    for (const s of students) ids.push(await queueRun(s));
    ids.push(await queueRun(admin), await queueRun(admin));
    await ended(ids, 90_000);
    const done = await runsOf(admin, ids);
    expect(done.map((r) => [r.id, r.status, r.error])).toEqual(ids.map((id) => [id, 'completed', null]));
    for (const r of done) {
      expect(['pcA', 'pcB']).toContain(r.host);
      expect(r.partial).toBe(false);
      const runDir = join(dir, 'runs', r.id);
      const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
      expect(summary.status).toBe('completed');
      for (const f of ['plan.json', 'spec.yaml', 'events.jsonl', 'samples/tcp.jsonl', 'service.json'])
        expect(existsSync(join(runDir, f)), `${r.id}/${f}`).toBe(true);
      expect(statSync(join(runDir, 'samples/tcp.jsonl')).size).toBeGreaterThan(0);
      expect(startedLines(r.id), r.id).toBe(1);
    }
    // The scratch copies are gone once the service has the records.
    for (const h of ['pcA', 'pcB'])
      expect(existsSync(join(dir, `scratch-${h}`)) ? readdirSync(join(dir, `scratch-${h}`)) : []).toEqual([]);
    expect(logs()).not.toMatch(/not queued .*skipped/);
  }, 120_000);

  it('a stop reaches the worker running the run: aborted, partial, its record handed over', async () => {
    const id = await queueRun(admin, SPEC.replace('duration: 20s', 'duration: 600s'));
    await running(id, 20);
    await call(admin, 'POST', `/api/runs/${id}/stop`);
    await ended([id], 30_000);
    const [r] = await runsOf(admin, [id]);
    expect(r).toMatchObject({ status: 'aborted', partial: true, error: 'stopped by admin' });
    const summary = JSON.parse(readFileSync(join(dir, 'runs', id, 'summary.json'), 'utf8'));
    expect(summary.status).toBe('aborted');
    expect(statSync(join(dir, 'runs', id, 'samples/tcp.jsonl')).size).toBeGreaterThan(0);
  }, 60_000);

  it('a worker SIGKILLed mid-run: that run failed and partial with its samples, the rest complete, a new worker takes jobs', async () => {
    // 600 lab s at 20x: 30 s on the worker, long enough to be killed in the middle.
    const long = await queueRun(admin, SPEC.replace('duration: 20s', 'duration: 600s'));
    const victimHost = (await running(long, 40)).host as string;
    const otherHost = victimHost === 'pcA' ? 'pcB' : 'pcA';
    await workers.get(victimHost)?.kill();
    const more: string[] = [];
    for (const s of students.slice(0, 3)) more.push(await queueRun(s));
    await ended([long, ...more]);
    const [killed] = await runsOf(admin, [long]);
    expect(killed).toMatchObject({ status: 'failed', partial: true, host: victimHost });
    expect(killed?.error).toMatch(new RegExp(`worker host ${victimHost} stopped reporting`));
    const killedDir = join(dir, 'runs', long);
    expect(statSync(join(killedDir, 'samples/tcp.jsonl')).size).toBeGreaterThan(0);
    const summary = JSON.parse(readFileSync(join(killedDir, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ status: 'failed', partial: true });
    expect(startedLines(long)).toBe(1);
    for (const r of await runsOf(admin, more))
      expect(r).toMatchObject({ status: 'completed', host: otherHost });

    // The other worker stops; one started again for the killed host's token takes the next runs.
    await workers.get(otherHost)?.stop();
    await startWorker(victimHost);
    const later: string[] = [];
    for (const s of students.slice(3, 5)) later.push(await queueRun(s));
    await ended(later);
    for (const r of await runsOf(admin, later))
      expect(r).toMatchObject({ status: 'completed', host: victimHost });
    // The killed run was not taken up again by the new worker.
    expect(startedLines(long)).toBe(1);
  }, 150_000);

  it('redis-server SIGKILLed: queued runs survive it, a worker and the service reconnect, each run runs once', async () => {
    const host = [...workers].find(([, w]) => w.running)?.[0] as string;
    await workers.get(host)?.stop();
    // Waiting in Redis (append-only file, fsync always) when it dies.
    const waiting = [await queueRun(students[0] as Session), await queueRun(students[1] as Session)];
    const restartRedis = async () => {
      await redis.kill();
      redis = await startLocalRedis({ dir: join(dir, 'redis'), port: redis.port });
    };
    await restartRedis();
    await startWorker(host);
    await ended(waiting);
    for (const r of await runsOf(admin, waiting)) expect(r).toMatchObject({ status: 'completed', host });
    // This worker lives through a second crash; the service queues through its reconnected client.
    await restartRedis();
    const after = [await queueRun(students[2] as Session)];
    await ended(after);
    for (const r of await runsOf(admin, after)) expect(r).toMatchObject({ status: 'completed', host });
    for (const id of [...waiting, ...after]) expect(startedLines(id), id).toBe(1);
    // From Redis's own file, not queued again by the service's check for lost jobs.
    expect(service.output()).not.toMatch(/left the queue before the run started/);
  }, 150_000);

  it('starts runs in fair turns across users, as queued in BullMQ while no worker was there', async () => {
    const host = [...workers].find(([, w]) => w.running)?.[0] as string;
    await workers.get(host)?.stop();
    // The admin queues three, then three students one each: turns are admin, s1, s2, s3, admin, admin.
    const mine = [await queueRun(admin), await queueRun(admin), await queueRun(admin)];
    const theirs: string[] = [];
    for (const s of students.slice(0, 3)) theirs.push(await queueRun(s));
    await startWorker(host);
    const all = [...mine, ...theirs];
    await ended(all);
    const done = await runsOf(admin, all);
    expect(done.every((r) => r.status === 'completed')).toBe(true);
    const byStart = [...done].sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? ''));
    expect(byStart.map((r) => r.id)).toEqual([mine[0], ...theirs, mine[1], mine[2]]);
  }, 90_000);

  it('a worker with --labs 2 runs two runs at once, one per lab; GET /api/health lists it with its labs', async () => {
    for (const w of workers.values()) await w.stop();
    const host = 'pcA';
    await startWorker(host, 2);
    const health = async () =>
      (await (await fetch(`${url}/api/health`)).json()) as { workers: WorkerStatus[] };
    // This one, not a worker of this host killed earlier (listed away until it is forgotten).
    const mine = (ws: WorkerStatus[]) => ws.find((w) => w.name === host && w.labs.length === 2);
    await until(async () => mine((await health()).workers)?.state === 'idle', 15_000, logs);
    const long = SPEC.replace('duration: 20s', 'duration: 200s');
    const ids = [await queueRun(admin, long), await queueRun(admin, long)];
    const both = await Promise.all(ids.map((id) => running(id, 10)));
    expect(both.map((r) => r.host)).toEqual([host, host]);
    expect(both.map((r) => r.hostLab).sort()).toEqual(['default', 'default-2']);
    // Public: labs busy or idle, no run ids; an admin sees which run each lab runs.
    await until(async () => mine((await health()).workers)?.state === 'busy', 15_000, logs);
    const seen = mine((await health()).workers) as WorkerStatus;
    expect(seen).toMatchObject({ name: host, state: 'busy', version: expect.any(String) });
    expect(seen.labs).toEqual([
      { name: 'default', state: 'busy' },
      { name: 'default-2', state: 'busy' },
    ]);
    expect(seen.lastSeenS).toBeLessThan(15);
    const asAdmin = await call<{ workers: WorkerStatus[] }>(admin, 'GET', '/api/health');
    const labsOfAdmin = mine(asAdmin.workers)?.labs ?? [];
    expect(labsOfAdmin.map((l) => l.runId).sort()).toEqual([...ids].sort());
    expect(JSON.stringify(asAdmin)).not.toMatch(/lfnw_/);
    await ended(ids);
    for (const r of await runsOf(admin, ids)) expect(r).toMatchObject({ status: 'completed', host });
    // A worker that stops says goodbye: it leaves the list at once.
    await workers.get(host)?.stop();
    expect(mine((await health()).workers)).toBeUndefined();
    await startWorker(host);
  }, 120_000);

  it('the service SIGKILLed mid-run: the worker spools its batches, replays them to the restarted service, every sample once, completed', async () => {
    const id = await queueRun(admin, SPEC.replace('duration: 20s', 'duration: 300s'));
    const host = (await running(id, 40)).host as string;
    await service.kill();
    // While the service is away the batches wait on the worker's disk: ten of them (5 s) outlast
    // --worker-timeout 4, which counts only while the service is up.
    const spool = join(dir, `scratch-${host}`, `${id}.spool`);
    const spooled = () => (existsSync(spool) ? readdirSync(spool).filter((f) => f.endsWith('.json')) : []);
    await until(async () => spooled().length >= 10, 30_000, logs);
    await service.start(async () => {
      try {
        return (await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(1000) })).ok;
      } catch {
        return false;
      }
    });
    expect(service.output()).toContain(`[${id}] was running on worker host`);
    await ended([id]);
    const [r] = await runsOf(admin, [id]);
    expect(r).toMatchObject({ status: 'completed', partial: false, error: null });
    expect(startedLines(id)).toBe(0); // not started again by the restarted service
    const runDir = join(dir, 'runs', id);
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
    expect(summary.status).toBe('completed');
    // Every sample the worker recorded, once: the streamed files were the worker's own, byte for
    // byte, so the hand-off did not upload them again.
    let lines = 0;
    for (const f of readdirSync(join(runDir, 'samples'))) {
      const rows = readFileSync(join(runDir, 'samples', f), 'utf8')
        .trim()
        .split('\n');
      expect(new Set(rows).size, `${f}: no sample twice`).toBe(rows.length);
      lines += rows.length;
    }
    expect(lines).toBe(summary.samples);
    const handOff = workers
      .get(host)
      ?.output()
      .split('\n')
      .find((l) => l.includes(`[${id}]`) && l.includes('record handed'));
    expect(handOff).toMatch(/already there from the stream: .*samples\/tcp\.jsonl/);
    expect(workers.get(host)?.output()).toMatch(
      new RegExp(`\\[${id}\\] the service answers again after \\d+ s`),
    );
    expect(existsSync(spool)).toBe(false);
    expect(existsSync(join(runDir, '.worker-stream.json'))).toBe(false);
  }, 120_000);
});
