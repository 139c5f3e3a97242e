// Sign-in: sessions (HttpOnly, SameSite=Strict cookie plus a CSRF token the client echoes in
// x-csrf-token on every change) for the browser, Bearer API tokens for scripts and CI. Who may
// call a route is declared where the route is registered (config.access); the hook below reads
// the matched route's declaration, so how the URL was spelled (percent-encoding, case, slashes)
// cannot change the answer: a spelling the router does not match is a 404 answered after sign-in.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ServiceError } from '../../service/types.js';
import { type Caller, type Services, userOf } from '../context.js';
import { Me, Ok, TokenCreated, TokenInfo } from '../schemas.js';
import { errorReplies } from './docs.js';

export const SESSION_COOKIE = 'lfn_session';
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export const SIGN_IN_FIRST = 'sign in first (session cookie or Bearer token)';

/**
 * The caller, from a Bearer token or the session cookie. Every credential presented must be valid:
 * a wrong cookie beside a good token (or any other mix) is refused, not quietly ignored. Other
 * Authorization schemes (Basic from a proxy's own sign-in) are not ours and are left alone.
 */
function identify(s: Services, req: FastifyRequest): Caller | null {
  const auth = req.headers.authorization;
  const sid = req.cookies[SESSION_COOKIE];
  const session = sid !== undefined ? s.accounts.session(sid) : null;
  if (sid !== undefined && !session) return null;
  if (auth !== undefined && /^bearer /i.test(auth)) {
    const user = s.accounts.tokenUser(auth.slice(7).trim());
    if (!user || (session && session.user.id !== user.id)) return null;
    return { user, via: 'token', sessionId: null, csrfToken: null };
  }
  return sid !== undefined && session
    ? { user: session.user, via: 'session', sessionId: sid, csrfToken: session.csrfToken }
    : null;
}

/** The worker a Bearer worker token names, or null. */
function workerOf(s: Services, req: FastifyRequest) {
  const auth = req.headers.authorization;
  if (auth === undefined || !/^bearer /i.test(auth)) return null;
  return s.workerTokens.identify(auth.slice(7).trim());
}

/** A WebSocket upgrade from a page of another origin (or with an Origin that is no URL). */
function foreignOrigin(req: FastifyRequest): string | null {
  const origin = req.headers.origin;
  if (!req.headers.upgrade || origin === undefined) return null;
  try {
    return new URL(origin).host === req.headers.host ? null : origin;
  } catch {
    return origin;
  }
}

/**
 * The onRequest hook: who is calling; then the route's declared access (401 without sign-in,
 * 403 for another role), CSRF for cookie sessions that change things, and the WebSocket Origin.
 * Requests no route matched go on to the not-found handler, which answers 401 itself for API paths.
 */
export function authHook(s: Services) {
  return async (req: FastifyRequest) => {
    req.caller = identify(s, req);
    // A browser sends the cookie on a WebSocket from any page of the same site (another port of
    // the same host is the same site for SameSite=Strict): refuse pages of other origins.
    const origin = foreignOrigin(req);
    if (origin !== null)
      throw new ServiceError(403, `WebSocket from origin ${JSON.stringify(origin)} refused`, [
        { path: 'origin', message: 'must be this service’s own origin' },
      ]);
    if (req.is404) return;
    const access = req.routeOptions.config?.access ?? 'user';
    if (access === 'public') return;
    if (access === 'worker') {
      // A worker token is good here and nowhere else (it names a lab host, not a user).
      req.worker = workerOf(s, req);
      if (!req.worker)
        throw new ServiceError(401, 'a worker token is required (Authorization: Bearer lfnw_…)', [
          { path: 'authorization', message: 'must be a worker token the service knows' },
        ]);
      return;
    }
    if (!req.caller) throw new ServiceError(401, SIGN_IN_FIRST);
    if (access !== 'user' && !access.includes(req.caller.user.role))
      throw new ServiceError(403, `only ${access.join(' or ')} may do this`, [
        { path: '(role)', message: `must be ${access.join(' or ')}` },
      ]);
    if (
      req.caller.via === 'session' &&
      MUTATING.has(req.method) &&
      req.headers['x-csrf-token'] !== req.caller.csrfToken
    )
      throw new ServiceError(403, 'missing or wrong x-csrf-token header (GET /api/auth/me gives the token)', [
        { path: 'x-csrf-token', message: 'must be the csrfToken of this session' },
      ]);
  };
}

/** A request no route matched: is its path, as the router would read it, under /api? */
export function isApiPath(url: string): boolean {
  let path = url.split('?')[0] ?? '/';
  // Decoded until it stops changing (a proxy in front may decode once more than this router).
  for (let i = 0; i < 3 && path.includes('%'); i++) {
    try {
      path = decodeURIComponent(path);
    } catch {
      break; // malformed escapes: judge the text as it is
    }
  }
  try {
    path = new URL(path.replace(/\\/g, '/').replace(/\/{2,}/g, '/'), 'http://x').pathname.toLowerCase();
  } catch {
    return true; // not even a path: treat as the API's (sign-in first)
  }
  return path === '/api' || path.startsWith('/api/');
}

const Credentials = z.object({
  username: z.string().min(1, { error: 'is required' }).max(64),
  password: z.string().min(1, { error: 'is required' }).max(1024),
});

export async function authRoutes(app: FastifyInstance, opts: { s: Services; secureCookie: boolean }) {
  const { s } = opts;
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/auth/login',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Sign in; sets the session cookie',
        body: Credentials,
        response: { 200: Me, ...errorReplies(401, 429) },
      },
    },
    async (req, reply) => {
      const user = await s.accounts.login(req.ip, req.body.username, req.body.password);
      if (user === null)
        throw new ServiceError(429, 'too many failed sign-ins; wait 15 minutes', [
          { path: 'username', message: 'too many failed sign-ins for this name or address' },
        ]);
      if (!user)
        throw new ServiceError(401, 'wrong username or password', [
          { path: 'password', message: 'wrong username or password' },
        ]);
      const { sessionId, csrfToken } = s.accounts.createSession(user.id);
      reply.setCookie(SESSION_COOKIE, sessionId, {
        httpOnly: true,
        sameSite: 'strict',
        // Over TLS (served directly, or a proxy that says so and is trusted): never sent in clear.
        secure: opts.secureCookie || req.protocol === 'https',
        path: '/',
        maxAge: 7 * 24 * 3600,
      });
      return { user, csrfToken };
    },
  );
  r.post(
    '/auth/logout',
    { schema: { tags: ['auth'], summary: 'Sign out', response: { 200: Ok } } },
    async (req, reply) => {
      if (req.caller?.sessionId) s.accounts.deleteSession(req.caller.sessionId);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return { ok: true };
    },
  );
  r.get(
    '/auth/me',
    { schema: { tags: ['auth'], summary: 'Who is signed in, and the CSRF token', response: { 200: Me } } },
    async (req) => ({
      user: userOf(req),
      csrfToken: req.caller?.csrfToken ?? null,
    }),
  );

  r.get(
    '/tokens',
    {
      schema: {
        tags: ['auth'],
        summary: 'My API tokens (never the secret)',
        response: { 200: z.array(TokenInfo) },
      },
    },
    async (req) => s.accounts.listTokens(userOf(req).id),
  );
  r.post(
    '/tokens',
    {
      schema: {
        tags: ['auth'],
        summary: 'New API token; the secret is shown once',
        body: z.object({ name: z.string().min(1, { error: 'is required' }).max(64) }),
        response: { 201: TokenCreated },
      },
    },
    async (req, reply) => reply.code(201).send(s.accounts.createToken(userOf(req).id, req.body.name)),
  );
  r.delete(
    '/tokens/:id',
    {
      schema: {
        tags: ['auth'],
        summary: 'Revoke an API token',
        params: z.object({ id: z.string().max(64) }),
        response: { 200: Ok },
      },
    },
    async (req) => {
      s.accounts.deleteToken(userOf(req).id, req.params.id);
      return { ok: true };
    },
  );
}
