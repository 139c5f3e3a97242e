// The hand-off from a run to its summary. Every fact the run gathered for summarise() is a required
// field here, so a value computed during the run and then left out fails to compile, and the unit
// test of this step fails if a field stops reaching the summary (the lab CPU's MHz once did).
import type { PathTopology, Spec } from '@lfnlab/emulator';
import type { FidelityReport } from './fidelity.js';
import type { PingSummary } from './probes.js';
import type { Sample } from './samples.js';
import type { RunClock } from './schedule.js';
import type { FlowResult, RunSummary, summarise } from './summary.js';

export interface RunFacts {
  spec: Spec;
  paths: PathTopology[];
  results: FlowResult[];
  samples: Sample[];
  idleRtt: Record<string, PingSummary | null>;
  status: RunSummary['status'];
  error: string | null;
  fidelity: FidelityReport | null;
  /** The lab CPU's clock from /proc/cpuinfo; null when the lab did not say. */
  cpuMHz: number | null;
  /** The lab's clock and pace; null when the run did not reach traffic. */
  clock: RunClock | null;
}

export function summaryInput(facts: RunFacts): Parameters<typeof summarise>[0] {
  return {
    spec: facts.spec,
    paths: facts.paths,
    results: facts.results,
    samples: facts.samples,
    idleRtt: facts.idleRtt,
    status: facts.status,
    error: facts.error,
    fidelity: facts.fidelity,
    cpuMHz: facts.cpuMHz,
    clock: facts.clock,
  };
}
