// A run from the command line (run, campaign, preset) that always ends with a record: when
// runExperiment itself throws (the image would not build, the lab would not boot or answer), the
// run directory still gets a failed, partial summary.json from whatever samples reached it.
import type { Plan } from '@lfnlab/emulator';
import { ensureSummary } from '../service/partialSummary.js';
import { type RunOptions, type RunOutcome, runExperiment } from './runExperiment.js';

export async function runOrRecord(o: RunOptions): Promise<RunOutcome> {
  let plan: Plan | undefined;
  const onPlan = (p: Plan) => {
    plan = p;
    o.onPlan?.(p);
  };
  try {
    return await runExperiment({ ...o, onPlan });
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    return { dir: o.outDir, summary: ensureSummary(o.outDir, o.spec, 'failed', error, plan) };
  }
}
