// lfnlab selftest: every stack alone on an idle path, twice: a 1-BDP buffer (does it read back
// its name, fill the link after ramp-up, keep the queue its parameters predict) and a small buffer
// with random loss (does it cut its window on loss and grow it back). The random loss is there
// because a delay-based stack keeps its few packets of queue below even a small buffer and would
// never meet a loss of its own making. A user who adds a stack runs this first.
import { join } from 'node:path';
import {
  buildPlan,
  goodputCeiling,
  type Spec,
  type StackFamily,
  stackInfo,
  validateSpec,
} from '@lfnlab/emulator';
import { readSamples } from '../run/readSamples.js';
import type { RunSummary } from '../run/summary.js';
import {
  cutsAndRegrowth,
  expectedRateShare,
  type Judgement,
  rateAfterRampUp,
  rateTolerance,
  readBack,
  standingQueue,
} from './judge.js';

export const SELFTEST_PATH = { rtt: '40ms', rate: '50Mbit' } as const;
/**
 * Long enough to judge the second half after the ramp-up: Westwood+ leaves slow start with a
 * bandwidth estimate that lags it (ssthresh 29 packets of a 167-packet pipe, measured) and needs
 * 5.4 s at one packet per RTT to fill the pipe again.
 */
export const IDLE_S = 10;
/**
 * The idle run of a stack whose rate is predicted as a sawtooth (lp, hstcplp, cdg): a second half
 * of 5 s holds two or three of its cycles, and one extra back-off among them moved hstcplp from its
 * usual 73-79 % of the link to 65 % (a fresh CI run; 65 % once here in 16 runs). Twice as long
 * halves the weight of such a cycle.
 */
export const SAWTOOTH_IDLE_S = 20;
export const LOSS_S = 6;

/** Seconds of the idle run for this stack. */
export const idleSeconds = (stack: string) => (expectedRateShare(stack, 1, 1) < 1 ? SAWTOOTH_IDLE_S : IDLE_S);
/** 1e-7 per bit: about 0.12 % of 1514-byte frames lost, a few losses a second at 50 Mbit/s. */
export const LOSS_BER = 1e-7;

export type SelftestCheck = 'readBack' | 'rate' | 'recovery' | 'queue';

/**
 * Failures measured, explained and not ours to fix: the stack's own code does this on any network
 * with exact timing (measured on the dilated clock). A stack that fails only these checks is
 * reported as a known defect, not a failure; one that passes them has been fixed upstream and
 * the entry should go.
 */
export const KNOWN_DEFECTS: Record<string, { checks: SelftestCheck[]; why: string }> = {
  lp: {
    // A window held at 1 through the whole loss run leaves no cut to see either (a fresh-clone run).
    checks: ['rate', 'recovery'],
    why:
      "Linux's tcp_lp halves the window on early congestion without lowering ssthresh, so it slow-starts " +
      'straight back into the queue; the next indication falls inside the inference time-out and drops ' +
      "the window to 1, where the receiver's delayed ACK (up to 40 ms) reads as queueing delay and holds " +
      'it there (measured alone on 50 Mbit/s x 40 ms: 43 % of the link, 1.7 s at a window of 1; held ' +
      'at 1 through a whole run, it has no window to cut on loss either)',
  },
};

export interface SelftestRow {
  stack: string;
  readBack: Judgement;
  rate: Judgement;
  recovery: Judgement;
  queue: Judgement;
  pass: boolean;
  /** Failed only checks that KNOWN_DEFECTS explains for this stack. */
  knownDefect: string | null;
  error: string | null;
  /** Runs the lab could not carry the first time and ran again (the stack is judged on the second). */
  rerun: string[];
}

export function selftestSpecs(stack: string): { idle: Spec; loss: Spec } {
  const spec = (name: string, duration: number, buffer: string, ber?: number) => {
    const v = validateSpec({
      name,
      duration: `${duration}s`,
      // 20 Hz: a window cut and its regrowth within a few RTTs still show in the cwnd series.
      sampleHz: 20,
      paths: { main: { ...SELFTEST_PATH, buffer, ...(ber ? { ber } : {}) } },
      flows: [{ stack }],
    });
    if (!v.ok) throw new Error(`selftest spec for ${stack}: ${JSON.stringify(v.problems)}`);
    return v.spec;
  };
  return {
    idle: spec(`selftest-${stack}-idle`, idleSeconds(stack), '1bdp'),
    loss: spec(`selftest-${stack}-loss`, LOSS_S, '0.1bdp', LOSS_BER),
  };
}

export type RunOne = (spec: Spec, dir: string) => Promise<RunSummary>;

export async function runSelftest(o: {
  stacks: string[];
  outDir: string;
  runOne: RunOne;
  log?: (line: string) => void;
  /**
   * Families of added stacks as the user states them (selftest --family). An added stack is judged
   * by these, else by the family it was added with; built-in stacks by their own predictions.
   */
  families?: Readonly<Record<string, StackFamily>>;
}): Promise<SelftestRow[]> {
  const rows: SelftestRow[] = [];
  for (const stack of o.stacks) {
    const { idle, loss } = selftestSpecs(stack);
    const idleDir = join(o.outDir, `${stack}-idle`);
    const lossDir = join(o.outDir, `${stack}-loss`);
    const t0 = Date.now();
    const rerun: string[] = [];
    // A run the lab could not carry (a late timer on a busy host) says nothing about the stack: it
    // runs once more, and only a second invalid run fails the stack, with the lab's reasons.
    const carried = async (spec: Spec, dir: string, kind: string) => {
      const first = await o.runOne(spec, dir);
      if (first.status !== 'completed' || first.verdict !== 'invalid') return { summary: first, dir };
      const why = (first.fidelity?.reasons ?? []).join('; ');
      rerun.push(`${kind} run: the lab's first was invalid (${why}); judged on the second`);
      o.log?.(`${stack}: the lab could not carry the ${kind} run (${why}); running it again`);
      const againDir = `${dir}-again`;
      return { summary: await o.runOne(spec, againDir), dir: againDir };
    };
    const idleRun = await carried(idle, idleDir, 'idle');
    const lossRun = await carried(loss, lossDir, 'loss');
    const a = idleRun.summary;
    const b = lossRun.summary;
    const plan = buildPlan(idle);
    const flow = plan.topology.flows[0]?.name as string;
    const buffer = plan.topology.paths[0]?.bufferPackets.forward ?? 0;
    const bdp = plan.topology.paths[0]?.bdpPackets ?? 0;
    const predicted = expectedRateShare(stack, buffer, bdp);
    const info = stackInfo(stack);
    const family = o.families?.[stack] ?? (info?.origin === 'added' ? info.family : undefined);
    const idleSamples = readSamples(idleRun.dir);
    const lossSamples = readSamples(lossRun.dir);
    const failed = [a, b].find((s) => s.status !== 'completed');
    // A run the lab could not carry judges the lab, not the stack.
    const invalid = [a, b].find((s) => s.verdict === 'invalid');
    const row: SelftestRow = {
      stack,
      readBack: readBack(stack, a.flows[0]),
      rate: rateAfterRampUp(
        idleSamples,
        flow,
        idleSeconds(stack),
        // Against what a saturated link carries as TCP payload (95.6 % of the rate at MTU 1500).
        (idle.paths.main?.rate ?? 0) * goodputCeiling(idle.mtu),
        rateTolerance(predicted),
        predicted,
      ).judgement,
      recovery: cutsAndRegrowth(lossSamples, flow, stack).judgement,
      queue: standingQueue(idleSamples, stack, buffer, idleSeconds(stack), family),
      pass: false,
      knownDefect: null,
      rerun,
      error: failed
        ? `${failed.status}: ${failed.error}`
        : invalid
          ? `run invalid, the lab did not emulate the path: ${(invalid.fidelity?.reasons ?? []).join('; ')}`
          : null,
    };
    const checks: SelftestCheck[] = ['readBack', 'rate', 'recovery', 'queue'];
    const failing = checks.filter((c) => row[c].pass === false);
    row.pass = !row.error && failing.length === 0;
    const known = KNOWN_DEFECTS[stack];
    if (!row.error && failing.length && known && failing.every((c) => known.checks.includes(c)))
      row.knownDefect = known.why;
    rows.push(row);
    const result = row.pass ? 'pass' : row.knownDefect ? 'known defect' : 'FAIL';
    o.log?.(`${stack}: ${result} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
  return rows;
}
