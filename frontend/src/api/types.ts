// The service's HTTP/WebSocket contract (docs/API.md), as the browser sees it. The run record
// (summary.json, samples) and the service's records are the backend's own types, re-exported
// type-only through @lfnlab/backend-types (a tsconfig path, deliberately not a Vite alias): they are
// erased at build time, so nothing Node-only reaches the bundle, and a value import through it
// fails the build. Metric values come from the metric library's own package (@lfnlab/metrics).
// Only what the backend answers without a named type is declared here.

import type { EnvironmentFile } from '@lfnlab/backend-types/report/load.js';
import type { PublicUser } from '@lfnlab/backend-types/service/types.js';
import type { StackInfo } from '@lfnlab/emulator/spec';
import type { Verdict as FindingVerdictWord, VerdictTest } from '@lfnlab/presets/verdict';

export type {
  FindingCell,
  FindingsSource,
  FindingView,
  PresetFindingsView,
} from '@lfnlab/backend-types/presets/findingsView.js';
export type { EnvironmentFile as RunEnvironment } from '@lfnlab/backend-types/report/load.js';
export type { PathReference, ReplayedSamples } from '@lfnlab/backend-types/report/replay.js';
export type {
  Check as FidelityCheck,
  CheckStatus,
  FidelityReport,
} from '@lfnlab/backend-types/run/fidelity.js';
export type { GroupMetrics, RunMetrics } from '@lfnlab/backend-types/run/runMetrics.js';
export type { Sample as LiveSample } from '@lfnlab/backend-types/run/samples.js';
export type { FlowSummary, PathSummary, RunSummary } from '@lfnlab/backend-types/run/summary.js';
export type { LabInfo as Lab } from '@lfnlab/backend-types/service/labDriver.js';
export type { LiveEvent, LiveMessage } from '@lfnlab/backend-types/service/liveHub.js';
export type {
  PlanSuggestion,
  PlanVariant,
  PresetPlanView,
} from '@lfnlab/backend-types/service/presetPlan.js';
export type {
  BoardEntry,
  MoveTo,
  QueueBoardView as QueueBoard,
} from '@lfnlab/backend-types/service/queueBoard.js';
export type { WallEstimate } from '@lfnlab/backend-types/service/queueEstimate.js';
export type {
  Problem,
  PublicUser as User,
  QueueSpot,
  Quota,
  Quotas,
  Role,
  RunStatus,
  RunView as Run,
  StoredSpec,
  Verdict,
} from '@lfnlab/backend-types/service/types.js';
export type { WorkerStatus } from '@lfnlab/backend-types/service/workerRegistry.js';
export type { MetricValue } from '@lfnlab/metrics/registry';
export type { PresetPick } from '@lfnlab/presets/pick';
export type { Verdict as FindingVerdictWord, VerdictTest } from '@lfnlab/presets/verdict';

/** POST /api/auth/login and GET /api/auth/me. */
export interface Session {
  user: PublicUser;
  csrfToken: string;
}

// GET /api/presets and /api/presets/:id answer a view the server builds inline (no named type).

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

/** A finding as comparison.json carries it: the claim, its verdict, the test and n. */
export interface PresetFinding {
  id: string;
  kind: string;
  text: string;
  ref: string;
  sentence: string;
  verdict?: FindingVerdictWord;
  /** Older comparison.json files carry only this. */
  holds?: boolean | null;
  test?: VerdictTest | null;
}

export interface Preset {
  id: string;
  paper: { id: string; short: string; title: string } | string;
  title: string;
  finding: string;
  scaling: string | { rule?: string };
  parts: PresetPart[];
  /** The CI length: the shortest run length (s) at which every variant of every part is valid. */
  ci?: { seconds: number; values?: number };
  /** What the lab cannot express of the paper's experiment. */
  notExpressed?: string[];
  published?: { values?: PublishedValue[]; tables?: PublishedTable[] } | PublishedValue[];
}

/** GET /api/runs/:id/record: the run's record files (only what the UI reads is named; null when absent). */
export interface RunRecordView {
  environment: EnvironmentFile | null;
  [file: string]: unknown;
}

/** GET /api/stacks: a stack a spec may name on the service, whatever its labs' state. */
export type StackListing = Pick<StackInfo, 'name' | 'origin' | 'family' | 'params'>;
