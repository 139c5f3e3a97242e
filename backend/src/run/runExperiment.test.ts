// runExperiment against a stub lab (no qemu: lab-images' boot and channel replaced by an agent that
// answers at once): the run builds its plan once, hands that plan to onPlan and plan.json, and the
// lab gets each scheduled path change at its time, on the delay the run calibrated.
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Plan, parseSpecText } from '@lfnlab/emulator';
import type { Channel, FiredEvent, LabImage, LabRecord } from '@lfnlab/lab-images';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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
  const image = {
    id: 'stub',
    manifest: {
      kernel: { abi: '6.1.0-stub' },
      tools: [],
      agent: { sourceHash: 'x', goVersion: 'go' },
      samplers: { sourceHash: 'x' },
      modules: { count: 0, boot: [] },
    },
  } as unknown as LabImage;
  const lab = {
    name: 'stub',
    pid: 1,
    accel: 'kvm',
    clock: 'realtime',
    imageId: 'stub',
    cpus: 2,
    memMb: 1024,
    startedAt: new Date(0).toISOString(),
    bootMs: 1,
    argv: [],
    qemuVersion: 'stub',
  } satisfies LabRecord;
  return {
    ...real,
    ensureImage: async () => image,
    labUp: async () => lab,
    connectLab: async () => calls.channel,
  };
});

type Step = { argv: string[] };
type Item = { tag: string; atMs: number; spawn?: { name: string }; exec?: { steps: Step[] } };

/** What the emulator adds to the configured RTT in the stub lab's pings, ms. */
const EXCESS_MS = 1.3;

/** An agent that runs nothing: every command succeeds, pings answer, processes exit when told to. */
class StubAgent extends EventEmitter {
  labClock = undefined;
  /** Every command the lab was asked to run: at once (at: null) or from the timetable at its time. */
  readonly commands: { at: number | null; tag: string | null; line: string }[] = [];
  private spawned = new Set<string>();
  constructor(private readonly rttOf: (argv: string[]) => number | undefined) {
    super();
  }
  private result(s: Step) {
    const rtt = this.rttOf(s.argv);
    const ms = (rtt ?? 0) + EXCESS_MS;
    const stdout =
      rtt !== undefined
        ? `10 packets transmitted, 10 received, 0% packet loss\nrtt min/avg/max/mdev = ${ms}/${ms}/${ms}/0.01 ms`
        : '';
    return { argv: s.argv, code: 0, stdout, stderr: '', ms: 1 };
  }
  private exit(name: string, monoMs = 0) {
    if (!this.spawned.delete(name)) return;
    setImmediate(() =>
      this.emit('exit', { name, code: 0, signal: '', ms: 1, stdout: '', stderr: '', monoMs }),
    );
  }
  async call(op: string, body: Record<string, unknown> = {}): Promise<unknown> {
    switch (op) {
      case 'reset':
        return { killed: [], namespaces: [], errors: [] };
      case 'info':
        return { kernel: '6.1.0-stub', stacksAvailable: ['cubic', 'reno', 'bbr'], boot: { modules: [] } };
      case 'exec': {
        const steps = body.steps as Step[];
        for (const s of steps) this.commands.push({ at: null, tag: null, line: s.argv.join(' ') });
        return { ok: true, results: steps.map((s) => this.result(s)) };
      }
      case 'spawn':
        this.spawned.add(body.name as string);
        return { pid: 1 };
      case 'signal':
        this.exit(body.name as string);
        return {};
      case 'schedule': {
        const items = body.items as Item[];
        setImmediate(() => {
          for (const it of items) {
            if (it.spawn) this.spawned.add(it.spawn.name);
            for (const s of it.exec?.steps ?? [])
              this.commands.push({ at: it.atMs, tag: it.tag, line: s.argv.join(' ') });
            const fired: FiredEvent = {
              tag: it.tag,
              atMs: it.atMs,
              monoMs: it.atMs,
              tMs: it.atMs,
              ok: true,
              results: (it.exec?.steps ?? []).map((s) => this.result(s)),
            };
            this.emit('fired', fired);
          }
          // Clients, cross traffic and their servers end once the flows have run; samplers when signalled.
          const samplers = new Set(items.filter((it) => it.tag.startsWith('sampler:')).map((it) => it.tag));
          for (const name of [...this.spawned]) if (!samplers.has(`sampler:${name}`)) this.exit(name, 20_000);
        });
        return { t0MonoMs: 0, t0RealtimeMs: Date.now() };
      }
      default:
        return {};
    }
  }
  close() {}
}

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
