// runSelftest's bookkeeping over run directories written here by hand: which stacks pass, which
// fail, which fail only as a known defect of their own code, and which runs judge the lab instead.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPlan, registerStacks } from '@lfnlab/emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { formatSelftest, formatSelftestNotes } from '../cli/selftestCommand.js';
import type { RunSummary } from '../run/summary.js';
import {
  IDLE_S,
  idleSeconds,
  KNOWN_DEFECTS,
  LOSS_S,
  type RunOne,
  runSelftest,
  SAWTOOTH_IDLE_S,
  type SelftestRow,
  selftestSpecs,
} from './selftest.js';

interface Behaviour {
  /** Goodput share of the 50 Mbit/s rate over the whole idle run. */
  share: number;
  /** How many of its runs, from the first, the lab could not carry (default none). */
  invalidRuns?: number;
  reads?: string;
  /** A window held at 1 through the loss run (no sawtooth to see). */
  stuck?: boolean;
}

/** A stand-in for the lab: writes the samples a stack with this behaviour would leave. */
function fakeLab(behave: Record<string, Behaviour>): RunOne {
  const runs: Record<string, number> = {};
  return async (spec, dir) => {
    const stack = spec.flows[0]?.stack as string;
    runs[stack] = (runs[stack] ?? 0) + 1;
    const flow = buildPlan(spec).topology.flows[0]?.name as string;
    const b = behave[stack] as Behaviour;
    const invalid = (runs[stack] ?? 0) <= (b.invalidRuns ?? 0);
    const loss = spec.name.endsWith('-loss');
    const seconds = loss ? LOSS_S : idleSeconds(stack);
    const lines = (xs: object[]) => `${xs.map((x) => JSON.stringify(x)).join('\n')}\n`;
    const ts = Array.from({ length: seconds * 10 + 1 }, (_, i) => i / 10);
    mkdirSync(join(dir, 'samples'), { recursive: true });
    writeFileSync(
      join(dir, 'samples/goodput.jsonl'),
      lines(ts.map((t) => ({ kind: 'goodput', t, flow, bps: b.share * 50e6, bytesReceived: 0 }))),
    );
    // A sawtooth in the loss run, a flat line when idle.
    writeFileSync(
      join(dir, 'samples/tcp.jsonl'),
      lines(
        ts.map((t) => ({
          kind: 'tcp',
          t,
          flow,
          cwndPackets: b.stuck ? 1 : loss ? 20 + ((t * 10) % 20) * 4 : 200,
        })),
      ),
    );
    writeFileSync(
      join(dir, 'samples/queue.jsonl'),
      lines(
        ts.map((t) => ({ kind: 'queue', t, stage: 'bottleneck', direction: 'forward', backlogPackets: 3 })),
      ),
    );
    return {
      status: 'completed',
      error: null,
      verdict: invalid ? 'invalid' : 'valid',
      fidelity: { reasons: invalid ? ['packet-spacing: 12 % of gaps within 10 %'] : [] },
      flows: [{ observedStacks: [b.reads ?? stack] }],
    } as unknown as RunSummary;
  };
}

describe('runSelftest', () => {
  it('passes, fails, and sets apart a known defect and a run the lab could not carry', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lfnlab-selftest-unit-'));
    const rows = await runSelftest({
      stacks: ['reno', 'lp', 'hstcplp', 'cubic', 'bbr'],
      outDir: out,
      runOne: fakeLab({
        reno: { share: 0.95 },
        lp: { share: 0.43 }, // its known defect: the rate
        hstcplp: { share: 0.43 }, // no known defect: a plain failure
        // The lab could not carry its two runs nor their second tries: the lab is judged.
        cubic: { share: 0.95, invalidRuns: 4 },
        bbr: { share: 0.95, reads: 'cubic' },
      }),
    });
    const by = Object.fromEntries(rows.map((r) => [r.stack, r]));
    expect(by.reno?.pass).toBe(true);
    expect(by.lp?.pass).toBe(false);
    expect(by.lp?.knownDefect).toBe(KNOWN_DEFECTS.lp?.why);
    expect(by.hstcplp?.knownDefect).toBeNull();
    expect(by.hstcplp?.rate.measured).toBe('45 % (predicted 84 %)');
    expect(by.cubic?.error).toMatch(/run invalid.*packet-spacing/);
    expect(by.bbr?.readBack).toEqual({ pass: false, measured: 'cubic' });
    const text = formatSelftest(rows);
    expect(text).toMatch(/^lp\s.*known defect\s*$/m);
    expect(text).toMatch(/^hstcplp\s.*FAIL\s*$/m);
    expect(formatSelftestNotes(rows)).toMatch(/^known defect, lp: Linux's tcp_lp/m);
  });
  it('runs again a run the lab could not carry, and judges the stack on the second', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lfnlab-selftest-unit-'));
    const logged: string[] = [];
    const [row] = await runSelftest({
      stacks: ['nv'],
      outDir: out,
      log: (l) => logged.push(l),
      runOne: fakeLab({ nv: { share: 0.95, invalidRuns: 1 } }),
    });
    expect(row?.error).toBeNull();
    expect(row?.pass).toBe(true);
    expect(row?.rerun).toEqual([
      "idle run: the lab's first was invalid (packet-spacing: 12 % of gaps within 10 %); judged on the second",
    ]);
    expect(logged[0]).toMatch(
      /^nv: the lab could not carry the idle run \(packet-spacing.*\); running it again$/,
    );
    expect(formatSelftestNotes([row as SelftestRow])).toMatch(
      /^ran again, nv idle run: the lab's first was invalid/,
    );
    // The first try stays on disk beside the one judged.
    expect(existsSync(join(out, 'nv-idle/samples/goodput.jsonl'))).toBe(true);
    expect(existsSync(join(out, 'nv-idle-again/samples/goodput.jsonl'))).toBe(true);
  });
  it("counts lp's window held at 1 through the loss run (no cut, no regrowth) as its known defect too", async () => {
    const rows = await runSelftest({
      stacks: ['lp', 'hstcplp'],
      outDir: mkdtempSync(join(tmpdir(), 'lfnlab-selftest-unit-')),
      runOne: fakeLab({ lp: { share: 0.003, stuck: true }, hstcplp: { share: 0.003, stuck: true } }),
    });
    const [lp, hstcplp] = rows;
    expect(lp?.recovery).toMatchObject({ pass: false, measured: '0 cuts, 0 regrowths' });
    expect(lp?.knownDefect).toBe(KNOWN_DEFECTS.lp?.why);
    expect(hstcplp?.knownDefect).toBeNull();
  });

  it('judges the rate against the payload a saturated link carries, not the raw rate', async () => {
    // 95.6 % of the rate is a full link at MTU 1500 (1448 of 1514 bytes): 100 %.
    const rows = await runSelftest({
      stacks: ['reno'],
      outDir: mkdtempSync(join(tmpdir(), 'lfnlab-selftest-unit-')),
      runOne: fakeLab({ reno: { share: 1448 / 1514 } }),
    });
    expect(rows[0]?.rate.measured).toBe('100 %');
  });
});

describe('selftestSpecs', () => {
  it('gives a stack whose rate saws twice the idle run, and the others the usual one', () => {
    for (const stack of ['lp', 'hstcplp', 'cdg'])
      expect(selftestSpecs(stack).idle.duration, stack).toBe(SAWTOOTH_IDLE_S * 1000);
    for (const stack of ['reno', 'cubic', 'vegas', 'bbr'])
      expect(selftestSpecs(stack).idle.duration, stack).toBe(IDLE_S * 1000);
    expect(selftestSpecs('hstcplp').loss.duration).toBe(LOSS_S * 1000);
  });
});

describe('an added stack in the selftest', () => {
  const vendor = {
    name: 'lfnvendor',
    module: 'tcp_lfnvendor',
    family: 'loss' as const,
    sourceHash: 'ab'.repeat(32),
  };
  afterEach(() => registerStacks([]));

  it('is judged like a loss-based stack (no queue check) unless its family says delay', async () => {
    registerStacks([vendor]);
    const run = (families?: Record<string, 'delay'>) =>
      runSelftest({
        stacks: ['lfnvendor'],
        outDir: mkdtempSync(join(tmpdir(), 'lfnlab-selftest-unit-')),
        runOne: fakeLab({ lfnvendor: { share: 0.95 } }),
        families,
      });
    const [asLoss] = await run();
    expect(asLoss?.pass).toBe(true);
    expect(asLoss?.queue).toEqual({ pass: null, measured: '-' });
    // The fake lab keeps 3 packets queued: a delay-based stack well under half the buffer.
    const [asDelay] = await run({ lfnvendor: 'delay' });
    expect(asDelay?.queue).toEqual({ pass: true, measured: '3 pkts (delay-based: at most 83)' });
    // The family it was added with counts when --family is not given.
    registerStacks([{ ...vendor, family: 'delay' }]);
    expect((await run())[0]?.queue.measured).toBe('3 pkts (delay-based: at most 83)');
  });
});
