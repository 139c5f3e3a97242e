import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  adminClient,
  type Client,
  runEnded,
  SHORT_SPEC,
  type TestServer,
  testServer,
} from '../../test/support/testkit.js';
import type { LiveMessage } from '../service/liveHub.js';
import type { Run } from '../service/types.js';

let s: TestServer;
let admin: Client;
let base: string;

beforeAll(async () => {
  s = await testServer({ fake: { timeScale: 4 } });
  admin = await adminClient(s);
  base = (await s.app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws');
});
afterAll(async () => {
  await s.close();
});

interface Session {
  messages: LiveMessage[];
  closed: Promise<number>;
  ws: WebSocket;
  /** Resolves once a message satisfies `pred`. */
  until(pred: (m: LiveMessage) => boolean): Promise<LiveMessage>;
}

function watch(id: string, query = ''): Session {
  const ws = new WebSocket(`${base}/api/runs/${id}/live${query}`, {
    headers: { cookie: `lfn_session=${admin.cookie}` },
  });
  const messages: LiveMessage[] = [];
  const waiters: Array<{ pred: (m: LiveMessage) => boolean; resolve: (m: LiveMessage) => void }> = [];
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as LiveMessage;
    messages.push(m);
    for (const w of [...waiters])
      if (w.pred(m)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  return {
    messages,
    closed,
    ws,
    until: (pred) => {
      const hit = messages.find(pred);
      return hit ? Promise.resolve(hit) : new Promise((resolve) => waiters.push({ pred, resolve }));
    },
  };
}

const isEvent = (name: string) => (m: LiveMessage) => m.type === 'event' && m.event === name;
const seqs = (ms: LiveMessage[]) => ms.map((m) => m.seq);
const increasing = (xs: number[]) => xs.every((x, i) => i === 0 || x > (xs[i - 1] as number));

describe('live WebSocket', () => {
  it('streams samples, events and progress, downsampled, ending with verdict and done', async () => {
    const spec = SHORT_SPEC.replace('4s', '6s').replace('name: short', 'name: short\nsampleHz: 50');
    const run = await admin.json<Run>('POST', '/api/runs', { text: spec });
    const w = watch(run.id, '?maxHz=5');
    await w.until(isEvent('done'));
    expect(await w.closed).toBe(1000);
    const types = new Set(w.messages.map((m) => (m.type === 'event' ? m.event : m.type)));
    for (const t of [
      'queued',
      'started',
      'flow-started',
      'flow-ended',
      'sample',
      'progress',
      'caught-up',
      'verdict',
      'done',
    ])
      expect(types, t).toContain(t);
    expect(increasing(seqs(w.messages))).toBe(true);
    // 50 Hz sampled, at most 5 points per second per series reach the browser.
    const reno = w.messages.filter(
      (m) => m.type === 'sample' && m.sample.kind === 'tcp' && m.sample.flow === 'reno-1',
    );
    expect(reno.length).toBeGreaterThanOrEqual(25);
    expect(reno.length).toBeLessThanOrEqual(6 * 5 + 1);
    const progress = w.messages.filter((m) => m.type === 'progress');
    expect(progress.at(-1)).toMatchObject({ elapsedS: 6, totalS: 6 });
    const verdict = w.messages.find(isEvent('verdict'));
    expect(verdict).toMatchObject({ data: { status: 'completed', verdict: 'valid' } });
  });

  it('gives a late joiner the catch-up window, then caught-up, then live messages', async () => {
    const run = await admin.json<Run>('POST', '/api/runs', { text: SHORT_SPEC.replace('4s', '8s') });
    const early = watch(run.id);
    await early.until((m) => m.type === 'progress' && m.elapsedS >= 2);
    const late = watch(run.id);
    const caught = await late.until((m) => m.type === 'caught-up');
    const before = late.messages.slice(0, late.messages.indexOf(caught));
    // The window holds what happened before the late joiner came: the queued and started events, samples of t < 2 s.
    expect(before.some(isEvent('queued'))).toBe(true);
    expect(before.some((m) => m.type === 'sample' && m.sample.t < 1)).toBe(true);
    await late.until(isEvent('done'));
    const after = late.messages.slice(late.messages.indexOf(caught) + 1);
    expect(after.some((m) => m.type === 'sample')).toBe(true);
    expect(increasing(seqs(late.messages))).toBe(true);
    // Everyone sees the same messages with the same numbers.
    await early.until(isEvent('done'));
    const strip = (ms: LiveMessage[]) =>
      ms.filter((m) => m.type !== 'caught-up').map((m) => JSON.stringify(m));
    expect(strip(late.messages)).toEqual(strip(early.messages));
  });

  it('resumes from a cursor after a dropped socket, losing nothing', async () => {
    const run = await admin.json<Run>('POST', '/api/runs', { text: SHORT_SPEC.replace('4s', '8s') });
    const whole = watch(run.id);
    const first = watch(run.id);
    await first.until((m) => m.type === 'progress' && m.elapsedS >= 2);
    first.ws.terminate();
    await first.closed;
    const cursor = Math.max(...first.messages.filter((m) => m.type !== 'caught-up').map((m) => m.seq));
    const second = watch(run.id, `?cursor=${cursor}`);
    await second.until(isEvent('done'));
    await whole.until(isEvent('done'));
    expect(second.messages.every((m) => m.seq > cursor)).toBe(true);
    const data = (ms: LiveMessage[]) => ms.filter((m) => m.type !== 'caught-up').map((m) => m.seq);
    const joined = [...data(first.messages), ...data(second.messages)];
    expect(joined).toEqual(data(whole.messages));
  });

  it('tells a client of a run that ended before this process started how it ended', async () => {
    const run = await admin.json<Run>('POST', '/api/runs', { text: SHORT_SPEC });
    await runEnded(s, run.id);
    s.services.hub.drop(run.id);
    const w = watch(run.id);
    expect(await w.closed).toBe(1000);
    expect(w.messages.map((m) => m.type)).toEqual(['event', 'caught-up']);
    expect(w.messages[0]).toMatchObject({ event: 'done', data: { status: 'completed' } });
  });

  it('refuses a socket without a session', async () => {
    const run = (await admin.json<{ runs: Run[] }>('GET', '/api/runs')).runs[0] as Run;
    const ws = new WebSocket(`${base}/api/runs/${run.id}/live`);
    const status = await new Promise<number>((resolve) =>
      ws.on('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0)),
    );
    expect(status).toBe(401);
  });
});
