// `lfnlab worker --labs N` on BullMQ against a real redis-server: a worker with N labs takes up to N
// jobs at once from all of its group's queues, one per local lab, never more; a job taken while its
// last lab was being taken goes back to its queue; a second worker gets what the first cannot hold.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../test/support/cliProcess.js';
import {
  findRedisServer,
  type LocalRedis,
  REDIS_INSTALL_HINT,
  startLocalRedis,
} from '../../test/support/localRedis.js';
import { poolLabNames } from '../service/labDriver.js';
import type { RunJob } from '../service/queue.js';
import { RedisRunQueue } from '../service/redisQueue.js';
import { LabSlots } from './labSlots.js';

const redisBin = findRedisServer();
const title = redisBin
  ? 'a worker’s lab pool on BullMQ (real redis-server)'
  : `a worker’s lab pool: SKIPPED, redis-server is not installed (${REDIS_INSTALL_HINT})`;

const job = (runId: string, lab: string, owner = 'u'): RunJob => ({
  runId,
  lab,
  owner,
  ownerId: `id-${owner}`,
  outDir: `/tmp/${runId}`,
  specText: 'x',
  spec: { name: runId, duration: 1000 } as unknown as RunJob['spec'],
  preset: null,
  campaign: null,
});

/** A worker process: its labs, and its jobs held until the test ends them. */
function poolWorker(url: string, hostId: string, labs: number) {
  const slots = new LabSlots(poolLabNames(labs));
  const queue = new RedisRunQueue({ url, hostId, slots, oneRunPerLab: false });
  const running = new Map<string, { lab: string; end: () => void }>();
  const ran: Array<{ runId: string; lab: string }> = [];
  let most = 0;
  queue.process(async (j, signal, lab) => {
    ran.push({ runId: j.runId, lab: lab as string });
    await new Promise<void>((end) => {
      running.set(j.runId, { lab: lab as string, end });
      most = Math.max(most, running.size);
      signal.addEventListener('abort', () => end());
    });
    running.delete(j.runId);
  });
  return { queue, slots, running, ran, most: () => most };
}

let redis: LocalRedis;
let dir: string;

describe.skipIf(!redisBin)(title, () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-labpool-'));
    redis = await startLocalRedis({ dir });
  });
  afterAll(async () => {
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs up to N jobs from several queues at once, one per local lab, and a second worker takes the rest', async () => {
    const hostId = `pool${process.pid}`;
    const service = new RedisRunQueue({ url: redis.url, hostId, oneRunPerLab: false });
    const ids = ['j1', 'j2', 'j3', 'j4', 'j5'];
    const queueLabs = ['default', 'default-2', 'default-3'];
    for (const [i, id] of ids.entries()) await service.enqueue(job(id, queueLabs[i % 3] as string, `o${i}`));
    const a = poolWorker(redis.url, hostId, 2);
    try {
      await until(async () => a.running.size === 2, 15_000);
      await until(async () => (await service.counts()).active === 2, 15_000);
      expect((await service.counts()).waiting).toBe(3);
      expect([...a.running.values()].map((r) => r.lab).sort()).toEqual(['default', 'default-2']);
      expect(a.slots.free).toBe(0);

      // A second worker with one lab takes one more; then nobody takes a fourth.
      const b = poolWorker(redis.url, hostId, 1);
      try {
        await until(async () => b.running.size === 1, 15_000);
        await until(async () => (await service.counts()).active === 3, 15_000);
        expect([...b.running.values()][0]?.lab).toBe('default');

        // Each job that ends frees its lab for the next one, on the lab that was freed.
        const [firstId, first] = [...a.running.entries()][0] as [string, { lab: string; end: () => void }];
        first.end();
        await until(async () => a.ran.length === 3, 15_000);
        expect(a.ran[2]?.lab).toBe(first.lab);
        expect(a.running.has(firstId)).toBe(false);
        // The rest run as labs free up, each job once.
        await until(async () => {
          for (const r of [...a.running.values(), ...b.running.values()]) r.end();
          return a.ran.length + b.ran.length === 5 && a.running.size + b.running.size === 0;
        }, 15_000);
        await until(async () => (await service.counts()).active === 0, 15_000);
        const all = [...a.ran, ...b.ran].map((r) => r.runId).sort();
        expect(all).toEqual(ids);
        expect(a.most()).toBe(2);
        expect(b.most()).toBe(1);
      } finally {
        await b.queue.close();
      }
    } finally {
      await a.queue.close();
      await service.close();
    }
  }, 60_000);

  it('a job taken while the last lab is busy goes back to its queue, keeps its turn, and runs when a lab frees', async () => {
    const hostId = `race${process.pid}`;
    const service = new RedisRunQueue({ url: redis.url, hostId, oneRunPerLab: false });
    // Two queues with a job each before the worker starts: both of its BullMQ workers fetch at once.
    await service.enqueue(job('r1', 'default', 'o1'));
    await service.enqueue(job('r2', 'default-2', 'o2'));
    const a = poolWorker(redis.url, hostId, 1);
    try {
      await until(async () => a.running.size === 1, 15_000);
      await until(async () => {
        const c = await service.counts();
        return c.active === 1 && c.waiting === 1;
      }, 15_000);
      const first = [...a.running.keys()][0] as string;
      const other = first === 'r1' ? 'r2' : 'r1';
      expect((await service.waitingJobs()).map((j) => j.runId)).toEqual([other]);
      a.running.get(first)?.end();
      await until(async () => a.running.has(other), 15_000);
      expect(a.ran.map((r) => r.lab)).toEqual(['default', 'default']);
      a.running.get(other)?.end();
      await until(async () => (await service.counts()).active === 0, 15_000);
      expect(a.ran.map((r) => r.runId).sort()).toEqual(['r1', 'r2']);
      expect(a.most()).toBe(1);
    } finally {
      await a.queue.close();
      await service.close();
    }
  }, 60_000);
});
