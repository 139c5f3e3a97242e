// The service with a stack added (as `lfnlab serve` registers the registry at start): the API's
// validation accepts it, refuses an unknown stack naming the field and every allowed name, the
// stack list the designer's schema reads has it with its parameters, and the lab list offers it.
import { registerStacks } from '@lfnlab/emulator';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { adminClient, type Client, type TestServer, testServer } from '../../test/support/testkit.js';

let s: TestServer;
let admin: Client;

beforeAll(async () => {
  registerStacks([
    {
      name: 'lfnvendor',
      module: 'tcp_lfnvendor',
      family: 'loss',
      sourceHash: 'ab'.repeat(32),
      params: [{ name: 'beta_pct', type: 'int', default: 50, description: 'share kept on a loss' }],
    },
  ]);
  s = await testServer();
  admin = await adminClient(s);
});
afterAll(async () => {
  await s.close();
  registerStacks([]);
});

const spec = (stack: string) =>
  `name: v\nduration: 4s\npaths: { main: { rtt: 20ms, rate: 20Mbit } }\nflows: [{ stack: ${stack} }]\n`;

describe('an added stack in the service', () => {
  it('passes the API validation; an unknown one names the field and lists the added one too', async () => {
    const good = await admin.json<{ ok: boolean }>('POST', '/api/specs/validate', {
      text: spec('lfnvendor'),
    });
    expect(good.ok).toBe(true);
    // Its own module parameter too, within its type's range.
    const param = (v: number) =>
      admin.json<{ ok: boolean; problems?: { path: string; message: string }[] }>(
        'POST',
        '/api/specs/validate',
        {
          text: `${spec('lfnvendor')}stackParams: { lfnvendor: { beta_pct: ${v} } }\n`,
        },
      );
    expect((await param(70)).ok).toBe(true);
    expect((await param(2 ** 31)).problems?.[0]).toMatchObject({ path: 'stackParams.lfnvendor.beta_pct' });
    const bad = await admin.json<{ ok: boolean; problems: { path: string; message: string }[] }>(
      'POST',
      '/api/specs/validate',
      { text: spec('tahoe') },
    );
    expect(bad.problems).toEqual([
      {
        path: 'flows.0.stack',
        message: expect.stringMatching(/^unknown stack "tahoe"; available: reno, .*, grid, lfnvendor$/),
      },
    ]);
  });

  it('is in the stacks GET /api/stacks lists, with its parameters, while the lab is down', async () => {
    const [lab] = await admin.json<{ state: string }[]>('GET', '/api/labs');
    expect(lab?.state).toBe('down');
    const stacks = await admin.json<{ name: string; origin: string; params?: unknown[] }[]>(
      'GET',
      '/api/stacks',
    );
    expect(stacks.map((x) => x.name).slice(-2)).toEqual(['grid', 'lfnvendor']);
    expect(stacks.find((x) => x.name === 'reno')).toEqual({
      name: 'reno',
      origin: 'mainline',
      family: 'loss',
    });
    // With its settable parameters, so the designer's copy of the schema accepts a spec setting them.
    expect(stacks.at(-1)).toEqual({
      name: 'lfnvendor',
      origin: 'added',
      family: 'loss',
      params: [{ name: 'beta_pct', type: 'int', default: 50, description: 'share kept on a loss' }],
    });
  });

  it('is in the stacks GET /api/labs reports (what the designer offers)', async () => {
    expect((await admin.req('POST', '/api/labs/default/boot')).statusCode).toBe(202);
    // The fake lab reports its stacks once it is up, as the real one does.
    const lab = await vi.waitFor(async () => {
      const [l] = await admin.json<{ state: string; stacks: string[] }[]>('GET', '/api/labs');
      expect(l?.state).toBe('ready');
      return l;
    });
    expect(lab?.stacks).toContain('lfnvendor');
  });
});
