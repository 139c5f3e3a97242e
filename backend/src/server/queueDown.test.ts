// With --queue on a Redis that does not answer, starting a run fails at once with 503 and the run's
// record says why (no redis-server is needed: nothing listens on the port asked for).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  type Client,
  SHORT_SPEC,
  type TestServer,
  testServer,
} from '../../test/support/testkit.js';
import { RedisRunQueue } from '../service/redisQueue.js';

let s: TestServer;
let admin: Client;

beforeAll(async () => {
  // Port 1 (tcpmux) is never served here: a free port picked now could be taken by another test's
  // server meanwhile, which then answers in something that is not Redis.
  s = await testServer({ queue: new RedisRunQueue({ url: 'redis://127.0.0.1:1', hostId: 'down' }) });
  admin = await adminClient(s);
});
afterAll(async () => {
  await s.close();
});

describe('a Redis queue that is away', () => {
  it('refuses a new run with 503 and records it as failed, naming the queue', async () => {
    const r = await admin.req('POST', '/api/runs', { text: SHORT_SPEC });
    expect(r.statusCode).toBe(503);
    const error = (r.json() as { error: string }).error;
    expect(error).toMatch(/could not be queued/);
    const id = /run (\S+) could not/.exec(error)?.[1] as string;
    const run = await admin.json<{ status: string; error: string; partial: boolean }>(
      'GET',
      `/api/runs/${id}`,
    );
    expect(run).toMatchObject({ status: 'failed', partial: false });
    expect(run.error).toMatch(/could not be queued: the queue on Redis at redis:\/\/127.0.0.1:1 failed/);
  }, 20_000);

  it('answers the queue board with 503 naming the queue, and still lists runs from their records', async () => {
    const board = await admin.req('GET', '/api/queue');
    expect(board.statusCode).toBe(503);
    expect((board.json() as { error: string }).error).toMatch(/the run queue does not answer/);
    const runs = await admin.req('GET', '/api/runs');
    expect(runs.statusCode).toBe(200);
  }, 30_000);
});
