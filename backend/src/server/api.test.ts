import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  type Client,
  passwordOf,
  runEnded,
  SHORT_SPEC,
  type TestServer,
  testServer,
  tokenClient,
  userClient,
} from '../../test/support/testkit.js';
import type { Run, StoredSpec } from '../service/types.js';

let s: TestServer;
let admin: Client;

beforeAll(async () => {
  s = await testServer();
  admin = await adminClient(s);
});
afterAll(async () => {
  await s.close();
});

describe('accounts', () => {
  it('creates an admin on first start, with its password in a 0600 file', async () => {
    expect(s.admin?.username).toBe('admin');
    const { statSync, readFileSync } = await import('node:fs');
    const f = join(s.dirs.data, 'admin-password');
    expect(readFileSync(f, 'utf8').trim()).toBe(s.admin?.password);
    expect(statSync(f).mode & 0o777).toBe(0o600);
    const me = await admin.json<{ user: { role: string }; csrfToken: string }>('GET', '/api/auth/me');
    expect(me.user.role).toBe('admin');
    expect(me.csrfToken).toBe(admin.csrf);
  });

  it('stores passwords as salted scrypt hashes, never in clear', async () => {
    await userClient(s, admin, 'hashcheck', 'student');
    const { readFileSync } = await import('node:fs');
    const users = readFileSync(join(s.dirs.data, 'users.json'), 'utf8');
    expect(users).not.toContain(passwordOf('hashcheck'));
    expect(users).toMatch(/scrypt\$16384\$8\$1\$/);
  });

  it('refuses a wrong password and rate-limits repeated failures', async () => {
    const bad = () =>
      s.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: 'hashcheck', password: 'nope-nope' },
      });
    const first = await bad();
    expect(first.statusCode).toBe(401);
    let last = first;
    for (let i = 0; i < 10; i++) last = await bad();
    expect(last.statusCode).toBe(429);
  });

  it('needs the CSRF header for cookie sessions, not for API tokens', async () => {
    const noCsrf = await s.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: { cookie: `lfn_session=${admin.cookie}` },
      payload: { name: 'ci' },
    });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json().problems[0].path).toBe('x-csrf-token');
    const t = await admin.json<{ id: string; token: string }>('POST', '/api/tokens', { name: 'ci' });
    expect(t.token).toMatch(/^lfn_/);
    const script = tokenClient(s, 'admin', t.token);
    expect((await script.req('POST', '/api/specs/validate', { text: SHORT_SPEC })).statusCode).toBe(200);
    const listed = await admin.json<{ id: string }[]>('GET', '/api/tokens');
    expect(JSON.stringify(listed)).not.toContain(t.token);
    await admin.json('DELETE', `/api/tokens/${t.id}`);
    expect((await script.req('GET', '/api/runs')).statusCode).toBe(401);
  });

  it('logout ends the session', async () => {
    const u = await userClient(s, admin, 'leaver', 'student');
    expect((await u.req('POST', '/api/auth/logout')).statusCode).toBe(200);
    expect((await u.req('GET', '/api/auth/me')).statusCode).toBe(401);
  });

  it('lets only admins manage users; instructors list their class', async () => {
    const teacher = await userClient(s, admin, 'teacher', 'instructor', 'net101');
    await userClient(s, admin, 'pupil', 'student', 'net101');
    await userClient(s, admin, 'other', 'student', 'net202');
    const mine = await teacher.json<{ username: string }[]>('GET', '/api/users');
    expect(mine.map((u) => u.username).sort()).toEqual(['pupil', 'teacher']);
    const r = await teacher.req('POST', '/api/users', {
      username: 'x1',
      password: 'longenough',
      role: 'student',
    });
    expect(r.statusCode).toBe(403);
    const dup = await admin.req('POST', '/api/users', {
      username: 'pupil',
      password: 'longenough',
      role: 'student',
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().problems[0].path).toBe('username');
    const short = await admin.req('POST', '/api/users', {
      username: 'x2',
      password: 'short',
      role: 'student',
    });
    expect(short.statusCode).toBe(400);
    expect(short.json().problems).toEqual([{ path: 'password', message: 'must be at least 10 characters' }]);
  });
});

describe('specs', () => {
  it('validate returns every problem with its field path', async () => {
    const bad = await admin.json<{ ok: boolean; problems: { path: string; message: string }[] }>(
      'POST',
      '/api/specs/validate',
      {
        text: 'name: x\nduration: 5s\npaths: { main: { rtt: 9000ms, rate: 10Mbit } }\nflows: [{ stack: nope }]',
      },
    );
    expect(bad.ok).toBe(false);
    const paths = bad.problems.map((p) => p.path);
    expect(paths).toContain('flows.0.stack');
    expect(paths).toContain('paths.main.rtt');
    expect(bad.problems.find((p) => p.path === 'paths.main.rtt')?.message).toMatch(/5s/);
    const good = await admin.json<{ ok: boolean; spec: { duration: number } }>(
      'POST',
      '/api/specs/validate',
      { text: SHORT_SPEC },
    );
    expect(good).toMatchObject({ ok: true, spec: { duration: 4000 } });
    const yamlErr = await admin.json<{ ok: boolean; problems: { path: string }[] }>(
      'POST',
      '/api/specs/validate',
      { text: 'a: [' },
    );
    expect(yamlErr.problems[0]?.path).toBe('text');
  });

  it('validates campaigns and lists their variants', async () => {
    const text = `name: sweep\nbase: { name: b, duration: 3s, paths: { main: { rtt: 10ms, rate: 10Mbit } }, flows: [{ stack: reno }] }\nvary: { "flows[0].stack": [reno, cubic] }\norder: sequential\n`;
    const r = await admin.json<{ ok: boolean; variants: { id: string; label: string }[] }>(
      'POST',
      '/api/specs/validate',
      {
        text,
        kind: 'campaign',
      },
    );
    expect(r.ok).toBe(true);
    expect(r.variants.map((v) => v.id)).toEqual(['001-reno-r1', '002-cubic-r1']);
    expect(r.variants.map((v) => v.label)).toEqual(['reno', 'cubic']);
  });

  it('create, list, get, update, duplicate, delete', async () => {
    const created = await admin.json<StoredSpec>('POST', '/api/specs', {
      name: 'mine',
      kind: 'spec',
      text: SHORT_SPEC,
    });
    expect(created).toMatchObject({ name: 'mine', kind: 'spec', owner: 'admin' });
    const invalid = await admin.req('POST', '/api/specs', { name: 'bad', kind: 'spec', text: 'name: x' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().problems.map((p: { path: string }) => p.path)).toContain('duration');
    const upd = await admin.json<StoredSpec>('PUT', `/api/specs/${created.id}`, { name: 'renamed' });
    expect(upd.name).toBe('renamed');
    const copy = await admin.json<StoredSpec>('POST', `/api/specs/${created.id}/duplicate`);
    expect(copy.id).not.toBe(created.id);
    expect(copy.text).toBe(SHORT_SPEC);
    expect((await admin.json<StoredSpec[]>('GET', '/api/specs')).map((x) => x.id)).toEqual(
      expect.arrayContaining([created.id, copy.id]),
    );
    await admin.json('DELETE', `/api/specs/${copy.id}`);
    expect((await admin.req('GET', `/api/specs/${copy.id}`)).statusCode).toBe(404);
  });

  it('serves the presets read-only with their published numbers', async () => {
    const list = await admin.json<{ id: string; parts: { name: string; text: string }[] }[]>(
      'GET',
      '/api/presets',
    );
    expect(list.length).toBeGreaterThan(5);
    const one = list[0];
    expect(one?.parts[0]?.text).toMatch(/base:/);
    const full = await admin.json<{ published: { refText: string }[] }>('GET', `/api/presets/${one?.id}`);
    expect(full.published.length).toBeGreaterThan(0);
  });
});

describe('runs', () => {
  it('runs a spec to completion with summary, record, report and exports', async () => {
    const started = await admin.req('POST', '/api/runs', { text: SHORT_SPEC });
    expect(started.statusCode).toBe(202);
    const run = started.json() as Run & { queuedRuns: string[] };
    expect(run.queuedRuns).toEqual([run.id]);
    const done = await runEnded(s, run.id);
    expect(done).toMatchObject({
      status: 'completed',
      verdict: 'valid',
      partial: false,
      stacks: ['reno', 'cubic'],
    });
    expect(done.progress).toEqual({ elapsedS: 4, totalS: 4 });
    expect(existsSync(join(s.dirs.runs, run.id, 'service.json'))).toBe(true);
    const summary = await admin.json<{ flows: { goodputMbps: { mean: number } }[] }>(
      'GET',
      `/api/runs/${run.id}/summary`,
    );
    expect(summary.flows).toHaveLength(2);
    expect(summary.flows[0]?.goodputMbps.mean).toBeGreaterThan(5);
    const record = await admin.json<{ spec: { name: string }; environment: { fake: boolean } }>(
      'GET',
      `/api/runs/${run.id}/record`,
    );
    expect(record.spec.name).toBe('short');
    const report = await admin.req('GET', `/api/runs/${run.id}/report`);
    expect(report.headers['content-type']).toMatch(/text\/html/);
    expect(report.body).toContain('short');
    const csv = await admin.req('GET', `/api/runs/${run.id}/export/csv?kind=tcp`);
    expect(csv.body.split('\n')[0]).toMatch(/^t_s,flow,/);
    expect(csv.body.split('\n').length).toBeGreaterThan(40);
    const json = await admin.json<{ format: string }>('GET', `/api/runs/${run.id}/export/json`);
    expect(json.format).toBe('lfnlab-run-export');
    const flent = await admin.req('GET', `/api/runs/${run.id}/export/flent`);
    expect(JSON.parse(gunzipSync(flent.rawPayload).toString()).version).toBe(3);
    // Storage is off here: Grafana would show nothing, so there is no link (queue.test.ts).
    expect((await admin.req('GET', `/api/runs/${run.id}/grafana`)).statusCode).toBe(404);
  });

  it('refuses a run on a lab that does not exist', async () => {
    const r = await admin.req('POST', '/api/runs', { text: SHORT_SPEC, lab: 'nolab' });
    expect(r.statusCode).toBe(400);
    expect(r.json().problems[0].path).toBe('lab');
    const both = await admin.req('POST', '/api/runs', { text: SHORT_SPEC, preset: 'x' });
    expect(both.json().problems[0]).toEqual({
      path: 'preset',
      message: 'give exactly one of text, specId or preset',
    });
  });

  it('lists and filters runs', async () => {
    const all = await admin.json<{ runs: Run[] }>('GET', '/api/runs');
    expect(all.runs.length).toBeGreaterThan(0);
    expect((await admin.json<{ runs: Run[] }>('GET', '/api/runs?stack=bbr')).runs).toHaveLength(0);
    expect(
      (await admin.json<{ runs: Run[] }>('GET', '/api/runs?stack=reno&verdict=valid')).runs.length,
    ).toBeGreaterThan(0);
    expect(
      (await admin.json<{ runs: Run[] }>('GET', '/api/runs?from=2999-01-01T00:00:00Z')).runs,
    ).toHaveLength(0);
    const bad = await admin.req('GET', '/api/runs?verdict=great');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().problems[0].path).toBe('verdict');
  });

  it('stops a running run: aborted, partial, lab reset, record kept', async () => {
    const slow = await testServer({ fake: { timeScale: 1 } });
    try {
      const a = await adminClient(slow);
      const run = await a.json<Run>('POST', '/api/runs', { text: SHORT_SPEC.replace('4s', '60s') });
      await new Promise<void>((resolve) => {
        const off = slow.services.hub.open(run.id).subscribe((m) => {
          if (m.type === 'progress' && m.elapsedS >= 1) {
            off();
            resolve();
          }
        });
      });
      const resetsBefore = slow.driver.resets;
      await a.json('POST', `/api/runs/${run.id}/stop`);
      const ended = await runEnded(slow, run.id);
      expect(ended).toMatchObject({ status: 'aborted', partial: true, error: 'stopped by admin' });
      expect(slow.driver.resets).toBe(resetsBefore + 1);
      const summary = await a.json<{ status: string }>('GET', `/api/runs/${run.id}/summary`);
      expect(summary.status).toBe('aborted');
    } finally {
      await slow.close();
    }
  });

  it('ends a failing run as failed with the lab reset', async () => {
    const failing = await testServer({ fake: { timeScale: 50, failAt: 0.5 } });
    try {
      const a = await adminClient(failing);
      const run = await a.json<Run>('POST', '/api/runs', { text: SHORT_SPEC });
      const ended = await runEnded(failing, run.id);
      expect(ended.status).toBe('failed');
      expect(ended.partial).toBe(true);
      expect(ended.error).toMatch(/failed on purpose/);
      expect(failing.driver.resets).toBe(1);
    } finally {
      await failing.close();
    }
  });

  it('serialises runs on one lab through the queue', async () => {
    const a = admin;
    const r1 = await a.json<Run>('POST', '/api/runs', { text: SHORT_SPEC });
    const r2 = await a.json<Run>('POST', '/api/runs', { text: SHORT_SPEC });
    expect((await a.json<Run>('GET', `/api/runs/${r2.id}`)).status).toBe('queued');
    const [e1, e2] = await Promise.all([runEnded(s, r1.id), runEnded(s, r2.id)]);
    expect(e1.status).toBe('completed');
    expect(e2.status).toBe('completed');
    expect(Date.parse(e2.startedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(e1.finishedAt ?? ''));
  });

  it('runs one variant of a preset, shortened', async () => {
    const presets = await admin.json<{ id: string }[]>('GET', '/api/presets');
    const id = presets.find((p) => p.id === 'seed001-sst')?.id ?? (presets[0]?.id as string);
    const check = await admin.req('POST', '/api/runs', { preset: id, shorten: 3, variant: 'nope' });
    expect(check.statusCode).toBe(400);
    expect(check.json().problems[0].path).toBe('variant');
    const firstVariant = (check.json().problems[0].message as string)
      .replace('must be one of ', '')
      .split(', ')[0];
    const run = await admin.json<Run>('POST', '/api/runs', { preset: id, shorten: 3, variant: firstVariant });
    expect(run.preset).toBe(id);
    expect(run.campaign).toMatch(/@/);
    // Stored under its id, shown by its variant's label (stack and flow count for seed001-sst).
    expect(run.name).toBe(`${id}-ci/${firstVariant}`);
    expect(run.label).toMatch(/^[a-z]+ · \d+ flows$/);
    expect((await admin.json<Run>('GET', `/api/runs/${run.id}`)).label).toBe(run.label);
    expect((await runEnded(s, run.id)).status).toBe('completed');
  });

  it('enforces quotas with 403s naming the field and the limit', async () => {
    const st = await userClient(s, admin, 'quotaed', 'student');
    const big = SHORT_SPEC.replace('4s', '600s').replace('20Mbit', '1Gbit');
    const r = await st.req('POST', '/api/runs', { text: big });
    expect(r.statusCode).toBe(403);
    const problems = r.json().problems as { path: string; message: string }[];
    expect(problems.map((p) => p.path).sort()).toEqual([
      'duration',
      'paths.main.rate',
      'paths.main.reverse.rate',
    ]);
    expect(problems.find((p) => p.path === 'duration')?.message).toMatch(/120 s/);
    await admin.json('PUT', '/api/quotas/student', {
      concurrentRuns: 1,
      maxDurationS: 120,
      maxRateMbps: 100,
      maxFlows: 1,
    });
    const flows = await st.req('POST', '/api/runs', { text: SHORT_SPEC });
    expect(flows.json().problems).toEqual([
      { path: 'flows', message: '2 flows (counts expanded) is above the student quota of 1' },
    ]);
    await admin.json('PUT', '/api/quotas/student', {
      concurrentRuns: 1,
      maxDurationS: 120,
      maxRateMbps: 100,
      maxFlows: 4,
    });
    const slowSpec = SHORT_SPEC.replace('4s', '100s');
    const first = await st.json<Run>('POST', '/api/runs', { text: slowSpec });
    const second = await st.req('POST', '/api/runs', { text: SHORT_SPEC });
    expect(second.statusCode).toBe(403);
    expect(second.json().problems[0].path).toBe('concurrentRuns');
    await st.json('POST', `/api/runs/${first.id}/stop`);
    expect((await runEnded(s, first.id)).status).toMatch(/aborted/);
  });
});

describe('labs and operators', () => {
  it('lists, boots, resets and powers off labs', async () => {
    const labs = await admin.json<{ name: string; state: string }[]>('GET', '/api/labs');
    expect(labs.map((l) => l.name)).toContain('default');
    const boot = await admin.req('POST', '/api/labs/second/boot');
    expect(boot.statusCode).toBe(202);
    expect(boot.json().state).toMatch(/booting|ready/);
    expect((await admin.json<{ state: string }>('POST', '/api/labs/second/reset')).state).toBeDefined();
    expect((await admin.json<{ state: string }>('POST', '/api/labs/second/down')).state).toBe('down');
    const student = await userClient(s, admin, 'labstudent', 'student');
    expect((await student.req('POST', '/api/labs/default/down')).statusCode).toBe(403);
  });

  it('answers health without auth and metrics for admins', async () => {
    const h = await s.app.inject({ method: 'GET', url: '/api/health' });
    expect(h.json()).toMatchObject({ ok: true, influx: 'off', queue: expect.any(Number) });
    const m = await admin.req('GET', '/api/ops/metrics');
    expect(m.body).toMatch(/lfnlab_runs\{status="completed"\} [1-9]/);
  });

  it('serves the OpenAPI document generated from the schemas', async () => {
    const doc = await admin.json<{ paths: Record<string, Record<string, { requestBody?: unknown }>> }>(
      'GET',
      '/api/docs/json',
    );
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/runs', '/api/specs/validate', '/api/runs/{id}/stop']),
    );
    expect(JSON.stringify(doc.paths['/api/users']?.post?.requestBody)).toContain('username');
    expect((await s.app.inject({ method: 'GET', url: '/api/docs/json' })).statusCode).toBe(401);
  });

  it('lists the metric library', async () => {
    const defs = await admin.json<{ id: string; name: string; unit: string }[]>(
      'GET',
      '/api/metric-definitions',
    );
    expect(defs.find((d) => d.id === 'throughput.mean')).toMatchObject({
      name: 'Mean throughput',
      unit: 'bit/s',
    });
  });
});

describe('web UI', () => {
  it('serves frontend/dist at / with the SPA fallback, without sign-in; /api stays guarded', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dist = mkdtempSync(join(tmpdir(), 'lfnlab-dist-'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>lfnlab ui</title>');
    writeFileSync(join(dist, 'app.js'), 'console.log(1)');
    const ui = await testServer({ staticDir: dist });
    try {
      const root = await ui.app.inject({ method: 'GET', url: '/' });
      expect(root.statusCode).toBe(200);
      expect(root.body).toContain('lfnlab ui');
      expect((await ui.app.inject({ method: 'GET', url: '/app.js' })).body).toContain('console.log');
      const deep = await ui.app.inject({ method: 'GET', url: '/runs/abc' });
      expect(deep.statusCode).toBe(200);
      expect(deep.body).toContain('lfnlab ui');
      expect((await ui.app.inject({ method: 'GET', url: '/api/nope' })).statusCode).toBe(401);
    } finally {
      await ui.close();
    }
  });
});
