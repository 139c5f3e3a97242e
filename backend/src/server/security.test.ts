import { seededUniform } from '@lfnlab/metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  adminClient,
  type Client,
  runEnded,
  SHORT_SPEC,
  type TestServer,
  testServer,
  userClient,
} from '../../test/support/testkit.js';
import type { Run } from '../service/types.js';

let s: TestServer;
let admin: Client;
let alice: Client;
let bob: Client;
let teacher: Client;
let aliceRun: Run;

beforeAll(async () => {
  s = await testServer({ fake: { timeScale: 2 } });
  admin = await adminClient(s);
  alice = await userClient(s, admin, 'alice', 'student', 'net101');
  bob = await userClient(s, admin, 'bob', 'student', 'net202');
  teacher = await userClient(s, admin, 'teach', 'instructor', 'net101');
  // Long enough to still be running while bob tries to stop it.
  aliceRun = await alice.json<Run>('POST', '/api/runs', { text: SHORT_SPEC.replace('4s', '60s') });
});
afterAll(async () => {
  await s.close();
});

const concrete = (url: string) => url.replace(/:[A-Za-z]+/g, 'x').replace(/\*$/, 'x');

describe('authentication', () => {
  it('answers 401 on every route but login and health without a session or token', async () => {
    const api = s.routes.filter((r) => r.url.startsWith('/api/') && r.method !== 'HEAD');
    expect(api.length).toBeGreaterThan(30);
    const publicOnes = api.filter((r) => r.public).map((r) => `${r.method} ${r.url}`);
    expect(publicOnes.sort()).toEqual(['GET /api/health', 'POST /api/auth/login']);
    for (const r of api.filter((x) => !x.public)) {
      const res = await s.app.inject({
        method: r.method as 'GET',
        url: concrete(r.url),
        payload: r.method === 'GET' ? undefined : {},
      });
      expect(res.statusCode, `${r.method} ${r.url}`).toBe(401);
    }
  });

  it('refuses forged cookies and tokens', async () => {
    const forged = await s.app.inject({
      method: 'GET',
      url: '/api/runs',
      headers: { cookie: 'lfn_session=forged' },
    });
    expect(forged.statusCode).toBe(401);
    const token = await s.app.inject({
      method: 'GET',
      url: '/api/runs',
      headers: { authorization: 'Bearer lfn_forged' },
    });
    expect(token.statusCode).toBe(401);
  });

  it('sets the session cookie HttpOnly and SameSite=Strict', async () => {
    const r = await s.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'admin', password: s.admin?.password },
    });
    const c = r.cookies.find((x) => x.name === 'lfn_session');
    expect(c).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
  });
});

describe('isolation between students', () => {
  it('bob can neither see, read, export, stop nor watch alice’s run', async () => {
    const id = aliceRun.id;
    expect((await bob.json<{ runs: Run[] }>('GET', '/api/runs')).runs.map((r) => r.id)).not.toContain(id);
    for (const url of [
      `/api/runs/${id}`,
      `/api/runs/${id}/summary`,
      `/api/runs/${id}/record`,
      `/api/runs/${id}/report`,
      `/api/runs/${id}/export/json`,
      `/api/runs/${id}/export/csv`,
      `/api/runs/${id}/grafana`,
    ])
      expect((await bob.req('GET', url)).statusCode, url).toBe(404);
    expect((await bob.req('POST', `/api/runs/${id}/stop`)).statusCode).toBe(404);
    const live = await bob.req('GET', `/api/runs/${id}/live`, undefined, {
      connection: 'upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    });
    expect(live.statusCode).toBe(404);
    expect((await alice.json<Run>('GET', `/api/runs/${id}`)).status).toMatch(/queued|running/);
  });

  it('bob cannot watch it over a real WebSocket either', async () => {
    const address = await s.app.listen({ host: '127.0.0.1', port: 0 });
    const ws = new WebSocket(`${address.replace('http', 'ws')}/api/runs/${aliceRun.id}/live`, {
      headers: { cookie: `lfn_session=${bob.cookie}` },
    });
    const status = await new Promise<number>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
    });
    expect(status).toBe(404);
  });

  it('alice’s instructor sees her run; stored specs stay private to their class', async () => {
    expect((await teacher.json<{ runs: Run[] }>('GET', '/api/runs')).runs.map((r) => r.id)).toContain(
      aliceRun.id,
    );
    const spec = await alice.json<{ id: string }>('POST', '/api/specs', {
      name: 'a',
      kind: 'spec',
      text: SHORT_SPEC,
    });
    expect((await bob.req('GET', `/api/specs/${spec.id}`)).statusCode).toBe(404);
    expect((await bob.req('POST', '/api/runs', { specId: spec.id })).statusCode).toBe(404);
    expect((await teacher.req('GET', `/api/specs/${spec.id}`)).statusCode).toBe(200);
    expect((await teacher.req('DELETE', `/api/specs/${spec.id}`)).statusCode).toBe(403);
  });

  it('alice can stop her own run', async () => {
    await alice.json('POST', `/api/runs/${aliceRun.id}/stop`);
    expect((await runEnded(s, aliceRun.id)).status).toBe('aborted');
  });
});

/** Random JSON: every type, nesting, the routes' own field names with wrong values, odd strings. */
function randomValue(rnd: () => number, depth = 0): unknown {
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)] as T;
  const k = Math.floor(rnd() * (depth > 2 ? 6 : 9));
  switch (k) {
    case 0:
      return null;
    case 1:
      return rnd() < 0.5;
    case 2:
      return pick([0, -1, 1e308, -1e-9, 2 ** 53, 3.5, Number.MAX_SAFE_INTEGER]);
    case 3:
      return pick([
        '',
        'x',
        'a'.repeat(5000),
        '{"',
        '\u0000',
        '../../etc/passwd',
        'reno',
        'admin',
        '10Mbit',
        '-5s',
        '<script>',
      ]);
    case 4:
      return pick([[], {}, '[]']);
    case 5:
      return pick(['student', 'admin', 'spec', 'campaign', 'csv']);
    case 6:
      return Array.from({ length: Math.floor(rnd() * 4) }, () => randomValue(rnd, depth + 1));
    default: {
      const keys = [
        'username',
        'password',
        'role',
        'class',
        'name',
        'kind',
        'text',
        'spec',
        'specId',
        'preset',
        'part',
        'shorten',
        'variant',
        'lab',
        'concurrentRuns',
        'maxDurationS',
        'maxRateMbps',
        'maxFlows',
        'duration',
        'paths',
        'flows',
        '__proto__',
        'constructor',
      ];
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(rnd() * 5); i > 0; i--) o[pick(keys)] = randomValue(rnd, depth + 1);
      return o;
    }
  }
}

/** A valid spec with one field broken. */
function brokenSpec(rnd: () => number): string {
  const spec: Record<string, unknown> = {
    name: 'fuzz',
    duration: '3s',
    paths: { main: { rtt: '10ms', rate: '10Mbit' } },
    flows: [{ stack: 'reno' }],
  };
  const fields: Array<[string[], unknown]> = [
    [['duration'], randomValue(rnd)],
    [['name'], randomValue(rnd)],
    [['paths', 'main', 'rtt'], randomValue(rnd)],
    [['paths', 'main', 'rate'], randomValue(rnd)],
    [['flows'], randomValue(rnd)],
    [['sampleHz'], randomValue(rnd)],
    [['paths'], randomValue(rnd)],
  ];
  const [path, value] = fields[Math.floor(rnd() * fields.length)] as [string[], unknown];
  let o = spec;
  for (const p of path.slice(0, -1)) {
    const next = o[p];
    o = (typeof next === 'object' && next !== null ? next : {}) as Record<string, unknown>;
  }
  o[path[path.length - 1] as string] = value;
  return rnd() < 0.5 ? JSON.stringify(spec) : JSON.stringify(spec).slice(0, Math.floor(rnd() * 60));
}

describe('malformed input', () => {
  it('1000 random and malformed bodies: no 5xx, and every 400/403 names the field', async () => {
    const rnd = seededUniform(20_251_121);
    const fuzzer = await userClient(s, admin, 'fuzzer', 'instructor', 'fz');
    const userId = (await fuzzer.json<{ user: { id: string } }>('GET', '/api/auth/me')).user.id;
    const specId = (
      await fuzzer.json<{ id: string }>('POST', '/api/specs', { name: 'f', kind: 'spec', text: SHORT_SPEC })
    ).id;
    const targets: Array<[string, string]> = [
      ['POST', '/api/auth/login'],
      ['POST', '/api/users'],
      ['PATCH', `/api/users/${userId}`],
      ['PUT', '/api/quotas/student'],
      ['POST', '/api/specs/validate'],
      ['POST', '/api/specs'],
      ['PUT', `/api/specs/${specId}`],
      ['POST', '/api/runs'],
      ['POST', '/api/tokens'],
      ['GET', '/api/runs?verdict=%00&from=yesterday'],
    ];
    const statuses = new Map<number, number>();
    for (let i = 0; i < 1000; i++) {
      const [method, url] = targets[i % targets.length] as [string, string];
      const shape = rnd();
      let payload: string;
      let contentType = 'application/json';
      if (shape < 0.35) payload = JSON.stringify(randomValue(rnd));
      else if (shape < 0.6) payload = JSON.stringify({ text: brokenSpec(rnd) });
      else if (shape < 0.7) {
        const text = brokenSpec(rnd);
        let spec: unknown = text;
        try {
          spec = JSON.parse(text);
        } catch {} // a cut-off text goes in as a string: also wrong
        payload = JSON.stringify({ spec, kind: rnd() < 0.8 ? 'spec' : 'campaign' });
      } else if (shape < 0.85)
        payload = JSON.stringify(randomValue(rnd)).slice(0, Math.floor(rnd() * 20)) || '{';
      else if (shape < 0.95) {
        payload = 'name=x&password=y';
        contentType = 'application/x-www-form-urlencoded';
      } else payload = '\u0000\u00ff{{{';
      const res = await fuzzer.req(method, url, method === 'GET' ? undefined : payload, {
        'content-type': contentType,
      });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      expect(
        res.statusCode,
        `${method} ${url} ${payload.slice(0, 200)} → ${res.body.slice(0, 300)}`,
      ).toBeLessThan(500);
      if (res.statusCode === 400 || res.statusCode === 403 || res.statusCode === 415) {
        const body = res.json() as { error: string; problems?: { path: string; message: string }[] };
        expect(body.error.length).toBeGreaterThan(0);
        expect(
          body.problems?.length,
          `${method} ${url} ${payload.slice(0, 100)} → ${res.body.slice(0, 200)}`,
        ).toBeGreaterThan(0);
        for (const p of body.problems ?? []) expect(p.path.length).toBeGreaterThan(0);
      }
    }
    console.log('fuzz statuses', Object.fromEntries(statuses));
    // The fuzz reached validation, not only the parser.
    expect(statuses.get(400) ?? 0).toBeGreaterThan(300);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(20);
  });
});
