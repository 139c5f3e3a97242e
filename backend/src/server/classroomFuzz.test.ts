// The classroom routes under malformed input: random JSON, the routes' own field names with wrong
// values, truncated bodies. Never a 5xx; every 400 and 403 names the field it is about.

import { seededUniform } from '@lfnlab/metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  type Client,
  type TestServer,
  testServer,
  userClient,
} from '../../test/support/testkit.js';

let s: TestServer;
let teacher: Client;
let student: Client;
let classId: string;
let assignmentId: string;

beforeAll(async () => {
  s = await testServer({ fake: { timeScale: 60 } });
  const admin = await adminClient(s);
  teacher = await userClient(s, admin, 'fz-teach', 'instructor');
  classId = (await teacher.json<{ id: string }>('POST', '/api/classes', { name: 'fz101' })).id;
  student = await userClient(s, admin, 'fz-kid', 'student', 'fz101');
  assignmentId = (
    await teacher.json<{ id: string }>('POST', '/api/assignments', { classId, sheetId: 'reverse-traffic' })
  ).id;
});
afterAll(async () => {
  await s.close();
});

const FIELD_NAMES = [
  'name',
  'csv',
  'quota',
  'instructors',
  'classId',
  'sheetId',
  'sheet',
  'due',
  'prediction',
  'values',
  'answers',
  'template',
  'checkpoints',
  'fields',
  'check',
  'paths.main.rtt',
  'flows.0.stack',
];

function junk(rnd: () => number, depth = 0): unknown {
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)] as T;
  const r = rnd();
  if (depth > 2 || r < 0.3)
    return pick<unknown>([
      null,
      true,
      -1,
      0,
      1e308,
      3.5,
      '',
      ' ',
      'x'.repeat(300),
      '\u0000',
      'net 101',
      'jain( >=',
      '1 + 1',
      'share("reno") > 0.5',
      'line,with,"quotes\nand\nnewlines',
    ]);
  if (r < 0.55) return Array.from({ length: Math.floor(rnd() * 4) }, () => junk(rnd, depth + 1));
  return Object.fromEntries(
    Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => [pick(FIELD_NAMES), junk(rnd, depth + 1)]),
  );
}

describe('classroom routes under malformed input', () => {
  it('600 random bodies: no 5xx, every 400/403 names a field', async () => {
    const rnd = seededUniform(17);
    const targets: Array<[Client, string, string]> = [
      [teacher, 'POST', '/api/classes'],
      [teacher, 'PATCH', `/api/classes/${classId}`],
      [teacher, 'POST', `/api/classes/${classId}/students`],
      [teacher, 'POST', '/api/assignments'],
      [student, 'POST', `/api/assignments/${assignmentId}/runs`],
      [student, 'PUT', `/api/assignments/${assignmentId}/answers`],
    ];
    const seen = new Map<number, number>();
    for (let i = 0; i < 600; i++) {
      const [who, method, url] = targets[i % targets.length] as [Client, string, string];
      const body = JSON.stringify(junk(rnd));
      const payload = rnd() < 0.15 ? body.slice(0, Math.floor(rnd() * body.length)) || '{' : body;
      const res = await who.req(method, url, payload, { 'content-type': 'application/json' });
      seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1);
      expect(
        res.statusCode,
        `${method} ${url} ${payload.slice(0, 200)} → ${res.body.slice(0, 300)}`,
      ).toBeLessThan(500);
      if (res.statusCode === 400 || res.statusCode === 403) {
        const problems = (res.json() as { problems?: { path: string }[] }).problems ?? [];
        expect(
          problems.length,
          `${method} ${url} ${payload.slice(0, 100)} → ${res.body.slice(0, 200)}`,
        ).toBeGreaterThan(0);
        for (const p of problems) expect(p.path).not.toBe('');
      }
    }
    expect(seen.get(400) ?? 0).toBeGreaterThan(300);
  });
});
