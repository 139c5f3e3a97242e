// Issue 18's test 5, with the real lab: a class server (redis-server on loopback, `lfnlab serve
// --workers`) and two lab hosts, one `lfnlab worker` on the real qemu lab (LFNLAB_TEST_LAB) and
// one on the fake lab. Thirty students queue one short run each at once. Every run ends in a
// final state, none is lost or run twice, runs start in the order they were queued (one run per
// student: round-robin by owner is first come, first served), give or take the one overtaking
// two labs allow, and the real lab's runs record which host and lab ran them, with valid verdicts.
// Budget: under 5 min wall (3 s runs; the fake worker, at real speed, takes most of them).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@lfnlab/grafana/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BUILT, CliProcess, until } from '../../test/support/cliProcess.js';
import { callOver, loginOver, type Session } from '../../test/support/httpSession.js';
import { bootTestLab, TEST_LAB } from '../../test/support/lab.js';
import {
  findRedisServer,
  type LocalRedis,
  REDIS_INSTALL_HINT,
  startLocalRedis,
} from '../../test/support/localRedis.js';
import { untilAllFinal } from '../../test/support/runPolling.js';
import { serveArgv, workerArgv } from '../../test/support/serveArgs.mjs';
import { expectValidButForDelayJitter } from '../../test/support/verdict.js';
import type { RunView } from '../service/types.js';
import type { WorkerStatus } from '../service/workerRegistry.js';

const skipReason = !findRedisServer()
  ? `redis-server is not installed (${REDIS_INSTALL_HINT})`
  : !CLI_BUILT
    ? 'backend/dist is not built (run `npm run build` first)'
    : null;

const STUDENTS = 30;
const GROUP = 'classroom';
const SPEC = `name: classroom
duration: 3s
paths:
  main: { rtt: 20ms, rate: 20Mbit }
flows:
  - { stack: cubic }
`;
/** The lab host names (worker tokens): one on the real lab, one on the fake one. */
const REAL = 'realpc';
const FAKE = 'fakepc';

let dir: string;
let redis: LocalRedis;
let service: CliProcess;
let url: string;
const workers = new Map<string, CliProcess>();
let admin: Session;

const call = <T>(s: Session, method: string, path: string, body?: unknown) =>
  callOver<T>(url, s, method, path, body);
const logs = () =>
  [`--- service\n${service.output()}`, ...[...workers].map(([h, w]) => `--- ${h}\n${w.output()}`)].join('\n');
const startedLines = (id: string) =>
  service
    .output()
    .split('\n')
    .filter((l) => l.includes(`[${id}] started on worker host`)).length;

function worker(host: string, lab: string): CliProcess {
  return new CliProcess(
    `worker ${host}`,
    workerArgv({ queue: redis.url, service: url, dir, host, hostId: GROUP, lab }),
    dir,
  );
}

describe.skipIf(skipReason !== null)(
  skipReason
    ? `classroom on two workers: SKIPPED, ${skipReason}`
    : 'classroom: 30 students, a real-lab worker and a fake one',
  () => {
    beforeAll(async () => {
      // Each step says when it is done, so a set-up that stalls shows where.
      const t0 = Date.now();
      const step = (what: string) =>
        console.log(`  set-up: ${what} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      // Booted before the clock starts: a cold boot is not what this test measures.
      await bootTestLab();
      step(`lab ${TEST_LAB} up`);
      dir = mkdtempSync(join(tmpdir(), 'lfnlab-classroom-'));
      redis = await startLocalRedis({ dir: join(dir, 'redis') });
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      service = new CliProcess(
        'service',
        serveArgv({
          port,
          dir,
          extra: [
            '--labs',
            '1',
            '--queue',
            redis.url,
            '--host-id',
            GROUP,
            '--workers',
            '--worker-timeout',
            '60',
          ],
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
      step('service up');
      admin = await loginOver(url, 'admin', readFileSync(join(dir, 'data/admin-password'), 'utf8').trim());
      for (const host of [REAL, FAKE]) {
        const t = await call<{ token: string }>(admin, 'POST', '/api/worker-tokens', { host });
        writeFileSync(join(dir, `${host}.token`), `${t.token}\n`, { mode: 0o600 });
      }
      for (const [host, lab] of [
        [REAL, TEST_LAB],
        [FAKE, 'fake'],
      ] as const) {
        const w = worker(host, lab);
        workers.set(host, w);
        await w.start((p) => p.output().includes('listening on nothing'));
        step(`worker ${host} (${lab}) up`);
      }
      // Both are there, idle, before anyone queues.
      await until(
        async () => {
          const h = (await (await fetch(`${url}/api/health`)).json()) as { workers: WorkerStatus[] };
          return [REAL, FAKE].every((n) => h.workers.some((w) => w.name === n && w.state === 'idle'));
        },
        30_000,
        logs,
      );
    }, 900_000);

    afterAll(async () => {
      for (const w of workers.values()) await w.stop(60_000);
      await service?.stop();
      await redis?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('30 students’ runs: each ends once, none lost, started in turn, real-lab runs record host, lab and a valid verdict', async () => {
      const began = Date.now();
      const students: Session[] = [];
      for (let i = 1; i <= STUDENTS; i++) {
        const username = `pupil${String(i).padStart(2, '0')}`;
        const password = `Wx4-class-${i * 7907}-kappa`;
        await call(admin, 'POST', '/api/users', { username, password, role: 'student' });
        students.push(await loginOver(url, username, password));
      }
      // Queued one after another: this is the order they are owed.
      const ids: string[] = [];
      for (const s of students) ids.push((await call<RunView>(s, 'POST', '/api/runs', { text: SPEC })).id);

      const runsOf = async () => {
        const all = (await call<{ runs: RunView[] }>(admin, 'GET', '/api/runs')).runs;
        return ids.map((id) => all.find((r) => r.id === id)).filter((r): r is RunView => !!r);
      };
      const done = await untilAllFinal(runsOf, STUDENTS, { ms: 270_000, context: logs });

      // None lost, none run twice: every run is there once, ended, and was started once.
      expect(done.map((r) => r.id)).toEqual(ids);
      expect(done.map((r) => [r.id, r.status, r.error])).toEqual(ids.map((id) => [id, 'completed', null]));
      for (const id of ids) expect(startedLines(id), id).toBe(1);
      expect(
        readdirSync(join(dir, 'runs'))
          .filter((d) => ids.includes(d))
          .sort(),
      ).toEqual([...ids].sort());

      // Fair: in the order queued, give or take one overtaking (two labs take jobs side by side).
      const byStart = [...done].sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? ''));
      for (const [rank, r] of byStart.entries())
        expect(Math.abs(ids.indexOf(r.id) - rank), `${r.id} started ${rank + 1}th`).toBeLessThanOrEqual(1);

      // Both hosts worked; each run records which host and lab ran it.
      const onReal = done.filter((r) => r.host === REAL);
      const onFake = done.filter((r) => r.host === FAKE);
      expect(onReal.length + onFake.length).toBe(STUDENTS);
      expect(onReal.length).toBeGreaterThanOrEqual(1);
      expect(onFake.length).toBeGreaterThanOrEqual(1);
      for (const r of onFake) expect(r.hostLab).toBe('default');
      for (const r of onReal) {
        expect(r.hostLab, r.id).toBe(TEST_LAB);
        const summary = JSON.parse(readFileSync(join(dir, 'runs', r.id, 'summary.json'), 'utf8'));
        expect(summary.status).toBe('completed');
        expect(summary.verdict, r.id).toBe(r.verdict);
        expectValidButForDelayJitter(r.verdict, summary.fidelity?.reasons, `${r.id} on the real lab`);
      }
      console.log(
        `classroom: ${STUDENTS} runs in ${((Date.now() - began) / 1000).toFixed(0)} s wall, ${onReal.length} on the real lab ${TEST_LAB}, ${onFake.length} on the fake one`,
      );
      expect(Date.now() - began).toBeLessThan(300_000);
    }, 300_000);
  },
);
