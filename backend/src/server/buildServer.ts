// The lfnlab HTTP service: one Fastify app, a plugin per concern, all under /api but the web UI.
// buildServer() opens the data dir (accounts, specs), scans the runs dir (settling runs a previous
// process left) and starts the queue's worker; close() stops runs in flight and records them.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyServerFactory, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { AssignmentStore } from '../classroom/assignmentStore.js';
import { ClassStore } from '../classroom/classStore.js';
import { PRESETS_DIR } from '../presets/index.js';
import { Access } from '../service/access.js';
import { Accounts } from '../service/accounts.js';
import type { LabDriver } from '../service/labDriver.js';
import { LiveHub } from '../service/liveHub.js';
import { PresetFindings } from '../service/presetFindings.js';
import { PresetPlanner } from '../service/presetPlan.js';
import { InProcessQueue, type RunQueue } from '../service/queue.js';
import { QueueBoard } from '../service/queueBoard.js';
import { LocalExecutor } from '../service/runExecutor.js';
import { RunService } from '../service/runService.js';
import { RunStore } from '../service/runStore.js';
import { SpecStore } from '../service/specStore.js';
import { WorkerRegistry } from '../service/workerRegistry.js';
import { WorkerRuns } from '../service/workerRuns.js';
import { WorkerTokens } from '../service/workerTokens.js';
import type { Storage } from '../storage/runStorage.js';
import type { RouteAccess, Services } from './context.js';
import { installErrorHandler } from './errors.js';
import { type ConnectionLimits, DEFAULT_LIMITS, serverFactory, type TlsFiles } from './httpServer.js';
import { DEFAULT_BODY_LIMIT } from './limits.js';
import { assignmentRoutes } from './plugins/assignments.js';
import { authHook, authRoutes } from './plugins/auth.js';
import { classRoutes } from './plugins/classes.js';
import { registerDocs } from './plugins/docs.js';
import { installFallback, methodHook } from './plugins/fallback.js';
import { labRoutes } from './plugins/labs.js';
import { liveRoutes } from './plugins/live.js';
import { opsRoutes } from './plugins/ops.js';
import { presetRoutes } from './plugins/presets.js';
import { queueRoutes } from './plugins/queue.js';
import { runRoutes } from './plugins/runs.js';
import { specRoutes } from './plugins/specs.js';
import { stackRoutes } from './plugins/stacks.js';
import { registerStatic } from './plugins/static.js';
import { userRoutes } from './plugins/users.js';
import { workerRoutes } from './plugins/worker.js';

export interface ServerOptions {
  /** Accounts, tokens, quotas, stored specs (JSON files). */
  dataDir: string;
  /** Run directories (service.json beside each run's record). */
  runsDir: string;
  driver: LabDriver;
  storage: Storage;
  queue?: RunQueue;
  /** Labs that runs naming none are spread over (`--labs N`); default the one lab 'default'. */
  labPool?: readonly string[];
  /**
   * The labs of this service's queue are driven by `lfnlab worker` processes (with a Redis
   * queue): the service runs no job itself. Default false: it drives its own labs, as always.
   */
  labsOnWorkers?: boolean;
  /** A worker silent this long while running a run is taken for dead (default 30 s). */
  workerSilenceMs?: number;
  /** Points per second per series on live sockets at most (clients may ask for fewer). */
  liveMaxHz?: number;
  /** Live messages kept per run for late joiners and reconnects. */
  liveWindow?: number;
  /** Committed preset results (<dir>/<preset>/comparison.json); default presets/results. */
  presetResultsDir?: string;
  /** frontend/dist, or null for none. */
  staticDir?: string | null;
  grafanaUrl?: string;
  /** Cookies only over HTTPS. Also on by itself for requests over TLS (tls, or a trusted proxy's X-Forwarded-Proto). */
  secureCookie?: boolean;
  /** Serve HTTPS with this certificate and key (PEM files). */
  tls?: TlsFiles | null;
  /** Believe X-Forwarded-For/-Proto from these proxies (true, or addresses/CIDRs, comma-separated). */
  trustProxy?: boolean | string;
  /** Timeouts and the connection cap (defaults: DEFAULT_LIMITS). */
  limits?: Partial<ConnectionLimits>;
  log?: (line: string) => void;
  /** Fastify's request log (pino, secrets redacted): where and from which level; false for none. */
  logger?: { stream?: NodeJS.WritableStream; level?: string } | false;
}

export interface RouteInfo {
  method: string;
  url: string;
  access: RouteAccess;
  public: boolean;
}

/** Never in the log: credentials in headers, and any password or token field of a body or object. */
const REDACT = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'password',
  'currentPassword',
  'token',
  'csrfToken',
  '*.password',
  '*.currentPassword',
  '*.token',
  '*.csrfToken',
  '*.*.password',
  '*.*.token',
];

export interface LfnServer {
  app: FastifyInstance;
  services: Services;
  /** Every route registered (method, URL pattern, who may call it): the security tests walk these. */
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
  const classes = new ClassStore(dataDir);
  classes.migrateFrom(accounts.listUsers());
  accounts.classQuotaOf = (u) =>
    u.role === 'student' && u.class ? (classes.byName(u.class)?.quota ?? null) : null;
  const access = new Access(accounts, (viewer, className) => classes.teaches(viewer, className));
  const assignments = new AssignmentStore(dataDir);
  const idOf = (username: string) => accounts.userByName(username)?.id ?? null;
  const specs = new SpecStore(dataDir, idOf);
  const hub = new LiveHub({ capacity: o.liveWindow ?? 20_000, maxHz: o.liveMaxHz ?? 10, keepEnded: 10 });
  const queue = o.queue ?? new InProcessQueue();
  const store = new RunStore(runsDir, { foreign: () => accounts.firstAdmin(), idOf });
  const runs = new RunService({
    store,
    queue,
    executor: o.labsOnWorkers ? null : new LocalExecutor(o.driver),
    hub,
    storage: o.storage,
    accounts,
    access,
    specs,
    log,
    pool: o.labPool,
  });
  const services: Services = {
    board: new QueueBoard(store, queue, access, (spec) => o.driver.expectedPace(spec)),
    accounts,
    access,
    classes,
    assignments,
    specs,
    runs,
    hub,
    driver: o.driver,
    queue,
    storage: o.storage,
    workerTokens: new WorkerTokens(dataDir),
    workers: new WorkerRuns({
      runs,
      store,
      queue,
      log,
      silenceMs: o.workerSilenceMs,
      labsOnWorkers: o.labsOnWorkers ?? false,
    }),
    // A worker beats every 5 s: away after three missed beats, or when its runs would be taken
    // for dead, whichever is later.
    workerList: new WorkerRegistry({ awayAfterMs: Math.max(15_000, o.workerSilenceMs ?? 30_000) }),
    presetFindings: new PresetFindings(runs, o.presetResultsDir ?? join(PRESETS_DIR, 'results')),
    presetPlanner: new PresetPlanner(),
    grafanaUrl: o.grafanaUrl ?? 'http://127.0.0.1:3000',
    startedAt: new Date(),
  };

  const limits = { ...DEFAULT_LIMITS, ...o.limits };
  const logger = o.logger ?? { level: 'warn' };
  const app: FastifyInstance = Fastify({
    logger:
      logger === false ? false : { level: logger.level ?? 'info', stream: logger.stream, redact: REDACT },
    // Larger bodies only where a route says so (spec and run texts).
    bodyLimit: DEFAULT_BODY_LIMIT,
    trustProxy: o.trustProxy ?? false,
    // Path parameters are checked by the routes' schemas (400 naming the field), not cut at 100.
    routerOptions: { maxParamLength: 2048 },
    serverFactory: serverFactory(limits, o.tls ?? null) as FastifyServerFactory,
    // The server itself comes from serverFactory; this only makes listen() report https:// URLs.
    ...(o.tls ? { https: {} } : {}),
  } as FastifyServerOptions);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('caller', null);
  app.decorateRequest('worker', null);
  installErrorHandler(app);
  // Read when asked, not when registered: a plugin scope's own onRoute hook (the UI's files are
  // declared public that way) runs after this one.
  const routeOptions: Array<{ method: string; url: string; config?: { access?: RouteAccess } }> = [];
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) routeOptions.push({ method, url: r.url, config: r.config });
  });
  const routes = (): RouteInfo[] =>
    routeOptions.map((r) => {
      const access = r.config?.access ?? 'user';
      return { method: r.method, url: r.url, access, public: access === 'public' };
    });
  await app.register(fastifyCookie);
  await app.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024 } });
  await registerDocs(app);
  app.addHook('onRequest', methodHook(app));
  app.addHook('onRequest', authHook(services));
  const withS = { s: services, prefix: '/api' };
  await app.register(authRoutes, { ...withS, secureCookie: o.secureCookie ?? false });
  await app.register(userRoutes, withS);
  await app.register(classRoutes, withS);
  await app.register(assignmentRoutes, withS);
  await app.register(specRoutes, withS);
  await app.register(presetRoutes, withS);
  await app.register(runRoutes, withS);
  await app.register(queueRoutes, withS);
  await app.register(liveRoutes, withS);
  await app.register(labRoutes, withS);
  await app.register(stackRoutes, withS);
  await app.register(opsRoutes, withS);
  await app.register(workerRoutes, withS);
  const indexHtml = await registerStatic(app, o.staticDir ?? null);
  installFallback(app, indexHtml);

  // With workers, a run one was running when this service last stopped may still be going.
  if (o.labsOnWorkers) runs.adoptRunning = (run) => services.workers.adopt(run);
  await runs.start();
  let closed = false;
  return {
    app,
    services,
    get routes() {
      return routes();
    },
    admin,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      services.workers.close();
      await runs.close();
    },
  };
}
