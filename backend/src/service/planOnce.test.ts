// A run's plan is built once and handed to everything that needs it (storage's flow tags, the live
// feed, the lab driver, a partial summary): counted through a service run on the fake lab.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  adminClient,
  type Client,
  runEnded,
  SHORT_SPEC,
  type TestServer,
  testServer,
  userClient,
} from '../../test/support/testkit.js';

const calls = vi.hoisted(() => ({ buildPlan: 0 }));
vi.mock('@lfnlab/emulator', async (importOriginal) => {
  const real = await importOriginal<typeof import('@lfnlab/emulator')>();
  return {
    ...real,
    buildPlan: (...args: Parameters<typeof real.buildPlan>) => {
      calls.buildPlan += 1;
      return real.buildPlan(...args);
    },
  };
});

describe.each([
  ['a completed run', { fake: {}, status: 'completed', throwAtTraffic: false }],
  ['a run the lab fails half-way', { fake: { failAt: 0.5 }, status: 'failed', throwAtTraffic: false }],
  // No summary.json: the service writes a partial one from the samples, on the run's own plan.
  ['a run whose driver throws once traffic started', { fake: {}, status: 'failed', throwAtTraffic: true }],
])('%s through POST /api/runs and the fake lab', (_what, c) => {
  let s: TestServer;
  let student: Client;
  beforeAll(async () => {
    s = await testServer({ fake: c.fake });
    if (c.throwAtTraffic) {
      const run = s.driver.run.bind(s.driver);
      s.driver.run = (o) =>
        run({
          ...o,
          onEvent: (type, detail) => {
            o.onEvent(type, detail);
            if (type === 'traffic') throw new Error('the lab went away');
          },
        });
    }
    student = await userClient(s, await adminClient(s), 'planner', 'student');
  });
  afterAll(async () => {
    await s.close();
  });
  beforeEach(() => {
    calls.buildPlan = 0;
  });

  it('builds the plan once', async () => {
    const run = await student.json<{ id: string }>('POST', '/api/runs', { text: SHORT_SPEC });
    const ended = await runEnded(s, run.id);
    expect(ended.status).toBe(c.status);
    expect(calls.buildPlan).toBe(1);
  });
});
