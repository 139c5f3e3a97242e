// Resource limits: slow bodies cut, a connection cap, body sizes per route, live sockets per user,
// stored specs per user (one file each).
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  adminClient,
  type Client,
  SHORT_SPEC,
  type TestServer,
  testServer,
  userClient,
} from '../../test/support/testkit.js';
import { MAX_SPECS_PER_USER } from '../service/specStore.js';
import type { Run } from '../service/types.js';
import { MAX_SOCKETS_PER_USER, MAX_TEXT_CHARS } from './limits.js';

let s: TestServer;
let admin: Client;
let port: number;

beforeAll(async () => {
  s = await testServer({ limits: { requestTimeoutMs: 1500, maxConnections: 40 } });
  admin = await adminClient(s);
  port = Number(new URL(await s.app.listen({ host: '127.0.0.1', port: 0 })).port);
});
afterAll(async () => {
  await s.close();
});

const rawSocket = () =>
  new Promise<Socket>((resolve, reject) => {
    const sock = connect(port, '127.0.0.1', () => resolve(sock));
    sock.on('error', reject);
  });

describe('connections', () => {
  it('a client sending its body a byte at a time is cut at the request timeout', async () => {
    const sock = await rawSocket();
    const started = Date.now();
    let answer = '';
    sock.on('data', (d) => {
      answer += String(d);
    });
    sock.write(
      'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{',
    );
    // The slow client: one more byte every 300 ms, forever.
    const drip = setInterval(() => sock.writable && sock.write(' '), 300);
    await new Promise<void>((resolve) => sock.on('close', () => resolve()));
    clearInterval(drip);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(1400);
    expect(took).toBeLessThan(6000);
    expect(answer).toMatch(/^HTTP\/1.1 408/);
  });

  it('connections beyond the cap are refused at once', async () => {
    const held = await Promise.all(Array.from({ length: 40 }, rawSocket));
    const extra = await rawSocket();
    const closed = await new Promise<boolean>((resolve) => {
      extra.on('close', () => resolve(true));
      extra.write('GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    expect(closed).toBe(true);
    for (const h of held) h.destroy();
  });
});

describe('body sizes', () => {
  it('64 KiB for most routes; where a spec text goes, room for the longest one', async () => {
    const big = 'x'.repeat(100 * 1024);
    const r = await admin.req('POST', '/api/tokens', { name: big });
    expect(r.statusCode).toBe(413);
    expect(r.json().problems.length).toBeGreaterThan(0);
    // The longest text, every character escaped: still not too large.
    const text = `${SHORT_SPEC}# ${'\u00e9'.repeat(MAX_TEXT_CHARS - SHORT_SPEC.length - 3)}\n`;
    const escaped = JSON.stringify({ text }).replace(/\u00e9/g, '\\u00e9');
    const r2 = await admin.req('POST', '/api/specs/validate', escaped, {
      'content-type': 'application/json',
    });
    expect(r2.statusCode).toBe(200);
    expect(r2.json().ok).toBe(true);
    const tooLong = await admin.req('POST', '/api/specs/validate', { text: `${text}x` });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().problems[0].path).toBe('text');
  });
});

describe('live sockets per user', () => {
  it(`at most ${MAX_SOCKETS_PER_USER} at once; the next is 429`, async () => {
    const run = await admin.json<Run>('POST', '/api/runs', { text: SHORT_SPEC.replace('4s', '3600s') });
    const url = `ws://127.0.0.1:${port}/api/runs/${run.id}/live`;
    const openOne = () =>
      new Promise<{ ws: WebSocket; status: number }>((resolve) => {
        const ws = new WebSocket(url, { headers: { cookie: `lfn_session=${admin.cookie}` } });
        ws.on('unexpected-response', (_req, res) => resolve({ ws, status: res.statusCode ?? 0 }));
        ws.on('open', () => resolve({ ws, status: 101 }));
      });
    const opened: { ws: WebSocket; status: number }[] = [];
    for (let i = 0; i < MAX_SOCKETS_PER_USER; i++) opened.push(await openOne());
    expect(opened.every((o) => o.status === 101)).toBe(true);
    expect((await openOne()).status).toBe(429);
    // Another user is not affected; closing one frees a place.
    const closed = new Promise((resolve) => opened[0]?.ws.on('close', resolve));
    opened[0]?.ws.close();
    await closed;
    // The server sees the close after the client: wait for a place rather than sleep.
    let again = await openOne();
    for (let i = 0; i < 50 && again.status !== 101; i++) again = await openOne();
    expect(again.status).toBe(101);
    for (const o of [...opened, again]) o.ws.close();
    await admin.json('POST', `/api/runs/${run.id}/stop`);
  });
});

describe('live backpressure', () => {
  it('a reader more than 1 MB behind is closed with 1013, and resumes from its cursor', async () => {
    // Its own user: the socket-cap test's sockets may still be closing on the server side.
    const reader = await userClient(s, admin, 'reader', 'instructor');
    const run = await reader.json<Run>('POST', '/api/runs', { text: SHORT_SPEC.replace('4s', '3600s') });
    const channel = s.services.hub.open(run.id);
    const url = `ws://127.0.0.1:${port}/api/runs/${run.id}/live`;
    const headers = { cookie: `lfn_session=${reader.cookie}` };
    const ws = new WebSocket(url, { headers });
    let lastSeq = 0;
    const caughtUp = new Promise<void>((resolve) =>
      ws.on('message', (d) => {
        const m = JSON.parse(String(d)) as { seq: number; type: string };
        lastSeq = Math.max(lastSeq, m.seq);
        if (m.type === 'caught-up') resolve();
      }),
    );
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    await caughtUp;
    // The reader stops reading (its TCP socket paused) while 12 MB are published: more than the
    // kernel's socket buffers take, so megabytes queue in the service (below the old 16 MB cut).
    const tcp = (ws as unknown as { _socket: Socket })._socket;
    tcp.pause();
    const blob = 'x'.repeat(100 * 1024);
    for (let i = 0; i < 120; i++) channel.publish({ type: 'event', event: 'error', data: { blob, i } });
    tcp.resume();
    expect(await closed).toBe(1013);
    expect(lastSeq).toBeLessThan(channel.lastSeq);
    // The client reconnects after what it saw and gets the rest.
    const again = new WebSocket(`${url}?cursor=${lastSeq}`, { headers });
    const first = await new Promise<number>((resolve) =>
      again.once('message', (d) => resolve((JSON.parse(String(d)) as { seq: number }).seq)),
    );
    expect(first).toBe(lastSeq + 1);
    again.close();
    await reader.json('POST', `/api/runs/${run.id}/stop`);
  }, 30_000);
});

describe('stored specs', () => {
  it(`at most ${MAX_SPECS_PER_USER} per user, each in its own file`, async () => {
    const u = await userClient(s, admin, 'hoarder', 'student');
    for (let i = 0; i < MAX_SPECS_PER_USER; i++)
      expect(
        (await u.req('POST', '/api/specs', { name: `s${i}`, kind: 'spec', text: SHORT_SPEC })).statusCode,
      ).toBe(201);
    const over = await u.req('POST', '/api/specs', { name: 'one more', kind: 'spec', text: SHORT_SPEC });
    expect(over.statusCode).toBe(409);
    expect(over.json().problems.length).toBeGreaterThan(0);
    expect(readdirSync(join(s.dirs.data, 'specs')).length).toBe(MAX_SPECS_PER_USER);
    // Someone else may still store theirs.
    expect(
      (await admin.req('POST', '/api/specs', { name: 'a', kind: 'spec', text: SHORT_SPEC })).statusCode,
    ).toBe(201);
  });
});
