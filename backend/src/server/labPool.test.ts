// `lfnlab serve --labs 2` (fake labs): runs that name no lab join the shorter line, both labs run
// at once, a run that names its lab stays there, and the labs page lists the pool before any boot.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  type Client,
  runEnded,
  SHORT_SPEC,
  type TestServer,
  testServer,
} from '../../test/support/testkit.js';
import type { Run } from '../service/types.js';

const POOL = ['default', 'default-2'];
let s: TestServer;
let admin: Client;

beforeAll(async () => {
  s = await testServer({ labPool: POOL, fake: { labs: POOL } });
  admin = await adminClient(s);
});
afterAll(async () => {
  await s.close();
});

describe('a pool of two labs', () => {
  it('lists both labs before either has booted', async () => {
    const labs = await admin.json<{ name: string }[]>('GET', '/api/labs');
    expect(labs.map((l) => l.name)).toEqual(POOL);
  });

  it('spreads runs that name no lab over both, runs them side by side, and keeps a named lab', async () => {
    const started: Run[] = [];
    for (let i = 0; i < 4; i++)
      started.push(await admin.json<Run>('POST', '/api/runs', { text: SHORT_SPEC }));
    expect(started.map((r) => r.lab)).toEqual(['default', 'default-2', 'default', 'default-2']);
    const named = await admin.json<Run>('POST', '/api/runs', { text: SHORT_SPEC, lab: 'default-2' });
    expect(named.lab).toBe('default-2');
    const ended = await Promise.all([...started, named].map((r) => runEnded(s, r.id)));
    expect(ended.map((r) => r.status)).toEqual([
      'completed',
      'completed',
      'completed',
      'completed',
      'completed',
    ]);
    // Side by side: some run on one lab started before a run on the other had finished.
    const [a, b] = ended;
    expect(Date.parse(b?.startedAt ?? '')).toBeLessThan(Date.parse(a?.finishedAt ?? ''));
  });
});
