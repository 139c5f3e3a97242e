// The queue as the API shows it: places and expected starts on every queued run, turns across
// owners, a board per lab that hides others' runs, instructors moving their class's runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  type Client,
  runEnded,
  SHORT_SPEC,
  type TestServer,
  testServer,
  userClient,
} from '../../test/support/testkit.js';
import type { QueueBoardView } from '../service/queueBoard.js';
import type { RunView } from '../service/types.js';
import { grafanaBaseFor } from './plugins/runs.js';

const LONG = SHORT_SPEC.replace('duration: 4s', 'duration: 60s');

let s: TestServer;
let admin: Client;
let teach: Client;
let alice: Client;
let bob: Client;
let carol: Client;

beforeAll(async () => {
  // Real time: the first run keeps the lab busy while the test looks at the queue behind it.
  s = await testServer({ fake: { timeScale: 1 } });
  admin = await adminClient(s);
  await admin.json('PUT', '/api/quotas/student', {
    concurrentRuns: 10,
    maxDurationS: 120,
    maxRateMbps: 100,
    maxFlows: 4,
  });
  teach = await userClient(s, admin, 'teach', 'instructor', 'net1');
  alice = await userClient(s, admin, 'alice', 'student', 'net1');
  bob = await userClient(s, admin, 'bob', 'student', 'net1');
  carol = await userClient(s, admin, 'carol', 'student', 'net2');
});
afterAll(async () => {
  await s.close();
});

const start = async (c: Client) => (await c.json<RunView>('POST', '/api/runs', { text: LONG })).id;
const place = async (c: Client, id: string) => (await c.json<RunView>('GET', `/api/runs/${id}`)).queue;

// Filled by the first test, in order; the later tests read them.
const ids = {} as Record<'a1' | 'a2' | 'a3' | 'b1' | 'c1', string>;

describe('the queue', () => {
  it('gives every queued run its place and expected start, taking turns across students', async () => {
    ids.a1 = await start(alice);
    ids.a2 = await start(alice);
    ids.a3 = await start(alice);
    ids.b1 = await start(bob);
    ids.c1 = await start(carol);
    expect((await alice.json<RunView>('GET', `/api/runs/${ids.a1}`)).status).toBe('running');
    expect(await place(alice, ids.a1)).toBeNull();
    // Alice has the lab; bob and carol each get a turn before her second run.
    expect(await place(bob, ids.b1)).toMatchObject({ position: 1, ahead: 1 });
    expect(await place(carol, ids.c1)).toMatchObject({ position: 2, ahead: 2 });
    expect(await place(alice, ids.a2)).toMatchObject({ position: 3, ahead: 3 });
    const a3 = await place(alice, ids.a3);
    expect(a3).toMatchObject({ position: 4, ahead: 4 });
    // Four runs of 60 s (one running) plus overhead: minutes, not seconds, and in the future.
    expect(a3?.estimatedWaitS).toBeGreaterThan(180);
    expect(Date.parse(a3?.estimatedStartAt ?? '')).toBeGreaterThan(Date.now());
    const listed = (await alice.json<{ runs: RunView[] }>('GET', '/api/runs?status=queued')).runs;
    expect(listed.map((r) => r.queue?.position).sort()).toEqual([3, 4]);
  });

  it('shows a student the whole line but only their own runs by name', async () => {
    const board = await alice.json<QueueBoardView>('GET', '/api/queue');
    expect(board.myFirstAhead).toBe(3);
    expect(board.myQueued).toBe(2);
    const line = board.labs.find((l) => l.lab === 'default');
    expect(line?.running).toMatchObject({ runId: ids.a1, mine: true, status: 'running' });
    expect(line?.waiting.map((e) => e.runId)).toEqual([null, null, ids.a2, ids.a3]);
    expect(line?.waiting.map((e) => e.owner)).toEqual([null, null, 'alice', 'alice']);
    const teachBoard = await teach.json<QueueBoardView>('GET', '/api/queue');
    expect(teachBoard.labs[0]?.waiting.map((e) => e.owner)).toEqual(['bob', null, 'alice', 'alice']);
  });

  it('lets an instructor move a class run past their class’s runs, not past other classes', async () => {
    const moved = await teach.json<RunView>('POST', `/api/runs/${ids.a3}/move`, { to: 'first' });
    expect(moved.queue).toMatchObject({ position: 1 });
    const order = async () =>
      (await admin.json<QueueBoardView>('GET', '/api/queue')).labs[0]?.waiting.map((e) => e.runId);
    expect(await order()).toEqual([ids.a3, ids.b1, ids.c1, ids.a2]);
    // b1 "later" goes past the next run teach controls (a2), so past carol's too.
    await teach.json('POST', `/api/runs/${ids.b1}/move`, { to: 'later' });
    expect(await order()).toEqual([ids.a3, ids.c1, ids.a2, ids.b1]);
    await teach.json('POST', `/api/runs/${ids.b1}/move`, { to: 'earlier' });
    expect(await order()).toEqual([ids.a3, ids.c1, ids.b1, ids.a2]);
    // Carol is not in teach's class: her run looks absent.
    expect((await teach.req('POST', `/api/runs/${ids.c1}/move`, { to: 'first' })).statusCode).toBe(404);
    // The admin controls every run.
    await admin.json('POST', `/api/runs/${ids.c1}/move`, { to: 'last' });
    expect(await order()).toEqual([ids.a3, ids.b1, ids.a2, ids.c1]);
  });

  it('refuses students, running runs and unknown targets, naming the field', async () => {
    const r = await alice.req('POST', `/api/runs/${ids.a2}/move`, { to: 'first' });
    expect(r.statusCode).toBe(403);
    const running = await teach.req('POST', `/api/runs/${ids.a1}/move`, { to: 'first' });
    expect(running.statusCode).toBe(409);
    expect(running.json().problems[0].path).toBe('id');
    const bad = await teach.req('POST', `/api/runs/${ids.a2}/move`, { to: 'top' });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json().problems)).toContain('to');
  });

  it('an instructor stops a class run that waits; the places behind it move up', async () => {
    const stopped = await teach.json<RunView>('POST', `/api/runs/${ids.b1}/stop`);
    expect(stopped).toMatchObject({ status: 'aborted', queue: null });
    expect(await place(alice, ids.a2)).toMatchObject({ position: 2, ahead: 2 });
  });
});

describe('Grafana links', () => {
  it('points a remote browser at the host it used, not at the service’s loopback', () => {
    expect(grafanaBaseFor('http://127.0.0.1:3000', 'lab.example.org')).toBe('http://lab.example.org:3000/');
    expect(grafanaBaseFor('http://localhost:3000/g', '10.0.0.5:8080')).toBe('http://10.0.0.5:3000/g');
    expect(grafanaBaseFor('http://127.0.0.1:3000', '127.0.0.1')).toBe('http://127.0.0.1:3000');
    expect(grafanaBaseFor('https://grafana.example.org', 'lab.example.org')).toBe(
      'https://grafana.example.org',
    );
  });

  it('answers 404 with the reason when the service runs without InfluxDB', async () => {
    const r = await alice.req('GET', `/api/runs/${ids.a1 ?? 'x'}/grafana`);
    expect(r.statusCode).toBe(404);
    expect(r.json().error).toMatch(/InfluxDB/);
  });
});

describe('replayed samples', () => {
  it('serves a finished run’s chart samples, thinned per series, with capacity and buffer', async () => {
    const fast = await testServer({ fake: { timeScale: 50 } });
    try {
      const a = await adminClient(fast);
      const run = await a.json<RunView>('POST', '/api/runs', { text: SHORT_SPEC });
      expect((await a.req('GET', `/api/runs/${run.id}/samples`)).statusCode).toBe(404);
      await runEnded(fast, run.id);
      const all = await a.json<{
        samples: { kind: string; t: number; flow?: string }[];
        references: { path: string; rateMbps: number; bufferPackets: number | null }[];
        recorded: number;
      }>('GET', `/api/runs/${run.id}/samples`);
      expect(new Set(all.samples.map((x) => x.kind))).toEqual(new Set(['goodput', 'tcp', 'rtt', 'queue']));
      expect(all.references).toEqual([{ path: 'main', rateMbps: 20, bufferPackets: expect.any(Number) }]);
      expect(all.references[0]?.bufferPackets).toBeGreaterThan(0);
      const thin = await a.json<typeof all>('GET', `/api/runs/${run.id}/samples?maxPerSeries=10`);
      const tcpReno = thin.samples.filter(
        (x) => x.kind === 'tcp' && x.flow === all.samples.find((y) => y.kind === 'tcp')?.flow,
      );
      expect(tcpReno.length).toBeLessThanOrEqual(10);
      expect(tcpReno.length).toBeGreaterThan(3);
      const bad = await a.req('GET', `/api/runs/${run.id}/samples?maxPerSeries=5`);
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain('from 10 to 20000');
    } finally {
      await fast.close();
    }
  });
});
