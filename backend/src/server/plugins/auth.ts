// Sign-in: sessions (HttpOnly, SameSite=Strict cookie plus a CSRF token the client echoes in
// x-csrf-token on every change) for the browser, Bearer API tokens for scripts and CI. Every /api
// route but login and health needs one of them.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ServiceError } from '../../service/types.js';
import { type Services, userOf } from '../context.js';

export const SESSION_COOKIE = 'lfn_session';
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The onRequest hook: who is calling, or 401; CSRF for cookie sessions that change things. */
export function authHook(s: Services) {
  return async (req: FastifyRequest) => {
    req.caller = null;
    const auth = req.headers.authorization;
    if (auth?.startsWith('Bearer ')) {
      const user = s.accounts.tokenUser(auth.slice(7).trim());
      if (user) req.caller = { user, via: 'token', sessionId: null, csrfToken: null };
    } else {
      const sid = req.cookies[SESSION_COOKIE];
      const session = sid ? s.accounts.session(sid) : null;
      if (sid && session)
        req.caller = { user: session.user, via: 'session', sessionId: sid, csrfToken: session.csrfToken };
    }
    if (req.routeOptions.config?.public || !req.url.startsWith('/api/')) return;
    if (!req.caller) throw new ServiceError(401, 'sign in first (session cookie or Bearer token)');
    if (
      req.caller.via === 'session' &&
      MUTATING.has(req.method) &&
      req.headers['x-csrf-token'] !== req.caller.csrfToken
    )
      throw new ServiceError(403, 'missing or wrong x-csrf-token header (GET /api/auth/me gives the token)', [
        { path: 'x-csrf-token', message: 'must be the csrfToken of this session' },
      ]);
    // A WebSocket from another site's page would carry the cookie only if SameSite failed; refuse it anyway.
    const origin = req.headers.origin;
    if (
      req.headers.upgrade &&
      origin &&
      req.caller.via === 'session' &&
      new URL(origin).host !== req.headers.host
    )
      throw new ServiceError(403, `WebSocket from origin ${origin} refused`);
  };
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
      config: { public: true },
      schema: { tags: ['auth'], summary: 'Sign in; sets the session cookie', body: Credentials },
    },
    async (req, reply) => {
      const keys = [`user:${req.body.username}`, `ip:${req.ip}`];
      if (s.accounts.loginBlocked(keys))
        throw new ServiceError(429, 'too many failed sign-ins; wait 15 minutes');
      const user = await s.accounts.login(req.body.username, req.body.password, keys);
      if (!user)
        throw new ServiceError(401, 'wrong username or password', [
          { path: 'password', message: 'wrong username or password' },
        ]);
      const { sessionId, csrfToken } = s.accounts.createSession(user.id);
      reply.setCookie(SESSION_COOKIE, sessionId, {
        httpOnly: true,
        sameSite: 'strict',
        secure: opts.secureCookie,
        path: '/',
        maxAge: 7 * 24 * 3600,
      });
      return { user, csrfToken };
    },
  );
  r.post('/auth/logout', { schema: { tags: ['auth'], summary: 'Sign out' } }, async (req, reply) => {
    if (req.caller?.sessionId) s.accounts.deleteSession(req.caller.sessionId);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return { ok: true };
  });
  r.get(
    '/auth/me',
    { schema: { tags: ['auth'], summary: 'Who is signed in, and the CSRF token' } },
    async (req) => ({
      user: userOf(req),
      csrfToken: req.caller?.csrfToken ?? null,
    }),
  );

  r.get('/tokens', { schema: { tags: ['auth'], summary: 'My API tokens (never the secret)' } }, async (req) =>
    s.accounts.listTokens(userOf(req).id),
  );
  r.post(
    '/tokens',
    {
      schema: {
        tags: ['auth'],
        summary: 'New API token; the secret is shown once',
        body: z.object({ name: z.string().min(1, { error: 'is required' }).max(64) }),
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
      },
    },
    async (req) => {
      s.accounts.deleteToken(userOf(req).id, req.params.id);
      return { ok: true };
    },
  );
}
