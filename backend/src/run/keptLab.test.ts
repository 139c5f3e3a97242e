// A campaign's runs on a stub lab (no qemu): the second run of a topology starts on the dumbbell and
// calibration the first left, verified by its own idle-RTT probe; a drifted calibration, another
// topology or a run that was not valid makes the next run build and calibrate afresh; closing the
// campaign's hold tears the dumbbell down and releases the channel.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSpecText } from '@lfnlab/emulator';
import type { Channel } from '@lfnlab/lab-images';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StubAgent } from '../../test/support/stubAgent.js';
import { KeptLab } from './keptLab.js';
import { runExperiment } from './runExperiment.js';

const stub = vi.hoisted(() => ({ channel: null as unknown, connects: 0, verdict: 'valid' }));

vi.mock('@lfnlab/lab-images', async (importOriginal) => {
  const real = await importOriginal<typeof import('@lfnlab/lab-images')>();
  const { STUB_IMAGE, STUB_LAB } = await import('../../test/support/stubAgent.js');
  return {
    ...real,
    ensureImage: async () => STUB_IMAGE,
    labUp: async () => STUB_LAB,
    connectLab: async () => {
      stub.connects += 1;
      return stub.channel;
    },
  };
});

// A stub lab samples nothing, so its verdict is decided here: the reuse rules read only the verdict.
vi.mock('./fidelity.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('./fidelity.js')>();
  return {
    ...real,
    fidelity: () =>
      real.verdictOf(
        stub.verdict === 'valid'
          ? []
          : [{ id: 'stub', status: 'warn', measured: null, expected: '-', message: 'a stub warning' }],
      ),
  };
});

const spec = (stack: string, rate = '20Mbit') =>
  parseSpecText(`
name: kept
duration: 5s
paths:
  main: { rtt: 40ms, rate: ${rate} }
flows:
  - { stack: ${stack} }
`);

const read = (dir: string, f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8'));

describe('runs of a campaign on a kept dumbbell (stub lab)', () => {
  let root: string;
  let agent: StubAgent;
  let keep: KeptLab;
  const dirs: string[] = [];
  const run = async (stack: string, rate?: string) => {
    const outDir = join(root, `run${dirs.length + 1}`);
    dirs.push(outDir);
    const before = agent.commands.length;
    const { summary } = await runExperiment({ spec: spec(stack, rate), outDir, log: () => undefined, keep });
    const lines = agent.commands.slice(before).map((c) => c.line);
    return { summary, outDir, lines };
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'lfnlab-kept-'));
    dirs.length = 0;
    stub.connects = 0;
    stub.verdict = 'valid';
    // Every idle-RTT probe (ping -q) of the one path, configured at 40 ms.
    agent = new StubAgent((argv) => (argv.includes('ping') && argv.includes('-q') ? 40 : undefined));
    stub.channel = agent as unknown as Channel;
    keep = new KeptLab();
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('builds once, then reuses dumbbell and calibration, recording where they came from', async () => {
    const first = await run('reno');
    expect(first.summary.reuse).toBeUndefined();
    expect(first.lines.filter((l) => l.startsWith('ip netns add')).length).toBeGreaterThan(0);
    expect(agent.resets).toBe(1);
    expect(first.lines.some((l) => l.startsWith('ip netns del'))).toBe(false);

    const second = await run('cubic');
    expect(second.summary.status).toBe('completed');
    // Nothing rebuilt, reset, recalibrated or torn down; the idle RTT measured again.
    expect(second.lines.some((l) => l.startsWith('ip netns add'))).toBe(false);
    expect(second.lines.some((l) => l.includes('qdisc change'))).toBe(false);
    expect(second.lines.some((l) => l.includes('sysctl -a'))).toBe(false);
    expect(second.lines.filter((l) => l.includes('ping') && l.includes('-q'))).toHaveLength(1);
    expect(agent.resets).toBe(1);
    expect(stub.connects).toBe(1);
    expect(second.summary.reuse).toEqual({
      from: first.outDir,
      calibratedBy: first.outDir,
      sysctlsRewritten: 0,
      hostStateReadIn: first.outDir,
    });
    expect(read(second.outDir, 'summary.json').reuse.from).toBe(first.outDir);
    expect(read(second.outDir, 'calibration.json').main).toMatchObject({
      excessMs: expect.closeTo(1.3, 6),
      reusedFrom: first.outDir,
    });
    expect(read(second.outDir, 'idle-rtt.json').main.minMs).toBe(40);
    expect(read(second.outDir, 'sysctls.json')).toEqual(read(first.outDir, 'sysctls.json'));

    // A third run names the run that calibrated, not only the one before it.
    const third = await run('bbr');
    expect(third.summary.reuse).toMatchObject({ from: second.outDir, calibratedBy: first.outDir });

    await keep.close();
    expect(agent.commands.slice(-1)[0]?.line).toMatch(/^ip netns del/);
    expect(agent.resets).toBe(2);
    expect(agent.closed).toBe(true);
  });

  it('builds and calibrates afresh when the kept calibration no longer passes the idle-RTT check', async () => {
    await run('reno');
    agent.excessMs = 1; // 1 ms over 40 ms: outside ± 0.6 ms
    const second = await run('cubic');
    expect(second.summary.reuse).toBeUndefined();
    expect(agent.resets).toBe(2);
    expect(second.lines.filter((l) => l.startsWith('ip netns add')).length).toBeGreaterThan(0);
    expect(read(second.outDir, 'calibration.json').main.reusedFrom).toBeUndefined();
  });

  it('builds afresh after a run that was not valid, and for another topology', async () => {
    stub.verdict = 'suspect';
    await run('reno');
    stub.verdict = 'valid';
    const second = await run('cubic');
    expect(second.summary.reuse).toBeUndefined();
    expect(readFileSync(join(second.outDir, 'events.jsonl'), 'utf8')).toMatch(
      /"type":"build","reason":"the previous run's verdict was suspect"/,
    );
    const third = await run('cubic', '30Mbit');
    expect(third.summary.reuse).toBeUndefined();
    expect(agent.resets).toBe(3);
    const fourth = await run('reno', '30Mbit');
    expect(fourth.summary.reuse?.from).toBe(third.outDir);
  });

  it('a run that fails on a kept dumbbell tears it down, and the next run builds afresh', async () => {
    await run('reno');
    const failed = await run('htcp'); // the stub lab has no htcp
    expect(failed.summary.status).toBe('failed');
    // The reset removes every namespace and process, the kept dumbbell's too.
    expect(agent.resets).toBe(2);
    const next = await run('cubic');
    expect(next.summary.reuse).toBeUndefined();
    expect(readFileSync(join(next.outDir, 'events.jsonl'), 'utf8')).toMatch(
      /"reason":"no dumbbell built yet"/,
    );
  });

  it('reconnects and builds afresh when the kept channel stops answering between runs', async () => {
    const first = await run('reno');
    expect(first.summary.status).toBe('completed');
    agent.silent = true; // the agent ended the session (its watchdog) and tore the dumbbell down
    const old = agent;
    agent = new StubAgent((argv) => (argv.includes('ping') && argv.includes('-q') ? 40 : undefined));
    stub.channel = agent as unknown as Channel;
    const second = await run('cubic');
    expect(old.closed).toBe(true);
    expect(stub.connects).toBe(2);
    expect(second.summary.status).toBe('completed');
    expect(second.summary.reuse).toBeUndefined();
    expect(agent.resets).toBe(1);
  });

  it('without a campaign hold a run tears everything down and closes the channel, as before', async () => {
    const outDir = join(root, 'alone');
    const { summary } = await runExperiment({ spec: spec('reno'), outDir, log: () => undefined });
    expect(summary.reuse).toBeUndefined();
    expect(agent.commands.slice(-1)[0]?.line).toMatch(/^ip netns del/);
    expect(agent.resets).toBe(2);
    expect(agent.closed).toBe(true);
  });
});
