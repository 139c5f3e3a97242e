// Issue 12's service findings: auth by route, not URL spelling; atomic, NAT-friendly login limits;
// the password policy; Secure cookies over TLS; the WebSocket Origin check; secrets out of the log.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  adminClient,
  type Client,
  passwordOf,
  SHORT_SPEC,
  type TestServer,
  testServer,
  userClient,
} from '../../test/support/testkit.js';
import { LOGIN_LIMITS } from '../service/loginLimits.js';

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let s: TestServer;
let admin: Client;
const logLines: string[] = [];

beforeAll(async () => {
  const stream = new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  s = await testServer({ logger: { level: 'info', stream } });
  admin = await adminClient(s);
});
afterAll(async () => {
  await s.close();
});

const anon = (method: string, url: string, headers: Record<string, string> = {}) =>
  s.app.inject({ method: method as 'GET', url, headers });

describe('authentication by route, whatever the spelling of the URL', () => {
  it('encoded, dotted, doubled and upper-case spellings of API paths need sign-in', async () => {
    for (const url of [
      '/%61pi/presets',
      '/%61%70%69/runs',
      '/api/%70resets',
      '/api/%2e%2e/api/presets',
      '/api/./presets',
      '/x/../api/presets',
      '//api/presets',
      '/api//presets',
      '/API/presets',
      '/Api/users',
      '/%2561pi/presets',
      '/api/no-such-route',
      '/api',
    ]) {
      const r = await anon('GET', url);
      expect(r.statusCode, url).toBe(401);
    }
    // Signed in, an unknown API path is a plain 404 (not the UI, not a 500).
    expect((await admin.req('GET', '/api/no-such-route')).statusCode).toBe(404);
    expect((await admin.req('GET', '/%61pi/presets')).statusCode).toBe(200);
  });

  it('the CSRF check holds on encoded spellings of a mutating route', async () => {
    const r = await s.app.inject({
      method: 'POST',
      url: '/%61pi/tokens',
      headers: { cookie: `lfn_session=${admin.cookie}` },
      payload: { name: 'x' },
    });
    expect(r.statusCode).toBe(403);
    expect(r.json().problems[0].path).toBe('x-csrf-token');
  });

  it('a cross-origin WebSocket upgrade is refused on any spelling, and a non-URL Origin is 403', async () => {
    const run = await admin.json<{ id: string }>('POST', '/api/runs', { text: SHORT_SPEC });
    const address = await s.app.listen({ host: '127.0.0.1', port: 0 });
    const status = (path: string, origin: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`${address.replace('http', 'ws')}${path}`, {
          headers: { cookie: `lfn_session=${admin.cookie}`, origin },
        });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
        ws.on('error', () => resolve(-1));
      });
    const port = new URL(address).port;
    for (const path of [
      `/api/runs/${run.id}/live`,
      `/%61pi/runs/${run.id}/live`,
      `/%61%70%69/runs/${run.id}/live`,
    ])
      expect(await status(path, 'http://127.0.0.1:1'), path).toBe(403);
    expect(await status(`/api/runs/${run.id}/live`, 'not a url')).toBe(403);
    expect(await status(`/api/runs/${run.id}/live`, `http://127.0.0.1:${port}`)).toBe(101);
  });

  it('every registered route declares its access; undeclared ones need sign-in', () => {
    const declared = s.routes.filter((r) => r.url.startsWith('/api/') && r.access !== 'user');
    expect(declared.map((r) => `${r.method} ${r.url} ${JSON.stringify(r.access)}`).sort()).toContain(
      'POST /api/users ["admin"]',
    );
  });

  it('a student gets 403 on admin routes, decided by the route’s declaration', async () => {
    const pupil = await userClient(s, admin, 'roles1', 'student');
    for (const [m, url] of [
      ['POST', '/api/users'],
      ['GET', '/api/users'],
      ['GET', '/api/ops/metrics'],
      ['PUT', '/api/quotas/student'],
      ['POST', '/api/labs/default/reset'],
    ] as const)
      expect((await pupil.req(m, url, m === 'GET' ? undefined : {})).statusCode, `${m} ${url}`).toBe(403);
  });

  it('undeclared methods on known paths are 405 with Allow', async () => {
    const r = await anon('TRACE', '/api/health');
    expect(r.statusCode).toBe(405);
    expect(r.headers.allow).toContain('GET');
    const d = await admin.req('DELETE', '/api/runs');
    expect(d.statusCode).toBe(405);
    expect(String(d.headers.allow).split(', ').sort()).toEqual(['GET', 'HEAD', 'OPTIONS', 'POST']);
  });
});

describe('login limits', () => {
  const attempt = (username: string, password: string, ip = '10.1.1.1') =>
    s.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username, password },
      remoteAddress: ip,
    });

  it('40 concurrent wrong passwords: at most the limit are checked, the rest 429', async () => {
    await userClient(s, admin, 'victim', 'student');
    const all = await Promise.all(Array.from({ length: 40 }, () => attempt('victim', 'wrong-password-1')));
    const codes = all.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 401).length).toBe(LOGIN_LIMITS.pair);
    expect(codes.filter((c) => c === 429).length).toBe(40 - LOGIN_LIMITS.pair);
    // The account itself is not locked for its owner elsewhere.
    expect((await attempt('victim', passwordOf('victim'), '10.1.1.2')).statusCode).toBe(200);
  });

  it('a class behind one NAT address: others’ failures do not lock out a correct sign-in', async () => {
    const nat = '10.9.9.9';
    await userClient(s, admin, 'natuser', 'student');
    // 20 classmates each mistype a few times from the same address.
    for (let i = 0; i < 20; i++)
      await Promise.all([1, 2, 3].map(() => attempt(`classmate${i}`, 'wrong-password-1', nat)));
    expect((await attempt('natuser', passwordOf('natuser'), nat)).statusCode).toBe(200);
  });

  it('counters survive a restart (DATA/login-failures.json)', async () => {
    const again = await testServer({ dirs: s.dirs });
    try {
      const r = await again.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: 'victim', password: 'wrong-password-1' },
        remoteAddress: '10.1.1.1',
      });
      expect(r.statusCode).toBe(429);
    } finally {
      await again.close();
    }
  });
});

describe('passwords', () => {
  it('refuses short, blank, common and username-containing passwords, naming the field', async () => {
    for (const password of ['short1', ' '.repeat(12), 'password123', 'qwertyuiop', 'pat-the-user-99'])
      for (const body of [{ username: 'pat-the-user', password, role: 'student' }]) {
        const r = await admin.req('POST', '/api/users', body);
        expect(r.statusCode, JSON.stringify(password)).toBe(400);
        expect(r.json().problems[0].path).toBe('password');
      }
  });

  it('changing one’s own password needs the current one, and revokes other sessions and tokens', async () => {
    const pupil = await userClient(s, admin, 'changer', 'student');
    const other = await userClient(s, admin, 'changer-x', 'student');
    const id = (await pupil.json<{ user: { id: string } }>('GET', '/api/auth/me')).user.id;
    const token = (await pupil.json<{ token: string }>('POST', '/api/tokens', { name: 'ci' })).token;
    const second = await s.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'changer', password: passwordOf('changer') },
    });
    const secondCookie = second.cookies.find((c) => c.name === 'lfn_session')?.value;
    const next = 'a-new-Secret-4711';
    const without = await pupil.req('PATCH', `/api/users/${id}`, { password: next });
    expect(without.statusCode).toBe(403);
    expect(without.json().problems[0].path).toBe('currentPassword');
    const wrong = await pupil.req('PATCH', `/api/users/${id}`, {
      password: next,
      currentPassword: 'nope-nope-nope',
    });
    expect(wrong.statusCode).toBe(403);
    expect((await other.req('PATCH', `/api/users/${id}`, { password: next })).statusCode).toBe(403);
    const ok = await pupil.req('PATCH', `/api/users/${id}`, {
      password: next,
      currentPassword: passwordOf('changer'),
    });
    expect(ok.statusCode).toBe(200);
    // This session goes on; the other session and the API token do not.
    expect((await pupil.req('GET', '/api/auth/me')).statusCode).toBe(200);
    expect((await anon('GET', '/api/auth/me', { cookie: `lfn_session=${secondCookie}` })).statusCode).toBe(
      401,
    );
    expect((await anon('GET', '/api/auth/me', { authorization: `Bearer ${token}` })).statusCode).toBe(401);
  });
});

describe('admins and their own account', () => {
  it('an admin can neither delete nor demote themselves, even with another admin present', async () => {
    const other = await admin.json<{ id: string }>('POST', '/api/users', {
      username: 'second-admin',
      password: 'another-Admin-pass-1',
      role: 'admin',
    });
    expect(other.id).toBeTruthy();
    const me = (await admin.json<{ user: { id: string } }>('GET', '/api/auth/me')).user.id;
    const del = await admin.req('DELETE', `/api/users/${me}`);
    expect(del.statusCode).toBe(409);
    const demote = await admin.req('PATCH', `/api/users/${me}`, { role: 'student' });
    expect(demote.statusCode).toBe(409);
    expect(demote.json().problems[0].path).toBe('role');
    expect((await admin.req('GET', '/api/auth/me')).statusCode).toBe(200);
  });
});

describe('cookies and the log', () => {
  it('sets Secure cookies when a trusted proxy says the request came over HTTPS', async () => {
    const proxied = await testServer({ trustProxy: true });
    try {
      const login = (proto?: string) =>
        proxied.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          headers: proto ? { 'x-forwarded-proto': proto } : {},
          payload: { username: 'admin', password: proxied.admin?.password },
        });
      const secure = (await login('https')).cookies.find((c) => c.name === 'lfn_session');
      expect(secure?.secure).toBe(true);
      const plain = (await login()).cookies.find((c) => c.name === 'lfn_session');
      expect(plain?.secure).toBeFalsy();
    } finally {
      await proxied.close();
    }
    // Not trusted: the header is ignored.
    const r = await s.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'x-forwarded-proto': 'https' },
      payload: { username: 'admin', password: s.admin?.password },
    });
    expect(r.cookies.find((c) => c.name === 'lfn_session')?.secure).toBeFalsy();
  });

  it.runIf(hasOpenssl)('serves HTTPS with --tls-cert/--tls-key, and its cookies are Secure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-tls-'));
    const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const tls = await testServer({ tls: { cert, key } });
    try {
      const address = await tls.app.listen({ host: '127.0.0.1', port: 0 });
      expect(address).toMatch(/^https:/);
      const body = JSON.stringify({ username: 'admin', password: tls.admin?.password });
      const setCookie = await new Promise<string[]>((resolve, reject) => {
        const req = httpsRequest(
          `${address}/api/auth/login`,
          { method: 'POST', rejectUnauthorized: false, headers: { 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            resolve(res.headers['set-cookie'] ?? []);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      expect(setCookie.join(';')).toMatch(/lfn_session=.*; Secure/);
    } finally {
      await tls.close();
    }
  });

  it('logs requests, but never a password, cookie, token or CSRF token', async () => {
    const secret = 'very-Secret-pass-31337';
    await admin.json('POST', '/api/users', { username: 'logged', password: secret, role: 'student' });
    const r = await s.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'logged', password: secret },
    });
    expect(r.statusCode).toBe(200);
    const cookie = r.cookies.find((c) => c.name === 'lfn_session')?.value as string;
    await anon('GET', '/api/auth/me', { cookie: `lfn_session=${cookie}` });
    const log = logLines.join('');
    expect(log).toContain('/api/auth/login');
    expect(log).not.toContain(secret);
    expect(log).not.toContain(cookie);
    expect(log).not.toContain(admin.csrf as string);
  });
});
