// The OpenAPI document is complete: every operation documents a reply with a schema for each
// status it can give, one-of request rules are oneOf, and public operations need no credentials.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  type Client,
  SHORT_SPEC,
  type TestServer,
  testServer,
} from '../../test/support/testkit.js';

interface Operation {
  security?: unknown[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

let s: TestServer;
let admin: Client;
let doc: { paths: Record<string, Record<string, Operation>> };

beforeAll(async () => {
  s = await testServer();
  admin = await adminClient(s);
  doc = await admin.json('GET', '/api/docs/json');
});
afterAll(async () => {
  await s.close();
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method, op })),
  );

describe('OpenAPI document', () => {
  it('every operation documents a success and its error statuses, each with a schema', () => {
    expect(operations().length).toBeGreaterThan(30);
    for (const { key, method, op } of operations()) {
      const codes = Object.keys(op.responses);
      expect(
        codes.some((c) => c.startsWith('2')),
        key,
      ).toBe(true);
      for (const [code, r] of Object.entries(op.responses))
        expect(Object.values(r.content ?? {})[0]?.schema, `${key} ${code}`).toBeDefined();
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      if (!isPublic) expect(codes, key).toEqual(expect.arrayContaining(['401', '403']));
      if (['post', 'put', 'patch', 'delete'].includes(method))
        expect(codes, key).toEqual(expect.arrayContaining(['400', '413', '415']));
      if (key.includes('{')) expect(codes, key).toContain('404');
    }
    const publicOps = operations()
      .filter((o) => Array.isArray(o.op.security) && o.op.security.length === 0)
      .map((o) => o.key);
    expect(publicOps.sort()).toEqual(['GET /api/health', 'POST /api/auth/login']);
  });

  it('one-of request rules are oneOf', () => {
    const body = (key: string) =>
      operations().find((o) => o.key === key)?.op.requestBody?.content['application/json']?.schema;
    expect(body('POST /api/runs')?.oneOf).toHaveLength(3);
    expect(body('POST /api/specs/validate')?.oneOf).toHaveLength(2);
  });

  it('refuses a body that fits no alternative, naming the field', async () => {
    const both = await admin.req('POST', '/api/specs/validate', { text: SHORT_SPEC, spec: {} });
    expect(both.statusCode).toBe(400);
    expect(both.json().problems[0].path).toBe('spec');
    const neither = await admin.req('POST', '/api/runs', {});
    expect(neither.json().problems[0]).toEqual({
      path: 'text',
      message: 'give exactly one of text, specId or preset',
    });
    const wrong = await admin.req('POST', '/api/runs', { preset: 'x', shorten: 1 });
    expect(wrong.json().problems).toEqual([{ path: 'shorten', message: 'must be 2 to 3600 seconds' }]);
  });

  it('405 and OPTIONS list the methods of the route the path names', async () => {
    const o = await admin.req('OPTIONS', '/api/specs/validate');
    expect(o.statusCode).toBe(204);
    expect(o.headers.allow).toBe('POST, OPTIONS');
    const q = await s.app.inject({ method: 'QUERY' as 'GET', url: '/api/health' });
    expect(q.statusCode).toBe(405);
  });

  it('a wrong cookie beside a good token is refused, not ignored', async () => {
    const t = await admin.json<{ token: string }>('POST', '/api/tokens', { name: 'mix' });
    const r = await s.app.inject({
      method: 'GET',
      url: '/api/runs',
      headers: { authorization: `Bearer ${t.token}`, cookie: 'lfn_session=forged' },
    });
    expect(r.statusCode).toBe(401);
    // A proxy's own Basic sign-in beside the session cookie is not ours to judge.
    const basic = await s.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { authorization: 'Basic dXNlcjpwdw==', cookie: `lfn_session=${admin.cookie}` },
    });
    expect(basic.statusCode).toBe(200);
    const ok = await s.app.inject({
      method: 'GET',
      url: '/api/runs',
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(ok.statusCode).toBe(200);
  });
});
