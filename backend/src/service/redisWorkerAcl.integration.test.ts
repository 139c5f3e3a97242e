// A lab host's Redis user can be confined to its queue group: the keys and channels of
// "lfnlab.<group>.*" queues and "lfnlab:host:<group>:*", nothing else. A worker working the
// group's queues as such a user takes a job the service's own user queued, a stop reaches it,
// and the user can read no other key.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findRedisServer,
  type LocalRedis,
  REDIS_INSTALL_HINT,
  startLocalRedis,
} from '../../test/support/localRedis.js';
import type { RunJob } from './queue.js';
import { RedisRunQueue } from './redisQueue.js';
import { withRedisPassword } from './redisUrl.js';

const redisBin = findRedisServer();
const dir = mkdtempSync(join(tmpdir(), 'lfnlab-redis-worker-acl-'));
let redis: LocalRedis;
const GROUP = 'class';
/** What DEPLOY.md gives a lab host's Redis user. */
const WORKER_ACL = [
  '~bull:lfnlab.class.*',
  '~lfnlab:host:class:*',
  '&lfnlab:host:class:*',
  '+@all',
  '-@admin',
];

beforeAll(async () => {
  if (!redisBin) return;
  redis = await startLocalRedis({
    dir,
    args: [
      '--user',
      'default',
      'off',
      '--user',
      'service',
      'on',
      '>svc-secret-1',
      '~*',
      '&*',
      '+@all',
      '--user',
      'labpc01',
      'on',
      '>pc-secret-1',
      ...WORKER_ACL,
    ],
  });
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const job = (runId: string): RunJob => ({
  runId,
  lab: 'default',
  owner: 'ann',
  ownerId: 'u1',
  outDir: '/nonexistent',
  specText: 'name: x',
  spec: { name: 'x' } as unknown as RunJob['spec'],
  preset: null,
  campaign: null,
});

describe.skipIf(!redisBin)(
  redisBin
    ? 'a lab host’s Redis user confined to its queue group'
    : `SKIPPED: redis-server is not installed (${REDIS_INSTALL_HINT})`,
  () => {
    it('works the group’s queues, gets stops, and reads nothing else', async () => {
      const url = (user: string, pw: string) =>
        withRedisPassword(`redis://${user}@127.0.0.1:${redis.port}`, pw);
      const service = new RedisRunQueue({
        url: url('service', 'svc-secret-1'),
        hostId: GROUP,
        oneRunPerLab: false,
      });
      const worker = new RedisRunQueue({ url: url('labpc01', 'pc-secret-1'), hostId: GROUP });
      const seen: string[] = [];
      let stopped: () => void = () => undefined;
      const stop = new Promise<void>((r) => {
        stopped = r;
      });
      try {
        await service.ready();
        await worker.ready();
        worker.process(async (j, signal) => {
          seen.push(j.runId);
          await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
          stopped();
        });
        await service.enqueue(job('run-1'));
        for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
        expect(seen).toEqual(['run-1']);
        expect(await service.cancel('run-1')).toBe('signalled');
        await stop;
        const other = new Redis(url('labpc01', 'pc-secret-1'));
        try {
          await expect(other.get('lfnlab:host:other:labs')).rejects.toThrow(/NOPERM/);
          await expect(other.get('bull:lfnlab.other.default:meta')).rejects.toThrow(/NOPERM/);
        } finally {
          other.disconnect();
        }
      } finally {
        await worker.close();
        await service.close();
      }
    }, 60_000);
  },
);
