// What every route plugin gets: the service objects, and the caller on each request.
import type { FastifyRequest } from 'fastify';
import type { AssignmentStore } from '../classroom/assignmentStore.js';
import type { ClassStore } from '../classroom/classStore.js';
import type { Access } from '../service/access.js';
import type { Accounts } from '../service/accounts.js';
import type { LabDriver } from '../service/labDriver.js';
import type { LiveHub } from '../service/liveHub.js';
import type { PresetFindings } from '../service/presetFindings.js';
import type { PresetPlanner } from '../service/presetPlan.js';
import type { RunQueue } from '../service/queue.js';
import type { QueueBoard } from '../service/queueBoard.js';
import type { RunService } from '../service/runService.js';
import type { SpecStore } from '../service/specStore.js';
import { type PublicUser, type Role, ServiceError } from '../service/types.js';
import type { WorkerRegistry } from '../service/workerRegistry.js';
import type { WorkerRuns } from '../service/workerRuns.js';
import type { WorkerCaller, WorkerTokens } from '../service/workerTokens.js';

/**
 * Who may call a route: anyone, any signed-in user, signed-in users of these roles, or an
 * `lfnlab worker` with its worker token (and nobody else).
 */
export type RouteAccess = 'public' | 'user' | 'worker' | readonly Role[];

import type { Storage } from '../storage/runStorage.js';

export interface Services {
  accounts: Accounts;
  access: Access;
  classes: ClassStore;
  assignments: AssignmentStore;
  specs: SpecStore;
  runs: RunService;
  hub: LiveHub;
  driver: LabDriver;
  queue: RunQueue;
  /** Queue places, estimates and moves as the API shows them. */
  board: QueueBoard;
  storage: Storage;
  /** Worker tokens, and the runs `lfnlab worker` processes drive (see plugins/worker.ts). */
  workerTokens: WorkerTokens;
  workers: WorkerRuns;
  /** The `lfnlab worker` processes heard from lately (GET /api/health lists them). */
  workerList: WorkerRegistry;
  /** Each preset's findings for a user: their newest results, else the committed ones. */
  presetFindings: PresetFindings;
  /** What a preset pick starts and costs, and whether it fits the caller's quota. */
  presetPlanner: PresetPlanner;
  grafanaUrl: string;
  startedAt: Date;
}

export interface Caller {
  user: PublicUser;
  via: 'session' | 'token';
  sessionId: string | null;
  csrfToken: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
    /** The worker whose token came with the request (only worker routes accept one). */
    worker: WorkerCaller | null;
  }
  interface FastifyContextConfig {
    /**
     * Who may call the route, declared where it is registered: 'public' (login, health, the web
     * UI's files), or the roles allowed. Routes that declare nothing need any signed-in user.
     */
    access?: RouteAccess;
  }
}

/** The signed-in user; routes behind the auth hook always have one. */
export function userOf(req: FastifyRequest): PublicUser {
  if (!req.caller) throw new ServiceError(401, 'sign in first (session cookie or Bearer token)');
  return req.caller.user;
}
