// The lfnlab HTTP service: one Fastify app, a plugin per concern, all under /api but the web UI.
// buildServer() opens the data dir (accounts, specs), scans the runs dir (settling runs a previous
// process left) and starts the queue's worker; close() stops runs in flight and records them.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { Access } from '../service/access.js';
import { Accounts } from '../service/accounts.js';
import type { LabDriver } from '../service/labDriver.js';
import { LiveHub } from '../service/liveHub.js';
import { InProcessQueue, type RunQueue } from '../service/queue.js';
import { RunService } from '../service/runService.js';
import { RunStore } from '../service/runStore.js';
import { SpecStore } from '../service/specStore.js';
import type { Storage } from '../storage/runStorage.js';
import type { Services } from './context.js';
import { installErrorHandler } from './errors.js';
import { authHook, authRoutes } from './plugins/auth.js';
import { registerDocs } from './plugins/docs.js';
import { labRoutes } from './plugins/labs.js';
import { liveRoutes } from './plugins/live.js';
import { opsRoutes } from './plugins/ops.js';
import { presetRoutes } from './plugins/presets.js';
import { runRoutes } from './plugins/runs.js';
import { specRoutes } from './plugins/specs.js';
import { registerStatic } from './plugins/static.js';
import { userRoutes } from './plugins/users.js';

export interface ServerOptions {
  /** Accounts, tokens, quotas, stored specs (JSON files). */
  dataDir: string;
  /** Run directories (service.json beside each run's record). */
  runsDir: string;
  driver: LabDriver;
  storage: Storage;
  queue?: RunQueue;
  /** Points per second per series on live sockets at most (clients may ask for fewer). */
  liveMaxHz?: number;
  /** Live messages kept per run for late joiners and reconnects. */
  liveWindow?: number;
  /** frontend/dist, or null for none. */
  staticDir?: string | null;
  grafanaUrl?: string;
  /** Cookies only over HTTPS (set when a TLS proxy is in front). */
  secureCookie?: boolean;
  log?: (line: string) => void;
  logger?: boolean;
}

export interface RouteInfo {
  method: string;
  url: string;
  public: boolean;
}

export interface LfnServer {
  app: FastifyInstance;
  services: Services;
  /** Every route registered (method, URL pattern, public or not): the security tests walk these. */
  routes: RouteInfo[];
  /** Set on the first start: the admin account created, and where its password was written. */
  admin: { username: string; password: string; file: string } | null;
  close(): Promise<void>;
}

export async function buildServer(o: ServerOptions): Promise<LfnServer> {
  const dataDir = resolve(o.dataDir);
  const runsDir = resolve(o.runsDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  mkdirSync(runsDir, { recursive: true });
  const log = o.log ?? (() => undefined);
  const accounts = new Accounts(dataDir);
  const admin = await accounts.ensureAdmin();
  const access = new Access(accounts);
  const specs = new SpecStore(dataDir);
  const hub = new LiveHub({ capacity: o.liveWindow ?? 20_000, maxHz: o.liveMaxHz ?? 10, keepEnded: 10 });
  const queue = o.queue ?? new InProcessQueue();
  const store = new RunStore(runsDir);
  const runs = new RunService({
    store,
    queue,
    driver: o.driver,
    hub,
    storage: o.storage,
    accounts,
    access,
    specs,
    log,
  });
  const services: Services = {
    accounts,
    access,
    specs,
    runs,
    hub,
    driver: o.driver,
    queue,
    storage: o.storage,
    grafanaUrl: o.grafanaUrl ?? 'http://127.0.0.1:3000',
    startedAt: new Date(),
  };

  const app = Fastify({ logger: o.logger ?? false, bodyLimit: 2 * 1024 * 1024 });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('caller', null);
  installErrorHandler(app);
  const routes: RouteInfo[] = [];
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat())
      routes.push({ method, url: r.url, public: r.config?.public === true });
  });
  await app.register(fastifyCookie);
  await app.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024 } });
  await registerDocs(app);
  app.addHook('onRequest', authHook(services));
  const withS = { s: services, prefix: '/api' };
  await app.register(authRoutes, { ...withS, secureCookie: o.secureCookie ?? false });
  await app.register(userRoutes, withS);
  await app.register(specRoutes, withS);
  await app.register(presetRoutes, withS);
  await app.register(runRoutes, withS);
  await app.register(liveRoutes, withS);
  await app.register(labRoutes, withS);
  await app.register(opsRoutes, withS);
  const ui = await registerStatic(app, o.staticDir ?? null);
  // Unknown /api routes are 404 (after the auth hook: 401 without sign-in); any other GET is the
  // single-page app's own route when the UI is served.
  app.setNotFoundHandler((req, reply) =>
    ui && req.method === 'GET' && !req.url.startsWith('/api/')
      ? reply.sendFile('index.html')
      : reply.code(404).send({ error: `no route ${req.method} ${req.url.split('?')[0]}` }),
  );

  await runs.start();
  let closed = false;
  return {
    app,
    services,
    routes,
    admin,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await runs.close();
    },
  };
}
