// What every route plugin gets: the service objects, and the caller on each request.
import type { FastifyRequest } from 'fastify';
import type { Access } from '../service/access.js';
import type { Accounts } from '../service/accounts.js';
import type { LabDriver } from '../service/labDriver.js';
import type { LiveHub } from '../service/liveHub.js';
import type { RunQueue } from '../service/queue.js';
import type { RunService } from '../service/runService.js';
import type { SpecStore } from '../service/specStore.js';
import { type PublicUser, type Role, ServiceError } from '../service/types.js';
import type { Storage } from '../storage/runStorage.js';

export interface Services {
  accounts: Accounts;
  access: Access;
  specs: SpecStore;
  runs: RunService;
  hub: LiveHub;
  driver: LabDriver;
  queue: RunQueue;
  storage: Storage;
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
  }
  interface FastifyContextConfig {
    /** Reachable without a session or token (login, health, the web UI's files). */
    public?: boolean;
  }
}

/** The signed-in user; routes behind the auth hook always have one. */
export function userOf(req: FastifyRequest): PublicUser {
  if (!req.caller) throw new ServiceError(401, 'sign in first (session cookie or Bearer token)');
  return req.caller.user;
}

export function requireRole(req: FastifyRequest, ...roles: Role[]): PublicUser {
  const u = userOf(req);
  if (!roles.includes(u.role)) throw new ServiceError(403, `only ${roles.join(' or ')} may do this`);
  return u;
}
