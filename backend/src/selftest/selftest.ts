// lfnlab selftest: every stack alone on an idle path, twice: a 1-BDP buffer (does it read back
// its name, fill the link after ramp-up, keep the queue its parameters predict) and a small buffer
// (does it cut its window on loss and grow it back). A user who adds a stack runs this first.
import { join } from 'node:path';
import { buildPlan, type Spec, validateSpec } from '@lfnlab/emulator';
import { readSamples } from '../run/readSamples.js';
import type { RunSummary } from '../run/summary.js';
import { cutsAndRegrowth, type Judgement, rateAfterRampUp, readBack, standingQueue } from './judge.js';

export const SELFTEST_PATH = { rtt: '40ms', rate: '50Mbit' } as const;
export const IDLE_S = 8;
export const LOSS_S = 6;

export interface SelftestRow {
  stack: string;
  readBack: Judgement;
  rate: Judgement;
  recovery: Judgement;
  queue: Judgement;
  pass: boolean;
  error: string | null;
}

export function selftestSpecs(stack: string): { idle: Spec; loss: Spec } {
  const spec = (name: string, duration: number, buffer: string) => {
    const v = validateSpec({
      name,
      duration: `${duration}s`,
      paths: { main: { ...SELFTEST_PATH, buffer } },
      flows: [{ stack }],
    });
    if (!v.ok) throw new Error(`selftest spec for ${stack}: ${JSON.stringify(v.problems)}`);
    return v.spec;
  };
  return {
    idle: spec(`selftest-${stack}-idle`, IDLE_S, '1bdp'),
    loss: spec(`selftest-${stack}-loss`, LOSS_S, '0.1bdp'),
  };
}

export type RunOne = (spec: Spec, dir: string) => Promise<RunSummary>;

export async function runSelftest(o: {
  stacks: string[];
  outDir: string;
  runOne: RunOne;
  log?: (line: string) => void;
}): Promise<SelftestRow[]> {
  const rows: SelftestRow[] = [];
  for (const stack of o.stacks) {
    const { idle, loss } = selftestSpecs(stack);
    const idleDir = join(o.outDir, `${stack}-idle`);
    const lossDir = join(o.outDir, `${stack}-loss`);
    const t0 = Date.now();
    const a = await o.runOne(idle, idleDir);
    const b = await o.runOne(loss, lossDir);
    const plan = buildPlan(idle);
    const flow = plan.topology.flows[0]?.name as string;
    const buffer = plan.topology.paths[0]?.bufferPackets.forward ?? 0;
    const idleSamples = readSamples(idleDir);
    const lossSamples = readSamples(lossDir);
    const failed = [a, b].find((s) => s.status !== 'completed');
    const row: SelftestRow = {
      stack,
      readBack: readBack(stack, a.flows[0]),
      rate: rateAfterRampUp(idleSamples, flow, IDLE_S, idle.paths.main?.rate ?? 0).judgement,
      recovery: cutsAndRegrowth(lossSamples, flow).judgement,
      queue: standingQueue(idleSamples, stack, buffer, IDLE_S),
      pass: false,
      error: failed ? `${failed.status}: ${failed.error}` : null,
    };
    row.pass = !row.error && [row.readBack, row.rate, row.recovery, row.queue].every((j) => j.pass !== false);
    rows.push(row);
    o.log?.(`${stack}: ${row.pass ? 'pass' : 'FAIL'} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
  return rows;
}
