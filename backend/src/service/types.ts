// The service's own records: users, quotas, stored specs and runs as the API shows them.
import type { Spec, SpecProblem } from '@lfnlab/emulator';

export type Role = 'admin' | 'instructor' | 'student';
export const ROLES: Role[] = ['admin', 'instructor', 'student'];

/** A user as the API shows it (never with the password hash). */
export interface PublicUser {
  id: string;
  username: string;
  role: Role;
  class: string | null;
}

export interface Quota {
  concurrentRuns: number;
  maxDurationS: number;
  maxRateMbps: number;
  maxFlows: number;
}
export type Quotas = Record<Role, Quota>;

export const DEFAULT_QUOTAS: Quotas = {
  student: { concurrentRuns: 1, maxDurationS: 120, maxRateMbps: 100, maxFlows: 4 },
  instructor: { concurrentRuns: 4, maxDurationS: 3600, maxRateMbps: 1000, maxFlows: 16 },
  admin: { concurrentRuns: 100, maxDurationS: 86_400, maxRateMbps: 10_000, maxFlows: 64 },
};

export interface StoredSpec {
  id: string;
  name: string;
  kind: 'spec' | 'campaign';
  text: string;
  /** The owner's username when stored (shown; a later account of that name is not the owner). */
  owner: string;
  /** The owner's user id: what access is decided by. */
  ownerId: string;
  createdAt: string;
  updatedAt: string;
}

export type RunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'aborted';
export type Verdict = 'valid' | 'suspect' | 'invalid';

/** A run as the API shows it; also service.json in the run directory. */
export interface Run {
  id: string;
  /** The spec's name; for a campaign's run `CAMPAIGN/VARIANT-ID`, stable (the variant's id). */
  name: string;
  /**
   * A campaign's run: its variant's label, what people read (`reno · 100 Mbit/s · 120 ms · rep 2`),
   * shown after the campaign's name. Null for plain runs, absent in records made before labels:
   * those show `name`.
   */
  label?: string | null;
  /** Username of the owner when it was started (shown; CLI runs found on disk: the first admin's). */
  owner: string;
  /** The owner's user id: what access is decided by (a new account with an old name owns nothing). */
  ownerId: string;
  status: RunStatus;
  verdict: Verdict | null;
  preset: string | null;
  /** Runs started together from a campaign or preset share this id. */
  campaign: string | null;
  lab: string;
  /** The lab host whose `lfnlab worker` ran it (absent: this service's own lab). */
  host?: string | null;
  /** Which of that worker's labs ran it (`lfnlab worker --labs N`); absent on the service's own. */
  hostLab?: string | null;
  stacks: string[];
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  progress: { elapsedS: number; totalS: number; dilation?: number | null; etaS?: number | null };
  error: string | null;
  /** The run ended early; what it recorded up to then is kept. */
  partial: boolean;
  spec: Spec;
}

/** Where a queued run stands: added to a run by the API (not stored), null once it has started. */
export interface QueueSpot {
  /** 1 = next to start on its lab. */
  position: number;
  /** Runs that start before this one on its lab, the one running now included. */
  ahead: number;
  /** Wall-clock seconds until it is expected to start, from the runs before it. */
  estimatedWaitS: number;
  estimatedStartAt: string;
}

/** A run as the API answers it: with its place in the queue while it waits. */
export type RunView = Run & { queue: QueueSpot | null };

export const isActive = (r: Pick<Run, 'status'>) => r.status === 'queued' || r.status === 'running';

/**
 * Problems name a field: `flows.0.stack`, `paths.main.rate`, `username`, `(body)`. The spec's own
 * problem shape, so spec problems pass through unchanged.
 */
export type Problem = SpecProblem;

/** An error the HTTP layer turns into `{ error, problems }` with this status. */
export class ServiceError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly problems: Problem[] = [],
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}
