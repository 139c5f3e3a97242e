// The service's side of `lfnlab worker` through inject(): worker tokens open /api/worker/* and
// nothing else; a run starts once; batches are taken in order (a repeat acknowledged again, a gap
// refused); uploads are kept only when their SHA-256 matches and stay inside the run directory;
// a silent worker leaves its run failed and partial with what arrived; a service killed while
// applying a batch applies it once after its restart; heartbeats list workers in GET /api/health.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  type Client,
  runEnded,
  SHORT_SPEC,
  type TestServer,
  testServer,
  tokenClient,
} from '../../test/support/testkit.js';
import type { Run } from '../service/types.js';

let s: TestServer;
let admin: Client;
let pc1: Client;
let pc2: Client;

const sha = (b: string) => createHash('sha256').update(b).digest('hex');
const queue = async () => (await admin.json<Run>('POST', '/api/runs', { text: SHORT_SPEC })).id;
const put = (c: Client, id: string, path: string, body: string, hash = sha(body)) =>
  c.req('PUT', `/api/worker/runs/${id}/files?${new URLSearchParams({ path, sha256: hash })}`, body, {
    'content-type': 'application/octet-stream',
  });
const tcp = (t: number) => ({ kind: 'tcp', t, flow: 'f0', cwndPackets: 10 });

beforeAll(async () => {
  s = await testServer({ labsOnWorkers: true, workerSilenceMs: 1500 });
  admin = await adminClient(s);
  const t1 = await admin.json<{ token: string }>('POST', '/api/worker-tokens', { host: 'pc1' });
  const t2 = await admin.json<{ token: string }>('POST', '/api/worker-tokens', { host: 'pc2' });
  pc1 = tokenClient(s, 'pc1', t1.token);
  pc2 = tokenClient(s, 'pc2', t2.token);
});
afterAll(async () => {
  await s.close();
});

describe('worker tokens', () => {
  it('open /api/worker/* only; user credentials do not open it; secrets are never listed', async () => {
    expect((await pc1.req('GET', '/api/runs')).statusCode).toBe(401);
    expect((await pc1.req('GET', '/api/worker-tokens')).statusCode).toBe(401);
    expect((await pc1.json('GET', '/api/worker/hello')) as object).toEqual({ host: 'pc1' });
    expect((await admin.req('GET', '/api/worker/hello')).statusCode).toBe(401);
    const list = await admin.json<Array<Record<string, unknown>>>('GET', '/api/worker-tokens');
    expect(list.map((t) => t.host)).toEqual(['pc1', 'pc2']);
    expect(JSON.stringify(list)).not.toMatch(/lfnw_|hash/);
    const stored = readFileSync(join(s.dirs.data, 'worker-tokens.json'), 'utf8');
    expect(stored).not.toContain(pc1.token as string);
  });

  it('a revoked token is refused', async () => {
    const made = await admin.json<{ id: string; token: string }>('POST', '/api/worker-tokens', {
      host: 'gone',
    });
    const gone = tokenClient(s, 'gone', made.token);
    expect((await gone.req('GET', '/api/worker/hello')).statusCode).toBe(200);
    await admin.json('DELETE', `/api/worker-tokens/${made.id}`);
    expect((await gone.req('GET', '/api/worker/hello')).statusCode).toBe(401);
  });

  it('a host name that is not one is refused, naming the field', async () => {
    const r = await admin.req('POST', '/api/worker-tokens', { host: 'a b' });
    expect(r.statusCode).toBe(400);
    expect(r.json().problems[0].path).toBe('host');
  });
});

describe('a run on a worker', () => {
  it('starts once, takes batches in order, keeps verified files, and ends as the worker says', async () => {
    const id = await queue();
    // The service runs nothing itself with labsOnWorkers.
    expect((await admin.json<Run>('GET', `/api/runs/${id}`)).status).toBe('queued');
    expect((await pc1.req('POST', `/api/worker/runs/${id}/start`, { lab: 'other' })).statusCode).toBe(409);
    const started = await pc1.json<Run>('POST', `/api/worker/runs/${id}/start`, { lab: 'default' });
    expect(started).toMatchObject({ status: 'running', host: 'pc1' });
    expect((await pc2.req('POST', `/api/worker/runs/${id}/start`, { lab: 'default' })).statusCode).toBe(409);
    expect(
      (await pc2.req('POST', `/api/worker/runs/${id}/batches`, { seq: 1, samples: [], events: [] }))
        .statusCode,
    ).toBe(409);

    const live: string[] = [];
    s.services.hub.open(id).subscribe((m) => {
      live.push(m.type === 'event' ? `event:${m.event}` : m.type);
    });
    const b1 = {
      seq: 1,
      samples: [tcp(0.5), tcp(1.5)],
      events: [{ type: 'traffic', detail: { t0: 0 }, after: 0 }],
    };
    expect(await pc1.json('POST', `/api/worker/runs/${id}/batches`, b1)).toEqual({ ack: 1 });
    expect(await pc1.json('POST', `/api/worker/runs/${id}/batches`, b1)).toEqual({ ack: 1 });
    const gap = await pc1.req('POST', `/api/worker/runs/${id}/batches`, { seq: 3, samples: [], events: [] });
    expect(gap.statusCode).toBe(409);
    expect(gap.json().problems[0]).toEqual({
      path: 'seq',
      message: 'must be 2 (or an earlier one, sent again)',
    });
    expect(
      await pc1.json('POST', `/api/worker/runs/${id}/batches`, { seq: 2, samples: [tcp(2.5)], events: [] }),
    ).toEqual({ ack: 2 });
    // The live view gets them as from a local run: the traffic start, samples, progress.
    expect(live).toEqual(expect.arrayContaining(['event:started', 'sample', 'progress']));
    const dir = join(s.dirs.runs, id);
    expect(readFileSync(join(dir, 'samples/tcp.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3);
    expect((await admin.json<Run>('GET', `/api/runs/${id}`)).progress.elapsedS).toBe(2);

    const wrong = await put(pc1, id, 'raw/x.txt', 'hello', sha('other'));
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().problems[0].path).toBe('sha256');
    expect(existsSync(join(dir, 'raw/x.txt'))).toBe(false);
    for (const path of ['../escape', 'a/../../b', '/etc/passwd', 'service.json', '.hidden'])
      expect((await put(pc1, id, path, 'x')).statusCode, path).toBe(400);
    const json = await pc1.req('PUT', `/api/worker/runs/${id}/files?path=x&sha256=${sha('{}')}`, {});
    expect(json.statusCode).toBe(415);
    expect((await put(pc1, id, 'raw/x.txt', 'hello')).json()).toEqual({ path: 'raw/x.txt', bytes: 5 });
    expect(readFileSync(join(dir, 'raw/x.txt'), 'utf8')).toBe('hello');

    const done = await pc1.json<Run>('POST', `/api/worker/runs/${id}/finished`, {
      status: 'failed',
      error: 'lab fell over',
    });
    expect(done).toMatchObject({ status: 'failed', partial: true, error: 'lab fell over', host: 'pc1' });
    expect(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'))).toMatchObject({ status: 'failed' });
    expect(
      (await pc1.req('POST', `/api/worker/runs/${id}/batches`, { seq: 3, samples: [], events: [] }))
        .statusCode,
    ).toBe(409);
    expect((await pc1.req('POST', `/api/worker/runs/${id}/start`, { lab: 'default' })).statusCode).toBe(409);
  });

  it('completed without a summary.json is recorded as failed', async () => {
    const id = await queue();
    await pc1.json('POST', `/api/worker/runs/${id}/start`, { lab: 'default' });
    const r = await pc1.json<Run>('POST', `/api/worker/runs/${id}/finished`, {
      status: 'completed',
      error: null,
    });
    expect(r.status).toBe('failed');
    expect(r.error).toMatch(/no summary.json/);
  });

  it('a worker that falls silent leaves its run failed and partial, with the samples that arrived', async () => {
    const id = await queue();
    await pc2.json('POST', `/api/worker/runs/${id}/start`, { lab: 'default' });
    await pc2.json('POST', `/api/worker/runs/${id}/batches`, { seq: 1, samples: [tcp(0.5)], events: [] });
    const r = await runEnded(s, id);
    expect(r).toMatchObject({ status: 'failed', partial: true, host: 'pc2' });
    expect(r.error).toMatch(/worker host pc2 stopped reporting/);
    expect(readFileSync(join(s.dirs.runs, id, 'samples/tcp.jsonl'), 'utf8')).toContain('"t":0.5');
  });

  it('a queued run whose job left the queue (its worker died before starting it) is queued again', async () => {
    const id = await queue();
    expect(await s.services.queue.cancel(id)).toBe('removed');
    expect(await s.services.runs.requeueLost(0)).toEqual([id]);
    expect((await s.services.queue.waitingJobs()).map((j) => j.runId)).toContain(id);
    // Held by the queue now: nothing more to do.
    expect(await s.services.runs.requeueLost(0)).toEqual([]);
  });

  it('a stop the queue cannot pass on to a worker ends the run aborted; the worker then gets 409', async () => {
    // The in-process queue here never hands the job out, so the stop finds it still waiting.
    const id = await queue();
    await pc2.json('POST', `/api/worker/runs/${id}/start`, { lab: 'default' });
    await admin.json('POST', `/api/runs/${id}/stop`);
    const r = await admin.json<Run>('GET', `/api/runs/${id}`);
    expect(r).toMatchObject({ status: 'aborted', partial: true, error: 'stopped by admin' });
    const late = await pc2.req('POST', `/api/worker/runs/${id}/batches`, { seq: 1, samples: [], events: [] });
    expect(late.statusCode).toBe(409);
    expect((await admin.json<Run>('GET', `/api/runs/${id}`)).status).toBe('aborted');
  });

  it('a service that runs its own labs lets no worker start a run', async () => {
    const own = await testServer();
    try {
      const a = await adminClient(own);
      const t = await a.json<{ token: string }>('POST', '/api/worker-tokens', { host: 'pc9' });
      const id = (await a.json<Run>('POST', '/api/runs', { text: SHORT_SPEC })).id;
      const r = await tokenClient(own, 'pc9', t.token).req('POST', `/api/worker/runs/${id}/start`, {
        lab: 'default',
      });
      expect(r.statusCode).toBe(409);
      expect(r.json().error).toMatch(/--workers/);
    } finally {
      await own.close();
    }
  });

  it('a service killed while applying a batch cuts it back when it restarts, so the batch sent again is applied once', async () => {
    const first = await testServer({ labsOnWorkers: true, workerSilenceMs: 60_000 });
    let second: TestServer | null = null;
    try {
      const a = await adminClient(first);
      const t = await a.json<{ token: string }>('POST', '/api/worker-tokens', { host: 'pc7' });
      const id = (await a.json<Run>('POST', '/api/runs', { text: SHORT_SPEC })).id;
      const w = tokenClient(first, 'pc7', t.token);
      const started = await w.json<Run>('POST', `/api/worker/runs/${id}/start`, {
        lab: 'default',
        workerLab: 'default-2',
      });
      expect(started).toMatchObject({ host: 'pc7', hostLab: 'default-2' });
      for (const [seq, t0] of [
        [1, 0.5],
        [2, 1.5],
      ] as const)
        await w.json('POST', `/api/worker/runs/${id}/batches`, { seq, samples: [tcp(t0)], events: [] });
      const dir = join(first.dirs.runs, id);
      // What the service has, hashed: the worker skips uploading files that match.
      const files = await w.json<Array<{ path: string; sha256: string }>>(
        'GET',
        `/api/worker/runs/${id}/files`,
      );
      const streamed = readFileSync(join(dir, 'samples/tcp.jsonl'), 'utf8');
      expect(files).toContainEqual(
        expect.objectContaining({ path: 'samples/tcp.jsonl', sha256: sha(streamed) }),
      );
      expect(files.map((f) => f.path)).not.toContain('service.json');
      // Killed half-way through batch 3: its line is written, its position not.
      appendFileSync(join(dir, 'samples/tcp.jsonl'), `${JSON.stringify(tcp(2.5))}\n`);
      await first.close();

      second = await testServer({ labsOnWorkers: true, workerSilenceMs: 60_000, dirs: first.dirs });
      const again = tokenClient(second, 'pc7', t.token);
      expect(readFileSync(join(dir, 'samples/tcp.jsonl'), 'utf8')).toBe(streamed);
      expect(
        await again.json('POST', `/api/worker/runs/${id}/batches`, {
          seq: 2,
          samples: [tcp(1.5)],
          events: [],
        }),
      ).toEqual({
        ack: 2,
      });
      expect(
        await again.json('POST', `/api/worker/runs/${id}/batches`, {
          seq: 3,
          samples: [tcp(2.5)],
          events: [],
        }),
      ).toEqual({
        ack: 3,
      });
      const ts = readFileSync(join(dir, 'samples/tcp.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).t);
      expect(ts).toEqual([0.5, 1.5, 2.5]);
    } finally {
      await second?.close();
    }
  });

  it('a worker’s heartbeat lists it in GET /api/health; run ids only for an admin; leaving drops it', async () => {
    const beat = (leaving = false) =>
      pc1.json('POST', '/api/worker/heartbeat', {
        instance: 'abc123',
        machine: 'labpc01.lan',
        version: '0.1.0',
        labs: [
          { name: 'default', runId: 'r-1' },
          { name: 'default-2', runId: null },
        ],
        leaving,
      });
    await beat();
    const open = (await s.app.inject({ method: 'GET', url: '/api/health' })).json();
    expect(open.workers).toEqual([
      expect.objectContaining({
        name: 'pc1',
        host: 'labpc01.lan',
        state: 'busy',
        labs: [
          { name: 'default', state: 'busy' },
          { name: 'default-2', state: 'idle' },
        ],
      }),
    ]);
    const asAdmin = await admin.json<{ workers: Array<{ labs: Array<{ runId?: string | null }> }> }>(
      'GET',
      '/api/health',
    );
    expect(asAdmin.workers[0]?.labs.map((l) => l.runId)).toEqual(['r-1', null]);
    const bad = await pc1.req('POST', '/api/worker/heartbeat', {
      instance: 'x y',
      machine: 'm',
      version: 'v',
      labs: [],
    });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .problems.map((p: { path: string }) => p.path)
        .sort(),
    ).toEqual(['instance', 'labs']);
    expect((await admin.req('POST', '/api/worker/heartbeat', {})).statusCode).toBe(401);
    await beat(true);
    expect((await s.app.inject({ method: 'GET', url: '/api/health' })).json().workers).toEqual([]);
  });
});
