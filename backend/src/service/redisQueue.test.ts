// The BullMQ run queue against a real redis-server (started here on a free loopback port, with
// its append-only file on): order, turns across owners, stops, and what survives restarts.
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
import { InProcessQueue, type RunJob } from './queue.js';
import { RedisRunQueue } from './redisQueue.js';

const redisBin = findRedisServer();
const title = redisBin
  ? 'RedisRunQueue (BullMQ on a real redis-server)'
  : `RedisRunQueue: SKIPPED, redis-server is not installed (${REDIS_INSTALL_HINT})`;

const job = (runId: string, owner = 'u', lab = 'default'): RunJob => ({
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

/** A worker whose jobs wait for the test to end them; `started(n)` resolves at the n-th start. */
function heldWorker() {
  const started: string[] = [];
  const release = new Map<string, () => void>();
  const signals = new Map<string, AbortSignal>();
  const waiters: Array<{ n: number; done: () => void }> = [];
  const handler = async (j: RunJob, signal: AbortSignal) => {
    started.push(j.runId);
    signals.set(j.runId, signal);
    for (const w of waiters.filter((x) => started.length >= x.n)) w.done();
    await new Promise<void>((r) => {
      release.set(j.runId, r);
      signal.addEventListener('abort', () => r());
    });
  };
  const started$ = (n: number) =>
    new Promise<void>((done) => (started.length >= n ? done() : waiters.push({ n, done })));
  const end = (runId: string) => release.get(runId)?.();
  return { started, signals, handler, startedCount: started$, end };
}

let redis: LocalRedis;
let dir: string;
let hostSeq = 0;
const host = () => `test${process.pid}-${++hostSeq}`;

describe.skipIf(!redisBin)(title, () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-redis-'));
    redis = await startLocalRedis({ dir });
  });
  afterAll(async () => {
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs one job per lab at a time, labs in parallel, and hands the worker a JSON copy', async () => {
    const q = new RedisRunQueue({ url: redis.url, hostId: host() });
    const w = heldWorker();
    q.process(w.handler);
    const a1 = job('a1');
    await q.enqueue(a1);
    await q.enqueue(job('a2'));
    await q.enqueue(job('b1', 'u', 'other'));
    await w.startedCount(2);
    expect(w.started.sort()).toEqual(['a1', 'b1']);
    expect(await q.counts()).toEqual({ waiting: 1, active: 2 });
    expect([...(await q.activeLabs())].sort()).toEqual(['default', 'other']);
    expect((await q.runningJobs()).find((j) => j.runId === 'a1')).toEqual(a1);
    w.end('a1');
    await w.startedCount(3);
    expect(w.started[2]).toBe('a2');
    w.end('a2');
    w.end('b1');
    await q.close();
  });

  it('orders waiting jobs by turns across three owners, exactly as the in-process queue does', async () => {
    const q = new RedisRunQueue({ url: redis.url, hostId: host() });
    const mem = new InProcessQueue();
    // A seeded shuffle of 4 runs each for alice, bob and carol, as they might arrive.
    const arrivals: RunJob[] = [];
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const left = { alice: 4, bob: 4, carol: 4 };
    while (Object.values(left).some((n) => n > 0)) {
      const owners = (Object.keys(left) as (keyof typeof left)[]).filter((o) => left[o] > 0);
      const o = owners[Math.floor(rnd() * owners.length)] as keyof typeof left;
      arrivals.push(job(`${o[0]}${5 - left[o]}`, o));
      left[o]--;
    }
    for (const j of arrivals) {
      await q.enqueue(j);
      await mem.enqueue(j);
    }
    const order = (await q.waitingJobs()).map((j) => j.runId);
    expect(order).toEqual((await mem.waitingJobs()).map((j) => j.runId));
    // Round-robin: every owner's k-th run before anyone's (k+1)-th.
    const turns = order.map((id) => Number(id.slice(1)));
    expect(turns).toEqual([...turns].sort((a, b) => a - b));
    const w = heldWorker();
    q.process(w.handler);
    for (let i = 1; i <= order.length; i++) {
      await w.startedCount(i);
      w.end(w.started[i - 1] as string);
    }
    expect(w.started).toEqual(order);
    await q.close();
    await mem.close();
  });

  it('puts a campaign behind other students while its first run holds the lab', async () => {
    const q = new RedisRunQueue({ url: redis.url, hostId: host() });
    const w = heldWorker();
    q.process(w.handler);
    await q.enqueue(job('a1', 'alice'));
    await w.startedCount(1);
    for (const id of ['a2', 'a3', 'a4', 'a5']) await q.enqueue(job(id, 'alice'));
    await q.enqueue(job('b1', 'bob'));
    await q.enqueue(job('c1', 'carol'));
    await q.enqueue(job('b2', 'bob'));
    const expected = ['b1', 'c1', 'a2', 'b2', 'a3', 'a4', 'a5'];
    expect((await q.waitingJobs()).map((j) => j.runId)).toEqual(expected);
    for (let i = 0; i < expected.length; i++) {
      w.end(w.started[i] as string);
      await w.startedCount(i + 2);
    }
    w.end('a5');
    expect(w.started).toEqual(['a1', ...expected]);
    await q.close();
  });

  it('keeps each turn from its arrival: a newcomer goes before a second run of the owner now in the lab', async () => {
    const q = new RedisRunQueue({ url: redis.url, hostId: host() });
    const w = heldWorker();
    q.process(w.handler);
    await q.enqueue(job('a1', 'alice'));
    await w.startedCount(1);
    await q.enqueue(job('b1', 'bob'));
    await q.enqueue(job('b2', 'bob'));
    await q.enqueue(job('a2', 'alice'));
    expect((await q.waitingJobs()).map((j) => j.runId)).toEqual(['b1', 'b2', 'a2']);
    w.end('a1');
    await w.startedCount(2);
    await q.enqueue(job('c1', 'carol'));
    // Carol's first turn before bob's second (bob is in the lab). The in-process queue recounts
    // turns from the jobs still there and puts c1 last here: ['b2', 'a2', 'c1'].
    expect((await q.waitingJobs()).map((j) => j.runId)).toEqual(['c1', 'b2', 'a2']);
    for (let i = 2; i <= 4; i++) {
      w.end(w.started[i - 1] as string);
      await w.startedCount(i + 1);
    }
    w.end('a2');
    expect(w.started).toEqual(['a1', 'b1', 'c1', 'b2', 'a2']);
    await q.close();
  });

  it('runs one job per lab at a time even with two workers on the same host queues', async () => {
    const hostId = host();
    const one = new RedisRunQueue({ url: redis.url, hostId });
    const two = new RedisRunQueue({ url: redis.url, hostId });
    let inLab = 0;
    let most = 0;
    const w = heldWorker();
    const counted = async (j: RunJob, signal: AbortSignal) => {
      inLab++;
      most = Math.max(most, inLab);
      try {
        await w.handler(j, signal);
      } finally {
        inLab--;
      }
    };
    one.process(counted);
    two.process(counted);
    for (const id of ['j1', 'j2', 'j3']) await one.enqueue(job(id, `o-${id}`));
    for (let i = 1; i <= 3; i++) {
      await w.startedCount(i);
      // The next job waits in Redis while this one holds the lab.
      expect((await one.counts()).active).toBe(1);
      w.end(w.started[i - 1] as string);
    }
    expect(w.started).toEqual(['j1', 'j2', 'j3']);
    expect(most).toBe(1);
    await one.close();
    await two.close();
  });

  it('gives a cancelled waiting run its turn back, as the in-process queue does', async () => {
    const q = new RedisRunQueue({ url: redis.url, hostId: host() });
    const mem = new InProcessQueue();
    const both = async (f: (x: InProcessQueue | RedisRunQueue) => Promise<unknown>) => {
      await f(q);
      await f(mem);
    };
    for (const [id, o] of [
      ['a1', 'alice'],
      ['a2', 'alice'],
      ['a3', 'alice'],
      ['b1', 'bob'],
      ['b2', 'bob'],
    ] as const)
      await both((x) => x.enqueue(job(id, o)));
    expect((await q.waitingJobs()).map((j) => j.runId)).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
    await both((x) => x.cancel('a1'));
    await both((x) => x.enqueue(job('c1', 'carol')));
    // a2 is alice's first waiting run now: carol's first goes after it, not before.
    const order = (await q.waitingJobs()).map((j) => j.runId);
    expect(order).toEqual(['b1', 'a2', 'c1', 'b2', 'a3']);
    expect(order).toEqual((await mem.waitingJobs()).map((j) => j.runId));
    await q.close();
    await mem.close();
  });

  it('removes a waiting job on cancel; it never runs; unknown ids say so', async () => {
    const q = new RedisRunQueue({ url: redis.url, hostId: host() });
    const w = heldWorker();
    q.process(w.handler);
    await q.enqueue(job('r'));
    await w.startedCount(1);
    await q.enqueue(job('w1'));
    await q.enqueue(job('w2'));
    expect(await q.cancel('w1')).toBe('removed');
    expect(await q.cancel('nothing')).toBe('unknown');
    expect((await q.waitingJobs()).map((j) => j.runId)).toEqual(['w2']);
    w.end('r');
    await w.startedCount(2);
    w.end('w2');
    expect(w.started).toEqual(['r', 'w2']);
    await q.close();
  });

  it('a stop reaches the worker holding the job, in another queue object on its own connection', async () => {
    const hostId = host();
    const service = new RedisRunQueue({ url: redis.url, hostId });
    const labHost = new RedisRunQueue({ url: redis.url, hostId });
    const w = heldWorker();
    labHost.process(w.handler);
    await service.enqueue(job('long'));
    await w.startedCount(1);
    expect((await service.runningJobs()).map((j) => j.runId)).toEqual(['long']);
    const aborted = new Promise<void>((r) => w.signals.get('long')?.addEventListener('abort', () => r()));
    expect(await service.cancel('long')).toBe('signalled');
    await aborted;
    expect(w.signals.get('long')?.aborted).toBe(true);
    await labHost.close();
    expect(await service.counts()).toEqual({ waiting: 0, active: 0 });
    await service.close();
  });

  it('keeps waiting jobs, in order, when the queue object is closed and made again', async () => {
    const hostId = host();
    const first = new RedisRunQueue({ url: redis.url, hostId });
    for (const [id, o] of [
      ['a1', 'alice'],
      ['a2', 'alice'],
      ['b1', 'bob'],
    ] as const)
      await first.enqueue(job(id, o, 'lab2'));
    await first.close();
    const again = new RedisRunQueue({ url: redis.url, hostId });
    expect((await again.waitingJobs()).map((j) => j.runId)).toEqual(['a1', 'b1', 'a2']);
    // A restarted service queues its queued runs again: nothing is added twice.
    await again.enqueue(job('b1', 'bob', 'lab2'));
    expect((await again.counts()).waiting).toBe(3);
    const w = heldWorker();
    again.process(w.handler);
    for (let i = 1; i <= 3; i++) {
      await w.startedCount(i);
      w.end(w.started[i - 1] as string);
    }
    expect(w.started).toEqual(['a1', 'b1', 'a2']);
    await again.close();
  });

  it('keeps waiting jobs through a SIGKILL of redis-server and its restart (append-only file)', async () => {
    const own = mkdtempSync(join(tmpdir(), 'lfnlab-redis-kill-'));
    let r = await startLocalRedis({ dir: own });
    try {
      const hostId = host();
      const before = new RedisRunQueue({ url: r.url, hostId });
      for (const [id, o] of [
        ['a1', 'alice'],
        ['a2', 'alice'],
        ['b1', 'bob'],
        ['c1', 'carol'],
      ] as const)
        await before.enqueue(job(id, o));
      await r.kill();
      r = await startLocalRedis({ dir: own, port: r.port });
      // The same object reconnects by itself; a new one reads the same line.
      expect((await before.waitingJobs()).map((j) => j.runId)).toEqual(['a1', 'b1', 'c1', 'a2']);
      await before.close();
      const after = new RedisRunQueue({ url: r.url, hostId });
      const w = heldWorker();
      after.process(w.handler);
      for (let i = 1; i <= 4; i++) {
        await w.startedCount(i);
        w.end(w.started[i - 1] as string);
      }
      expect(w.started).toEqual(['a1', 'b1', 'c1', 'a2']);
      await after.close();
    } finally {
      await r.stop();
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('a working queue rides out a SIGKILL of redis-server: the job in the lab ends, the waiting ones run', async () => {
    const own = mkdtempSync(join(tmpdir(), 'lfnlab-redis-kill-'));
    let r = await startLocalRedis({ dir: own });
    const q = new RedisRunQueue({ url: r.url, hostId: host() });
    try {
      const w = heldWorker();
      q.process(w.handler);
      await q.enqueue(job('a1', 'alice'));
      await w.startedCount(1);
      await q.enqueue(job('a2', 'alice'));
      await q.enqueue(job('b1', 'bob'));
      await r.kill();
      r = await startLocalRedis({ dir: own, port: r.port });
      w.end('a1');
      await w.startedCount(2);
      w.end(w.started[1] as string);
      await w.startedCount(3);
      w.end(w.started[2] as string);
      expect(w.started).toEqual(['a1', 'b1', 'a2']);
    } finally {
      await q.close();
      await r.stop();
      rmSync(own, { recursive: true, force: true });
    }
  }, 60_000);

  it('moves a waiting job before another of its lab or to the end; refuses other labs and running jobs', async () => {
    const q = new RedisRunQueue({ url: redis.url, hostId: host() });
    const w = heldWorker();
    q.process(w.handler);
    await q.enqueue(job('r'));
    await w.startedCount(1);
    for (const id of ['w1', 'w2', 'w3']) await q.enqueue(job(id, `o-${id}`));
    await q.enqueue(job('x1', 'u', 'other'));
    await w.startedCount(2);
    await q.enqueue(job('x2', 'u', 'other'));
    const order = async () => (await q.waitingJobs()).filter((j) => j.lab === 'default').map((j) => j.runId);
    expect(await order()).toEqual(['w1', 'w2', 'w3']);
    expect(await q.move('w3', 'w2')).toBe(true);
    expect(await order()).toEqual(['w1', 'w3', 'w2']);
    expect(await q.move('w2', 'w1')).toBe(true);
    expect(await order()).toEqual(['w2', 'w1', 'w3']);
    expect(await q.move('w2', null)).toBe(true);
    expect(await order()).toEqual(['w1', 'w3', 'w2']);
    expect(await q.move('w1', 'x2')).toBe(false);
    expect(await q.move('r', 'w1')).toBe(false);
    // A later arrival is still placed by its owner's turn.
    await q.enqueue(job('n1', 'newcomer'));
    expect(await order()).toEqual(['w1', 'w3', 'w2', 'n1']);
    await q.close();
  });
});
