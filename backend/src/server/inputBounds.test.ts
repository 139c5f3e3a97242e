// Issue 12's input findings, each at its root: prototype pollution through campaign keys, a flow's
// path naming an inherited key, quotas and resource bounds from a spec's effective load, campaign
// expansion bounded and yielding, and a run whose planning throws ending as failed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  type Client,
  runEnded,
  SHORT_SPEC,
  type TestServer,
  testServer,
  userClient,
} from '../../test/support/testkit.js';
import { runCommand } from '../cli/runCommand.js';
import { Storage } from '../storage/runStorage.js';
import { hostLabCapacity } from './plugins/labs.js';

let s: TestServer;
let admin: Client;
let student: Client;

beforeAll(async () => {
  s = await testServer();
  admin = await adminClient(s);
  student = await userClient(s, admin, 'probe', 'student');
});
afterAll(async () => {
  await s.close();
});

type Problems = { path: string; message: string }[];
const base = {
  name: 'c',
  base: {
    name: 'b',
    duration: '4s',
    paths: { main: { rtt: '20ms', rate: '20Mbit' } },
    flows: [{ stack: 'reno' }],
  },
};

describe('prototype pollution', () => {
  it('a campaign vary key cannot reach a prototype, and validation keeps working afterwards', async () => {
    const r = await student.req('POST', '/api/specs/validate', {
      kind: 'campaign',
      spec: { ...base, vary: { '__proto__.public': [true] } },
    });
    expect(r.statusCode).toBe(200);
    const body = r.json() as { ok: boolean; problems: Problems };
    expect(body.ok).toBe(false);
    expect(body.problems[0]?.path).toMatch(/^vary/);
    expect(body.problems[0]?.message).toMatch(/__proto__.*not a spec field/);
    expect(({} as Record<string, unknown>).public).toBeUndefined();
    for (const key of ['constructor.prototype.x', 'paths.__proto__.polluted', 'flows[0].__proto__.x'])
      expect(
        (
          (await student.json('POST', '/api/specs/validate', {
            kind: 'campaign',
            spec: { ...base, vary: { [key]: [1] } },
          })) as { ok: boolean }
        ).ok,
      ).toBe(false);
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(
      (
        (await student.json('POST', '/api/specs/validate', { kind: 'spec', text: SHORT_SPEC })) as {
          ok: boolean;
        }
      ).ok,
    ).toBe(true);
    // Anonymous requests are still refused: the pollution that turned the checks off is gone.
    expect((await s.app.inject({ method: 'GET', url: '/api/quotas' })).statusCode).toBe(401);
  });

  it('a vary key must name a spec field', async () => {
    const r = (await student.json('POST', '/api/specs/validate', {
      kind: 'campaign',
      spec: { ...base, vary: { 'paths.main.nope': [1], 'flows[0].stack': ['cubic'] } },
    })) as { ok: boolean; problems: Problems };
    expect(r.ok).toBe(false);
    expect(r.problems.map((p) => p.message).join(' ')).toMatch(/paths.main.nope is not a spec field/);
  });
});

describe('a flow path naming an inherited key', () => {
  for (const path of ['constructor', 'toString', 'hasOwnProperty'])
    it(`path: ${path} is a bad spec: 400 from the API, exit 2 from the CLI`, async () => {
      const text = `name: p\nduration: 4s\npaths:\n  main: { rtt: 20ms, rate: 20Mbit }\nflows:\n  - { stack: reno, path: ${path} }\n`;
      const r = await student.req('POST', '/api/runs', { text });
      expect(r.statusCode).toBe(400);
      expect((r.json().problems as Problems)[0]).toMatchObject({ path: 'flows.0.path' });
      expect((r.json().problems as Problems)[0]?.message).toMatch(/unknown path.*defined: main/);
      const dir = mkdtempSync(join(tmpdir(), 'lfnlab-bounds-'));
      writeFileSync(join(dir, 'p.yaml'), text);
      expect(await runCommand.run({ 'dry-run': true }, [join(dir, 'p.yaml')])).toBe(2);
    });
});

describe('effective load', () => {
  const spec = (extra: string, flows = '  - { stack: reno }') =>
    `name: q\nduration: 10s\npaths:\n  main: { rtt: 20ms, rate: 20Mbit${extra} }\nflows:\n${flows}\n`;
  const refused = async (text: string, status: number) => {
    const r = await student.req('POST', '/api/runs', { text });
    expect(r.statusCode, r.body).toBe(status);
    return r.json().problems as Problems;
  };

  it('quotas count scheduled rate changes, UDP cross traffic and blast transports, naming the field', async () => {
    expect((await refused(spec(', changes: [{ at: 2s, rate: 10Gbit }]'), 403))[0]).toMatchObject({
      path: 'paths.main.changes.0.rate',
    });
    const cross = Array.from({ length: 8 }, () => '{ pattern: cbr, rate: 10Gbit }').join(', ');
    const c = await refused(spec(`, cross: [${cross}]`), 403);
    expect(c[0]?.path).toMatch(/^paths\.main\.cross/);
    expect(c[0]?.message).toMatch(/above the student quota of \d+ Mbit\/s/);
    const blast = await refused(spec('', '  - { transport: rbudp, bytes: 1000GB, rate: 10Gbit }'), 403);
    expect(blast.map((p) => p.path)).toContain('flows.0.rate');
  });

  it('streams count against the flow quota', async () => {
    const p = await refused(
      spec('', Array.from({ length: 4 }, () => '  - { stack: reno, streams: 64 }').join('\n')),
      403,
    );
    expect(p.find((x) => x.path === 'flows')?.message).toMatch(/256 TCP connections/);
  });

  it('what no lab can hold is a bad spec for everyone, named by field', async () => {
    const deep = await refused(
      'name: d\nduration: 10s\npaths:\n  main: { rtt: 5000ms, rate: 100Mbit, buffer: 100bdp }\nflows:\n  - { stack: reno }\n',
      400,
    );
    expect(deep[0]).toMatchObject({ path: 'paths.main.buffer' });
    expect(deep[0]?.message).toMatch(/MiB.*at most 1024 MiB/);
    const window = await refused(
      'name: w\nduration: 10s\nmtu: 9000\npaths:\n  main: { rtt: 20ms, rate: 20Mbit }\nflows:\n  - { stack: reno, window: 1000000 }\n',
      400,
    );
    expect(window.map((p) => p.path)).toContain('flows.0.window');
    const admins = await admin.req('POST', '/api/specs/validate', {
      kind: 'spec',
      text: 'name: d\nduration: 10s\npaths:\n  main: { rtt: 5000ms, rate: 100Mbit, buffer: 100bdp }\nflows:\n  - { stack: reno }\n',
    });
    expect(admins.json().ok).toBe(false);
  });

  it('sysctl values and keys are plain: no 1e+30, no empty or option-like names', async () => {
    for (const sysctls of [
      '{ sender: { net.ipv4.tcp_ecn: 1e+30 } }',
      '{ sender: { "net..x": 1 } }',
      '{ sender: { net.-a: 1 } }',
    ]) {
      const r = (await student.json('POST', '/api/specs/validate', {
        kind: 'spec',
        text: `${SHORT_SPEC}sysctls: ${sysctls}\n`,
      })) as { ok: boolean; problems: Problems };
      expect(r.ok, sysctls).toBe(false);
      expect(r.problems[0]?.path).toMatch(/^sysctls\.sender/);
    }
  });
});

describe('campaign expansion', () => {
  it('refuses a campaign over the variant cap at once, naming vary and the count', async () => {
    const vary = Object.fromEntries(
      ['paths.main.rtt', 'paths.main.rate', 'flows[0].stack', 'seed', 'sampleHz'].map((k, i) => [
        k,
        Array.from({ length: 10 }, (_, j) =>
          i === 0 ? `${10 + j}ms` : i === 1 ? `${10 + j}Mbit` : i === 2 ? 'reno' : i === 3 ? j : j + 1,
        ),
      ]),
    );
    const t = Date.now();
    const r = (await student.json('POST', '/api/specs/validate', {
      kind: 'campaign',
      spec: { ...base, vary },
    })) as {
      ok: boolean;
      problems: Problems;
    };
    expect(r.ok).toBe(false);
    expect(r.problems[0]).toMatchObject({ path: 'vary' });
    expect(r.problems[0]?.message).toMatch(/100000 variants; at most 2000/);
    expect(Date.now() - t).toBeLessThan(2000);
  });

  it('a big campaign expands without holding up other requests', async () => {
    const vary = {
      'paths.main.rtt': Array.from({ length: 40 }, (_, j) => `${10 + j}ms`),
      seed: Array.from({ length: 40 }, (_, j) => j),
    };
    const order: string[] = [];
    const expansion = student
      .req('POST', '/api/specs/validate', { kind: 'campaign', spec: { ...base, vary } })
      .then((r) => {
        order.push('campaign');
        return r;
      });
    // Sent after the expansion started: it is answered while the 1600 variants are still being built.
    await new Promise<void>((r) => setImmediate(r));
    const health = s.app.inject({ method: 'GET', url: '/api/health' }).then((r) => {
      order.push('health');
      return r;
    });
    const [c, h] = await Promise.all([expansion, health]);
    expect(h.statusCode).toBe(200);
    expect((c.json() as { variants: unknown[] }).variants).toHaveLength(1600);
    expect(order).toEqual(['health', 'campaign']);
  });
});

describe('a run whose preparation throws', () => {
  it('ends failed instead of staying running, and frees its owner quota', async () => {
    // Storage that fails when a run starts: anything between validation and the driver may throw.
    const broken = await Storage.open({ url: null, spoolDir: mkdtempSync(join(tmpdir(), 'sp-')) });
    broken.forRun = () => {
      throw new Error('storage exploded');
    };
    const t = await testServer({ storage: broken });
    try {
      const a = await adminClient(t);
      const st = await userClient(t, a, 'unlucky', 'student');
      const run = await st.json<{ id: string }>('POST', '/api/runs', { text: SHORT_SPEC });
      const ended = await runEnded(t, run.id);
      expect(ended.status).toBe('failed');
      expect(ended.error).toMatch(/storage exploded/);
      // Its quota is free again: the next run is accepted.
      expect((await st.req('POST', '/api/runs', { text: SHORT_SPEC })).statusCode).toBe(202);
    } finally {
      await t.close();
    }
  });
});

describe('lab boots', () => {
  it('an instructor cannot boot more lab VMs than the host holds', async () => {
    const teacher = await userClient(s, admin, 'teacher', 'instructor');
    const cap = hostLabCapacity();
    const codes: number[] = [];
    for (let i = 0; i <= cap; i++)
      codes.push((await teacher.req('POST', `/api/labs/extra${i}/boot`)).statusCode);
    expect(codes.slice(0, -1).every((c) => c === 202 || c === 409)).toBe(true);
    const last = await teacher.req('POST', `/api/labs/extra${cap}/boot`);
    expect(last.statusCode).toBe(409);
    expect(last.json().error).toMatch(/at most \d+ lab VM/);
  });
});
