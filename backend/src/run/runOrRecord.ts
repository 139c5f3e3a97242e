// A run from the command line (run, campaign, preset) that always ends with a record: when
// runExperiment itself throws (the image would not build, the lab would not boot or answer), the
// run directory still gets a failed, partial summary.json from whatever samples reached it.
import { ensureSummary } from '../service/partialSummary.js';
import { type RunOptions, type RunOutcome, runExperiment } from './runExperiment.js';

export async function runOrRecord(o: RunOptions): Promise<RunOutcome> {
  try {
    return await runExperiment(o);
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    return { dir: o.outDir, summary: ensureSummary(o.outDir, o.spec, 'failed', error) };
  }
}
