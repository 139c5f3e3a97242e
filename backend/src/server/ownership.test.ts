// Records belong to user ids: a new account with a deleted account's name owns none of its runs
// or specs, and data from before ids is migrated to the id of the account that had the name.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  type Client,
  login,
  passwordOf,
  runEnded,
  SHORT_SPEC,
  type TestServer,
  testServer,
  userClient,
} from '../../test/support/testkit.js';
import type { Run, StoredSpec } from '../service/types.js';

let s: TestServer;
let admin: Client;

beforeAll(async () => {
  s = await testServer({ fake: { timeScale: 50 } });
  admin = await adminClient(s);
});
afterAll(async () => {
  await s.close();
});

describe('ownership by user id', () => {
  it('a new bob sees none of the deleted bob’s runs and specs; nor does his instructor', async () => {
    const oldBob = await userClient(s, admin, 'bob', 'student', 'net101');
    const teacher = await userClient(s, admin, 'teach', 'instructor', 'net101');
    const run = await oldBob.json<Run>('POST', '/api/runs', { text: SHORT_SPEC });
    await runEnded(s, run.id);
    const spec = await oldBob.json<StoredSpec>('POST', '/api/specs', {
      name: 'b',
      kind: 'spec',
      text: SHORT_SPEC,
    });
    const oldId = (await oldBob.json<{ user: { id: string } }>('GET', '/api/auth/me')).user.id;
    expect((await teacher.json<{ runs: Run[] }>('GET', '/api/runs')).runs.map((r) => r.id)).toContain(run.id);

    await admin.json('DELETE', `/api/users/${oldId}`);
    const newBob = await userClient(s, admin, 'bob', 'student', 'net101');
    expect((await newBob.json<{ runs: Run[] }>('GET', '/api/runs')).runs).toEqual([]);
    expect(await newBob.json<StoredSpec[]>('GET', '/api/specs')).toEqual([]);
    expect((await newBob.req('GET', `/api/runs/${run.id}`)).statusCode).toBe(404);
    expect((await newBob.req('GET', `/api/specs/${spec.id}`)).statusCode).toBe(404);
    expect((await newBob.req('POST', '/api/runs', { specId: spec.id })).statusCode).toBe(404);
    expect((await teacher.json<{ runs: Run[] }>('GET', '/api/runs')).runs.map((r) => r.id)).not.toContain(
      run.id,
    );
    // The admin still sees the old records, shown under the old name.
    const kept = await admin.json<Run>('GET', `/api/runs/${run.id}`);
    expect(kept).toMatchObject({ owner: 'bob', ownerId: oldId });
  });

  it('migrates specs.json and service.json written before ids to the id the name had', async () => {
    const carol = await userClient(s, admin, 'carol', 'student');
    const carolId = (await carol.json<{ user: { id: string } }>('GET', '/api/auth/me')).user.id;
    const run = await carol.json<Run>('POST', '/api/runs', { text: SHORT_SPEC });
    await runEnded(s, run.id);
    await s.close();
    // Rewrite the records the way the service wrote them before ids.
    const serviceFile = join(s.dirs.runs, run.id, 'service.json');
    const old = JSON.parse(readFileSync(serviceFile, 'utf8'));
    delete old.ownerId;
    writeFileSync(serviceFile, JSON.stringify(old));
    const legacySpec = {
      id: 'legacy1',
      name: 'old',
      kind: 'spec',
      text: SHORT_SPEC,
      owner: 'carol',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    writeFileSync(join(s.dirs.data, 'specs.json'), JSON.stringify([legacySpec]));

    s = await testServer({ dirs: s.dirs, fake: { timeScale: 50 } });
    expect(existsSync(join(s.dirs.data, 'specs.json'))).toBe(false);
    expect(JSON.parse(readFileSync(serviceFile, 'utf8')).ownerId).toBe(carolId);
    const carolAgain = await login(s, 'carol', passwordOf('carol'));
    expect((await carolAgain.json<{ runs: Run[] }>('GET', '/api/runs')).runs.map((r) => r.id)).toEqual([
      run.id,
    ]);
    expect((await carolAgain.json<StoredSpec[]>('GET', '/api/specs')).map((x) => x.ownerId)).toEqual([
      carolId,
    ]);
  });
});
