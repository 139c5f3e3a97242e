// lfnlab stack add | list | remove through the CLI's own entry point, on a throw-away data dir:
// what it prints, what it refuses, and that an added stack becomes a valid stack everywhere.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { knownStackNames, registerStacks, validateSpec } from '@lfnlab/emulator';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { captureConsole } from '../../test/support/consoleCapture.js';
import { main } from './main.js';
import { selftestFamilies } from './selftestCommand.js';

const FIXTURE = fileURLToPath(new URL('../../test/fixtures/vendor-stack', import.meta.url));

let tmp: string;
let out: string[];
let err: string[];
const saved = process.env.LFNLAB_DATA;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'lfnlab-stackcmd-'));
  process.env.LFNLAB_DATA = join(tmp, 'data');
  ({ out, err } = captureConsole());
});
afterEach(() => {
  vi.restoreAllMocks();
  registerStacks([]);
  rmSync(tmp, { recursive: true, force: true });
  if (saved === undefined) delete process.env.LFNLAB_DATA;
  else process.env.LFNLAB_DATA = saved;
});

const spec = (stack: string) => ({
  name: 'x',
  duration: '10s',
  paths: { p: { rtt: '20ms', rate: '50Mbit' } },
  flows: [{ stack }],
});

describe('lfnlab stack', () => {
  it('adds the fixture, lists it with its hash and origin, and the next command accepts its name', async () => {
    expect(await main(['stack', 'add', FIXTURE, '--no-build'])).toBe(0);
    expect(out.join('\n')).toMatch(/^stack lfnvendor: added$/m);
    expect(out.join('\n')).toMatch(/module {3}tcp_lfnvendor\.ko \(family loss\)/);
    out.length = 0;
    expect(await main(['stack', 'list'])).toBe(0);
    const row = out
      .join('\n')
      .split('\n')
      .find((l) => l.startsWith('lfnvendor'));
    expect(row).toMatch(
      new RegExp(`^lfnvendor\\s+tcp_lfnvendor\\s+loss\\s+[0-9a-f]{12}\\s+added from ${FIXTURE}`),
    );
    expect(out.join('\n')).toMatch(/^fast\s+tcp_fast\s+delay\s+[0-9a-f]{12}\s+out-of-tree/m);
    expect(out.join('\n')).toMatch(/^cubic\s+\(built in\)\s+loss\s+-\s+mainline kernel/m);
    // main() registered the registry's stacks: the schema takes the name now.
    expect(knownStackNames()).toContain('lfnvendor');
    expect(validateSpec(spec('lfnvendor')).ok).toBe(true);
    out.length = 0;
    expect(await main(['stack', 'list', '--json'])).toBe(0);
    const listed = JSON.parse(out.join('\n')) as {
      name: string;
      origin: string;
      sourceHash: string | null;
    }[];
    expect(listed.find((s) => s.name === 'lfnvendor')).toMatchObject({ origin: 'added' });
    expect(listed.find((s) => s.name === 'lfnvendor')?.sourceHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('adding again is a no-op; changed sources are an update with both hashes', async () => {
    const dir = join(tmp, 'vendor');
    cpSync(FIXTURE, dir, { recursive: true });
    await main(['stack', 'add', dir, '--no-build']);
    out.length = 0;
    await main(['stack', 'add', dir, '--no-build']);
    expect(out[0]).toBe('stack lfnvendor: already added with these sources: nothing changed');
    const c = join(dir, 'tcp_lfnvendor.c');
    writeFileSync(c, readFileSync(c, 'utf8').replace('/ 100U', '/ 101U'));
    out.length = 0;
    await main(['stack', 'add', dir, '--no-build']);
    expect(out[0]).toMatch(/^stack lfnvendor: updated \(sources changed: [0-9a-f]{12} → [0-9a-f]{12}\)$/);
  });

  it('refuses a clash with a built-in name clearly, and exits 2', async () => {
    const dir = join(tmp, 'vendor');
    cpSync(FIXTURE, dir, { recursive: true });
    const c = join(dir, 'tcp_lfnvendor.c');
    writeFileSync(c, readFileSync(c, 'utf8').replace('"lfnvendor"', '"bbr"'));
    expect(await main(['stack', 'add', dir, '--no-build'])).toBe(2);
    expect(err.join('\n')).toMatch(/registers "bbr", which is one of the lab's own stacks/);
    expect(await main(['stack', 'add', join(tmp, 'nowhere')])).toBe(2);
    expect(err.join('\n')).toMatch(/nowhere is not a directory/);
  });

  it('removes an added stack, and refuses to remove a built-in one', async () => {
    await main(['stack', 'add', FIXTURE, '--no-build']);
    expect(await main(['stack', 'remove', 'lfnvendor'])).toBe(0);
    expect(await main(['stack', 'remove', 'lfnvendor'])).toBe(1);
    expect(err.join('\n')).toMatch(/no added stack lfnvendor; added: none/);
    expect(await main(['stack', 'remove', 'cubic'])).toBe(64);
    expect(err.join('\n')).toMatch(/cubic is one of the lab's own stacks/);
    expect(await main(['stack', 'list'])).toBe(0);
    expect(knownStackNames()).not.toContain('lfnvendor');
  });

  it('selftest --stacks takes an added stack, and --family only for added ones', async () => {
    await main(['stack', 'add', FIXTURE, '--no-build', '--family', 'delay']);
    expect(selftestFamilies(undefined, ['lfnvendor'])).toBeUndefined();
    expect(selftestFamilies('loss', ['lfnvendor'])).toEqual({ lfnvendor: 'loss' });
    expect(() => selftestFamilies('delay', ['lfnvendor', 'vegas'])).toThrow(
      /added stacks only; vegas is the lab's own/,
    );
    expect(() => selftestFamilies('fluid', ['lfnvendor'])).toThrow(
      /--family must be one of loss, delay, hybrid, model/,
    );
    expect(await main(['selftest', '--stacks', 'nosuch', '--out', join(tmp, 'runs')])).toBe(64);
    expect(err.join('\n')).toMatch(/--stacks: unknown nosuch; known: reno, .*, lfnvendor/);
  });
});
