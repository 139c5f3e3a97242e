// `lfnlab serve --queue redis://… --workers` with two `lfnlab worker --lab fake` processes, all real
// processes (redis-server on a free loopback port, the built CLI: `npm run build` first). Runs of
// several users end completed on the workers with their records in the service's runs directory;
// a worker SIGKILLed mid-run leaves that run failed and partial with the samples that arrived,
// run once; the other runs complete, and a worker started again for that host takes new jobs.
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
import type { RunView } from '../service/types.js';

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

const final = (r: RunView) => r.status !== 'queued' && r.status !== 'running';
const logs = () =>
  [`--- service\n${service.output()}`, ...[...workers].map(([h, w]) => `--- ${h}\n${w.output()}`)].join('\n');

function workerProcess(host: string): CliProcess {
  return new CliProcess(
    `worker ${host}`,
    [
      'worker',
      '--queue',
      redis.url,
      '--service',
      url,
      '--token-file',
      join(dir, `${host}.token`),
      '--host-id',
      POOL,
      '--lab',
      'fake',
      '--fake-speed',
      String(SPEED),
      '--scratch',
      join(dir, `scratch-${host}`),
    ],
    dir,
  );
}

async function startWorker(host: string): Promise<CliProcess> {
  const w = workerProcess(host);
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
      [
        'serve',
        '--lab',
        'fake',
        '--port',
        String(port),
        '--data',
        join(dir, 'data'),
        '--runs',
        join(dir, 'runs'),
        '--influx',
        'off',
        '--queue',
        redis.url,
        '--host-id',
        POOL,
        '--workers',
        '--worker-timeout',
        '4',
      ],
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
    await until(async () => (await runsOf(admin, ids)).every(final), 90_000, logs);
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
    await until(
      async () => {
        const [r] = await runsOf(admin, [id]);
        return r?.status === 'running' && r.progress.elapsedS >= 20;
      },
      60_000,
      logs,
    );
    await call(admin, 'POST', `/api/runs/${id}/stop`);
    await until(async () => (await runsOf(admin, [id])).every(final), 30_000, logs);
    const [r] = await runsOf(admin, [id]);
    expect(r).toMatchObject({ status: 'aborted', partial: true, error: 'stopped by admin' });
    const summary = JSON.parse(readFileSync(join(dir, 'runs', id, 'summary.json'), 'utf8'));
    expect(summary.status).toBe('aborted');
    expect(statSync(join(dir, 'runs', id, 'samples/tcp.jsonl')).size).toBeGreaterThan(0);
  }, 60_000);

  it('a worker SIGKILLed mid-run: that run failed and partial with its samples, the rest complete, a new worker takes jobs', async () => {
    // 600 lab s at 20x: 30 s on the worker, long enough to be killed in the middle.
    const long = await queueRun(admin, SPEC.replace('duration: 20s', 'duration: 600s'));
    await until(
      async () => {
        const [r] = await runsOf(admin, [long]);
        return r?.status === 'running' && r.progress.elapsedS >= 40;
      },
      60_000,
      logs,
    );
    const [running] = await runsOf(admin, [long]);
    const victimHost = running?.host as string;
    const otherHost = victimHost === 'pcA' ? 'pcB' : 'pcA';
    await workers.get(victimHost)?.kill();
    const more: string[] = [];
    for (const s of students.slice(0, 3)) more.push(await queueRun(s));
    await until(async () => (await runsOf(admin, [long, ...more])).every(final), 60_000, logs);
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
    await until(async () => (await runsOf(admin, later)).every(final), 60_000, logs);
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
    await until(async () => (await runsOf(admin, waiting)).every(final), 60_000, logs);
    for (const r of await runsOf(admin, waiting)) expect(r).toMatchObject({ status: 'completed', host });
    // This worker lives through a second crash; the service queues through its reconnected client.
    await restartRedis();
    const after = [await queueRun(students[2] as Session)];
    await until(async () => (await runsOf(admin, after)).every(final), 60_000, logs);
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
    await until(async () => (await runsOf(admin, all)).every(final), 60_000, logs);
    const done = await runsOf(admin, all);
    expect(done.every((r) => r.status === 'completed')).toBe(true);
    const byStart = [...done].sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? ''));
    expect(byStart.map((r) => r.id)).toEqual([mine[0], ...theirs, mine[1], mine[2]]);
  }, 90_000);

  it('the service SIGKILLed while a worker runs a run: restarted, it takes the run back and the run completes once', async () => {
    const id = await queueRun(admin, SPEC.replace('duration: 20s', 'duration: 300s'));
    await until(
      async () => {
        const [r] = await runsOf(admin, [id]);
        return r?.status === 'running' && r.progress.elapsedS >= 40;
      },
      60_000,
      logs,
    );
    await service.kill();
    await service.start(async () => {
      try {
        return (await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(1000) })).ok;
      } catch {
        return false;
      }
    });
    expect(service.output()).toContain(`[${id}] was running on worker host`);
    await until(async () => (await runsOf(admin, [id])).every(final), 60_000, logs);
    const [r] = await runsOf(admin, [id]);
    expect(r).toMatchObject({ status: 'completed', partial: false, error: null });
    expect(startedLines(id)).toBe(0); // not started again by the restarted service
    const summary = JSON.parse(readFileSync(join(dir, 'runs', id, 'summary.json'), 'utf8'));
    expect(summary.status).toBe('completed');
    expect(existsSync(join(dir, 'runs', id, '.worker-stream.json'))).toBe(false);
  }, 120_000);
});
