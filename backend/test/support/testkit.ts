// For the service's tests: a server on temporary directories with the fake lab and storage off
// (or given), signed-in clients for inject(), and waiting for a run to end by its live 'done'.
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { buildServer, type LfnServer, type ServerOptions } from '../../src/server/buildServer.js';
import { FakeLabDriver, type FakeLabOptions } from '../../src/service/fakeLabDriver.js';
import type { Role, Run } from '../../src/service/types.js';
import { isActive } from '../../src/service/types.js';
import { Storage } from '../../src/storage/runStorage.js';

export interface TestServer extends LfnServer {
  dirs: { data: string; runs: string };
  driver: FakeLabDriver;
  storage: Storage;
}

export async function testServer(
  o: {
    fake?: FakeLabOptions;
    dirs?: { data: string; runs: string };
    storage?: Storage;
  } & Partial<ServerOptions> = {},
): Promise<TestServer> {
  const root = mkdtempSync(join(tmpdir(), 'lfnlab-serve-'));
  const dirs = o.dirs ?? { data: join(root, 'data'), runs: join(root, 'runs') };
  const driver = new FakeLabDriver({ timeScale: 50, bootMs: 100, ...o.fake });
  const storage = o.storage ?? (await Storage.open({ url: null, spoolDir: join(dirs.data, 'spool') }));
  const server = await buildServer({ dataDir: dirs.data, runsDir: dirs.runs, driver, storage, ...o });
  return { ...server, dirs, driver: (o.driver as FakeLabDriver | undefined) ?? driver, storage };
}

export interface Client {
  username: string;
  csrf: string | null;
  cookie: string | null;
  token: string | null;
  req(
    method: string,
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  json<T = unknown>(method: string, url: string, body?: unknown): Promise<T>;
}

function client(
  s: LfnServer,
  username: string,
  auth: { cookie?: string; csrf?: string; token?: string },
): Client {
  const c: Client = {
    username,
    csrf: auth.csrf ?? null,
    cookie: auth.cookie ?? null,
    token: auth.token ?? null,
    req: (method, url, body, headers = {}) =>
      s.app.inject({
        method: method as 'GET',
        url,
        headers: {
          ...(auth.cookie ? { cookie: `lfn_session=${auth.cookie}` } : {}),
          ...(auth.csrf ? { 'x-csrf-token': auth.csrf } : {}),
          ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}),
          ...headers,
        },
        ...(body === undefined
          ? {}
          : typeof body === 'string'
            ? { payload: body }
            : { payload: body as object }),
      }),
    async json<T>(method: string, url: string, body?: unknown) {
      const r = await c.req(method, url, body);
      if (r.statusCode >= 400) throw new Error(`${method} ${url} → ${r.statusCode}: ${r.body}`);
      return r.json() as T;
    },
  };
  return c;
}

export async function login(s: LfnServer, username: string, password: string): Promise<Client> {
  const r = await s.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } });
  if (r.statusCode !== 200) throw new Error(`login ${username}: ${r.statusCode} ${r.body}`);
  const cookie = r.cookies.find((x) => x.name === 'lfn_session')?.value;
  return client(s, username, { cookie, csrf: (r.json() as { csrfToken: string }).csrfToken });
}

export async function adminClient(s: LfnServer): Promise<Client> {
  if (!s.admin) throw new Error('no admin password: not a first start');
  return login(s, 'admin', s.admin.password);
}

/** The password userClient gives each user (the policy refuses one containing the username). */
export const passwordOf = (username: string) =>
  `s3cret-${createHash('sha256').update(username).digest('hex').slice(0, 12)}`;

/** A new user of that role (made by admin, with their class made if new), signed in. */
export async function userClient(
  s: LfnServer,
  admin: Client,
  username: string,
  role: Role,
  cls: string | null = null,
): Promise<Client> {
  const password = passwordOf(username);
  // Classes are records: make the class the first time a test names it.
  if (cls !== null) {
    const made = await admin.req('POST', '/api/classes', { name: cls });
    if (made.statusCode !== 201 && made.statusCode !== 409)
      throw new Error(`class ${cls}: ${made.statusCode} ${made.body}`);
  }
  await admin.json('POST', '/api/users', { username, password, role, class: cls });
  return login(s, username, password);
}

export function tokenClient(s: LfnServer, username: string, token: string): Client {
  return client(s, username, { token });
}

/** Resolves with the run once it has ended (its live channel's 'done'). */
export function runEnded(s: LfnServer, id: string): Promise<Run> {
  const { runs, hub } = s.services;
  const admin = { id: '-', username: 'admin', role: 'admin' as const, class: null };
  return new Promise((resolve) => {
    const current = runs.get(admin, id);
    if (!isActive(current)) return resolve(current);
    const off = hub.open(id).subscribe((m) => {
      if (m.type === 'event' && m.event === 'done') {
        off();
        resolve(runs.get(admin, id));
      }
    });
  });
}

export const SHORT_SPEC = `name: short
duration: 4s
paths:
  main: { rtt: 20ms, rate: 20Mbit }
flows:
  - { stack: reno }
  - { stack: cubic }
`;
