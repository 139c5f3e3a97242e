// The service's HTTP/WebSocket contract (docs/API.md), as the browser sees it. Shapes of the run
// record (summary.json, samples) mirror backend/src/run/{summary,samples,fidelity}.ts; they are
// re-declared here because those modules import Node-only code.

export type Role = 'admin' | 'instructor' | 'student';

export interface User {
  id: string;
  username: string;
  role: Role;
  class: string | null;
}

export interface Session {
  user: User;
  csrfToken: string;
}

export interface Problem {
  path: string;
  message: string;
}

export interface Quota {
  concurrentRuns: number;
  maxDurationS: number;
  maxRateMbps: number;
  maxFlows: number;
}

export type Quotas = Record<Role, Quota>;

export interface Lab {
  name: string;
  state: 'down' | 'booting' | 'ready' | 'busy';
  /** null until the lab has booted once. */
  accel: 'tcg' | 'kvm' | null;
  cpus: number | null;
  kernel: string | null;
  stacks: string[];
  bootMs: number | null;
}

export interface StoredSpec {
  id: string;
  name: string;
  kind: 'spec' | 'campaign';
  text: string;
  owner: string;
  createdAt: string;
  updatedAt: string;
}

export interface PresetPart {
  name: string;
  text: string;
}

export interface PublishedValue {
  id: string;
  name?: string;
  label?: string;
  value: number | string;
  unit: string;
  ref?: Record<string, string>;
  note?: string;
}

export interface PublishedTable {
  id: string;
  ref?: Record<string, string>;
  unit?: string;
  columns: { key: string; label: string }[];
  rows: { key: string; label: string; values: (number | string)[] }[];
}

export interface Preset {
  id: string;
  paper: { id: string; short: string; title: string } | string;
  title: string;
  finding: string;
  scaling: string | { rule?: string };
  parts: PresetPart[];
  published?: { values?: PublishedValue[]; tables?: PublishedTable[] } | PublishedValue[];
}

export type RunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'aborted';
export type Verdict = 'valid' | 'suspect' | 'invalid';

export interface Run {
  id: string;
  name: string;
  owner: string;
  status: RunStatus;
  verdict: Verdict | null;
  preset: string | null;
  /** Runs started together from a campaign or preset share this id. */
  campaign?: string | null;
  /** On the response to POST /api/runs for a campaign or preset: every run it queued. */
  queuedRuns?: string[];
  stacks: string[];
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  progress: { elapsedS: number; totalS: number };
  error: string | null;
  partial: boolean;
  spec: unknown;
}

export interface MetricValue {
  id: string;
  value: number | null;
  unit: string;
}

export interface FlowSummary {
  name: string;
  stack: string;
  observedStacks: string[];
  path: string;
  direction: 'forward' | 'reverse';
  streams: number;
  startS: number;
  durationS: number;
  status: 'ok' | 'failed';
  error: string | null;
  goodputMbps: { mean: number | null; sd: number | null; wholeRun: number | null };
  stability: number | null;
  retransmits: number | null;
  rttMs: { mean: number | null; min: number | null; max: number | null };
  maxCwndBytes: number | null;
  metrics: MetricValue[];
}

export interface PathSummary {
  name: string;
  loadedRtt: { meanMs: number; maxMs: number; samples: number } | null;
  configured: {
    rttMs: number;
    rateMbps: number;
    reverseRateMbps: number;
    bufferPackets: { forward: number; reverse: number };
    ber: number;
  };
  utilisation: { forward: number | null; reverse: number | null };
  jain: { forward: number | null; reverse: number | null };
}

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

export interface FidelityCheck {
  id: string;
  status: CheckStatus;
  measured: number | null;
  expected: string;
  message: string;
}

export interface RunSummary {
  name: string;
  status: 'completed' | 'failed' | 'aborted';
  error: string | null;
  seed: number;
  verdict: Verdict | null;
  fidelity: { verdict: Verdict; checks: FidelityCheck[]; reasons: string[] } | null;
  flows: FlowSummary[];
  paths: PathSummary[];
  metrics?: {
    flows: { flow: string; metrics: MetricValue[] }[];
    groups: { path: string; direction: string; flows: string[]; metrics: MetricValue[] }[];
    theory: { path: string; metrics: MetricValue[] }[];
  };
}

/** The typed samples on the live socket (backend/src/run/samples.ts). Times are s from traffic start. */
export type LiveSample =
  | {
      kind: 'tcp';
      t: number;
      flow: string;
      cwndPackets: number;
      srttMs: number;
      deliveryBps: number;
      retransSegments: number;
    }
  | { kind: 'goodput'; t: number; flow: string; bps: number }
  | {
      kind: 'queue';
      t: number;
      path: string;
      stage: 'bottleneck' | 'delay';
      direction: 'forward' | 'reverse';
      backlogPackets: number;
      drops: number;
    }
  | { kind: 'rtt'; t: number; path: string; rttMs: number }
  | { kind: 'cpu'; t: number; busyPct: number }
  | { kind: 'udp'; t: number; source: string; path: string; bps: number }
  | { kind: 'interval'; t: number; flow: string; goodputBps: number | null; retransmits: number | null };

export type LiveEventName =
  | 'queued'
  | 'started'
  | 'flow-started'
  | 'flow-ended'
  | 'verdict'
  | 'done'
  | 'error';

export type LiveMessage =
  | { seq: number; type: 'sample'; sample: LiveSample }
  | { seq: number; type: 'event'; event: LiveEventName | string; data?: unknown }
  | { seq: number; type: 'progress'; elapsedS: number; totalS: number }
  | { seq: number; type: 'caught-up' };

export interface Health {
  ok: boolean;
  influx: 'up' | 'down' | 'off';
  spoolBytes: number;
  queue: number;
  labs: unknown;
}
