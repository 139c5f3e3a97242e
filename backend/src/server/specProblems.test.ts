// One bad spec, three front doors: the CLI (`lfnlab validate`, `lfnlab campaign plan`), the API
// (POST /api/specs/validate, POST /api/runs) and, in frontend/src/designer/specResolver.test.ts, the
// UI designer all name the same fields with the same paths, because all use the emulator's one
// parse and one validation.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_YAML_ALIASES } from '@lfnlab/emulator';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { adminClient, type Client, type TestServer, testServer } from '../../test/support/testkit.js';
import { campaignCommand } from '../cli/campaignCommand.js';
import { validateCommand } from '../cli/miscCommands.js';

/** flows[1] names a stack there is none of; the main path's RTT is above its 5 s limit. */
const BAD_SPEC = `name: bad
duration: 10s
paths:
  main: { rtt: 9000ms, rate: 20Mbit }
flows:
  - { stack: reno }
  - { stack: tahoe }
`;
const BAD_PATHS = ['paths.main.rtt', 'flows.1.stack'];

const BAD_CAMPAIGN = `name: sweep
base:
  name: b
  duration: 10s
  paths: { main: { rtt: 20ms, rate: 20Mbit } }
  flows: [{ stack: reno }, { stack: cubic }]
vary:
  flows[1].stack: [cubic, tahoe]
order: sequential
`;

/** More aliases than the parser expands: refused before anything is built from it. */
const ALIASES = `name: &n x\nflows:\n${Array.from({ length: MAX_YAML_ALIASES + 1 }, () => '  - *n').join('\n')}\n`;

let s: TestServer;
let admin: Client;
let dir: string;

beforeAll(async () => {
  s = await testServer();
  admin = await adminClient(s);
  dir = mkdtempSync(join(tmpdir(), 'lfn-problems-'));
});
afterAll(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Run a CLI command on a file holding `text`: its exit code and the `  path: message` lines it printed. */
async function cli(run: (file: string) => Promise<number>, text: string) {
  const file = join(dir, `spec-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  const lines: string[] = [];
  const err = vi.spyOn(console, 'error').mockImplementation((m: unknown) => {
    lines.push(...String(m).split('\n'));
  });
  try {
    const code = await run(file);
    const problems = lines
      .map((l) => /^ {2}(\S+): (.*)$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => ({ path: m[1] as string, message: m[2] as string }));
    return { code, problems };
  } finally {
    err.mockRestore();
  }
}

const validate = (text: string) => cli((f) => validateCommand.run({}, [f]), text);
const plan = (text: string) => cli((f) => campaignCommand.run({}, ['plan', f]), text);

describe('one spec, one problem shape, CLI and API', () => {
  it('names flows.1.stack and paths.main.rtt, with what is allowed, the same in the CLI and the API', async () => {
    const c = await validate(BAD_SPEC);
    expect(c.code).toBe(2);
    expect(c.problems.map((p) => p.path).sort()).toEqual([...BAD_PATHS].sort());
    expect(c.problems.find((p) => p.path === 'flows.1.stack')?.message).toMatch(
      /tahoe.*available: reno, cubic/,
    );
    expect(c.problems.find((p) => p.path === 'paths.main.rtt')?.message).toMatch(/between 0ms and 5s/);

    const checked = await admin.json<{ ok: boolean; problems: unknown[] }>('POST', '/api/specs/validate', {
      text: BAD_SPEC,
    });
    expect(checked).toEqual({ ok: false, problems: expect.arrayContaining(c.problems) });
    expect(checked.problems).toHaveLength(c.problems.length);

    const run = await admin.req('POST', '/api/runs', { text: BAD_SPEC });
    expect(run.statusCode).toBe(400);
    expect(run.json()).toMatchObject({
      error: expect.any(String),
      problems: expect.arrayContaining(c.problems),
    });
  });

  it('a campaign variant: base.flows.1.stack in both, and the API never queues it', async () => {
    const c = await plan(BAD_CAMPAIGN);
    expect(c.code).toBe(2);
    expect(c.problems.map((p) => p.path)).toEqual(['base.flows.1.stack']);
    expect(c.problems[0]?.message).toMatch(/available: reno.*\(with flows\[1\]\.stack="tahoe"\)/);

    const checked = await admin.json<{ ok: boolean }>('POST', '/api/specs/validate', {
      text: BAD_CAMPAIGN,
      kind: 'campaign',
    });
    expect(checked).toEqual({ ok: false, problems: c.problems });
  });

  it('a text with too many aliases: refused by the CLI as by the API (at the text)', async () => {
    const c = await validate(ALIASES);
    expect(c.code).toBe(2);
    expect(c.problems).toEqual([{ path: '(spec)', message: expect.stringMatching(/^not valid YAML\/JSON/) }]);
    const checked = await admin.json<{ ok: boolean; problems: { path: string; message: string }[] }>(
      'POST',
      '/api/specs/validate',
      { text: ALIASES },
    );
    expect(checked.problems).toEqual([{ path: 'text', message: c.problems[0]?.message }]);
  });
});
