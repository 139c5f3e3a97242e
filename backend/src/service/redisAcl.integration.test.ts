// The Redis queue against a real redis-server that only lets an ACL user in (the default user
// off): the right password from the URL works, a wrong one fails with a message that names the
// address and never the password.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findRedisServer,
  type LocalRedis,
  REDIS_INSTALL_HINT,
  startLocalRedis,
} from '../../test/support/localRedis.js';
import { RedisRunQueue } from './redisQueue.js';
import { withRedisPassword } from './redisUrl.js';

const redisBin = findRedisServer();
const dir = mkdtempSync(join(tmpdir(), 'lfnlab-redis-acl-'));
let redis: LocalRedis;

beforeAll(async () => {
  if (!redisBin) return;
  redis = await startLocalRedis({
    dir,
    args: ['--user', 'default', 'off', '--user', 'lfnlab', 'on', '>lab-secret-1', '~*', '&*', '+@all'],
  });
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!redisBin)(
  redisBin
    ? 'the Redis queue as an ACL user'
    : `SKIPPED: redis-server is not installed (${REDIS_INSTALL_HINT})`,
  () => {
    it('connects with the password from the environment and counts an empty queue', async () => {
      const url = withRedisPassword(`redis://lfnlab@127.0.0.1:${redis.port}`, 'lab-secret-1');
      const q = new RedisRunQueue({ url, hostId: 'acl' });
      try {
        await q.ready();
        expect(await q.waitingJobs()).toEqual([]);
      } finally {
        await q.close();
      }
    });

    it('refuses a wrong password, naming the address with the password hidden', async () => {
      const q = new RedisRunQueue({ url: `redis://lfnlab:not-it-9@127.0.0.1:${redis.port}`, hostId: 'acl' });
      try {
        const err = await q.ready(5_000).then(
          () => null,
          (e: Error) => e,
        );
        expect(err?.message).toMatch(new RegExp(`Redis at redis://lfnlab:\\*\\*\\*@127.0.0.1:${redis.port}`));
        expect(err?.message).not.toContain('not-it-9');
      } finally {
        await q.close();
      }
    });
  },
);
