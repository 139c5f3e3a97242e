// What the service needs from a lab: run an experiment into a run directory, and list, boot, power
// off and reset labs. The real driver wraps runExperiment and lab-images; the fake one makes
// realistic synthetic runs in (scaled) real time for tests and UI development.
import type { Plan, Spec } from '@lfnlab/emulator';
import type { Sample } from '../run/samples.js';
import type { RunSummary } from '../run/summary.js';

export interface DriverRunOptions {
  spec: Spec;
  specText?: string;
  outDir: string;
  labName: string;
  signal: AbortSignal;
  log: (line: string) => void;
  onSample: (s: Sample) => void;
  /** runExperiment's events: created, reset, setup, traffic {t0, labRealtimeMs}, flow-started, finished… */
  onEvent: (type: string, detail: Record<string, unknown>) => void;
  /** Where the traffic phase stands in lab seconds, with the lab's pace (lab s per wall s). */
  onProgress?: (p: { t: number; endS: number; dilation: number | null }) => void;
  /** The run's plan as soon as the driver has built it: the run's only one (see RunOptions.onPlan). */
  onPlan?: (plan: Plan) => void;
}

export type LabState = 'down' | 'booting' | 'ready' | 'busy';

export interface LabInfo {
  name: string;
  state: LabState;
  /** 'remote': a lab PC booted from the ISO. */
  accel: 'tcg' | 'kvm' | 'remote' | null;
  cpus: number | null;
  kernel: string | null;
  stacks: string[];
  bootMs: number | null;
}

export interface LabDriver {
  readonly kind: 'real' | 'fake';
  /** Every lab known; labs in `busy` run an experiment and are not probed (their channel is taken). */
  labs(busy: ReadonlySet<string>): Promise<LabInfo[]>;
  /** Starts booting and returns at once; `labs()` says 'booting' until it is ready. */
  boot(name: string): Promise<void>;
  down(name: string): Promise<void>;
  /** Remove whatever a run left in the lab (namespaces, processes). */
  reset(name: string): Promise<void>;
  /** One experiment; resolves with its summary also when it failed or was aborted (status says so). */
  run(o: DriverRunOptions): Promise<{ summary: RunSummary }>;
  /** Lab seconds per wall second a run of `spec` is expected to keep before a lab has run one. */
  expectedPace(spec: Spec): number;
}

export const LAB_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

/** A pool's lab names: base, base-2 … base-N (serve and worker --labs N). */
export function poolLabNames(n: number, base = 'default'): string[] {
  return Array.from({ length: n }, (_, i) => (i === 0 ? base : `${base}-${i + 1}`));
}
