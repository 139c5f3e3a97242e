// A summary.json for a run that ended without one (the service restarted under it, or the driver
// threw): computed from whatever samples reached the run directory, so its report, exports and
// metrics still show what was measured, and marked failed with the reason.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPlan, type Plan, type Spec } from '@lfnlab/emulator';
import { readJson } from '../report/load.js';
import type { IntervalSample } from '../run/iperf.js';
import { readSamples } from '../run/readSamples.js';
import { type RunSummary, summarise } from '../run/summary.js';

/**
 * Writes summary.json unless the run already has one; returns the summary on disk. `plan`: the
 * run's own, when it got that far; otherwise (it failed before planning, or a previous process ran
 * it) one is built from the spec: only its flows and paths are used, which the lab's clock leaves alone.
 */
export function ensureSummary(
  dir: string,
  spec: Spec,
  status: RunSummary['status'],
  error: string,
  plan?: Plan,
): RunSummary {
  const file = join(dir, 'summary.json');
  const existing = readJson<RunSummary>(file);
  if (existing) return existing;
  let summary: RunSummary;
  try {
    const { topology } = plan ?? buildPlan(spec);
    const samples = readSamples(dir);
    const intervals = samples.filter((s): s is IntervalSample => s.kind === 'interval');
    summary = summarise({
      spec,
      paths: topology.paths,
      results: topology.flows.map((flow) => ({
        flow,
        client: null,
        server: null,
        intervals: intervals.filter((s) => s.flow === flow.name),
        observedStacks: [],
        startedAtS: null,
        error,
      })),
      samples: samples.filter((s) => s.kind !== 'interval'),
      idleRtt: readJson(join(dir, 'idle-rtt.json')) ?? {},
      status,
      error,
      fidelity: null,
    });
  } catch (err) {
    summary = {
      name: spec.name ?? 'run',
      status,
      error: `${error} (no metrics: ${(err as Error).message})`,
      seed: spec.seed ?? 0,
      verdict: null,
      fidelity: null,
      flows: [],
      paths: [],
      metrics: {} as RunSummary['metrics'],
    };
  }
  if (existsSync(dir))
    writeFileSync(
      file,
      `${JSON.stringify({ ...summary, partial: true, finishedAt: new Date().toISOString() }, null, 2)}\n`,
    );
  return summary;
}
