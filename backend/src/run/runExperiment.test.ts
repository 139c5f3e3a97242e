// runExperiment against a stub lab (no qemu: lab-images' boot and channel replaced by an agent that
// answers at once): the run builds its plan once, hands that plan to onPlan and plan.json, and the
// lab gets each scheduled path change at its time, on the delay the run calibrated.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Plan, parseSpecText } from '@lfnlab/emulator';
import type { Channel } from '@lfnlab/lab-images';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StubAgent } from '../../test/support/stubAgent.js';
import { runExperiment } from './runExperiment.js';

const calls = vi.hoisted(() => ({ buildPlan: 0, channel: null as unknown }));

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

vi.mock('@lfnlab/lab-images', async (importOriginal) => {
  const real = await importOriginal<typeof import('@lfnlab/lab-images')>();
  const { STUB_IMAGE, STUB_LAB } = await import('../../test/support/stubAgent.js');
  return {
    ...real,
    ensureImage: async () => STUB_IMAGE,
    labUp: async () => STUB_LAB,
    connectLab: async () => calls.channel,
  };
});

const SPEC = `
name: changes
duration: 20s
paths:
  main:
    rtt: 40ms
    rate: 50Mbit
    changes:
      - { at: 5s, rate: 20Mbit }
      - { at: 10s, rtt: 100ms }
flows:
  - { stack: cubic }
`;

describe('runExperiment on a stub lab', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-stubrun-'));
    calls.buildPlan = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('builds the plan once and runs the calibrated change commands at their times', async () => {
    const spec = parseSpecText(SPEC);
    let planned: Plan | null = null;
    // The idle-RTT probe (ping -q) of the one path, configured at 40 ms.
    const agent = new StubAgent((argv) => (argv.includes('ping') && argv.includes('-q') ? 40 : undefined));
    calls.channel = agent as unknown as Channel;
    const { summary } = await runExperiment({
      spec,
      outDir: dir,
      log: () => undefined,
      onPlan: (p) => {
        planned = p;
      },
    });
    expect(summary.status).toBe('completed');
    expect(calls.buildPlan).toBe(1);
    // The plan the run announced is the one it recorded.
    expect(JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8'))).toEqual(
      JSON.parse(JSON.stringify(planned)),
    );
    const changes = agent.commands.filter((c) => c.tag?.startsWith('change:'));
    expect(changes.map((c) => `${c.at} ${c.line}`)).toEqual([
      '5000 tc -n lfn-rtr qdisc change dev p0-fwd root handle 1: netem rate 20mbit limit 166',
      // 100 ms less the 1.3 ms the emulator added, halved: each direction's delay stage.
      '10000 tc -n lfn-rtr qdisc change dev p0-rcv root handle 1: netem delay 49350us limit 1248',
      '10000 tc -n lfn-rtr qdisc change dev p0-snd root handle 1: netem delay 49350us limit 1248',
      '10000 tc -n lfn-rtr qdisc change dev p0-prb root handle 1: netem delay 49350us limit 1248',
    ]);
    // The calibration itself ran first, on the configured 40 ms: 19.35 ms each way.
    expect(agent.commands.filter((c) => c.at === null && c.line.includes('delay 19350us'))).toHaveLength(3);
  });
});
