// Requests no route matched. On a path some route serves with another method: 405 with Allow
// (OPTIONS: 204 with Allow), decided before the body is read, so even methods that need a body
// type get it. Under /api (as the router would read the path: decoded, any case, slashes
// collapsed): 401 without sign-in, else 404. Any other GET is the single-page app's own route
// when the UI is served.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../../service/types.js';
import { isApiPath, SIGN_IN_FIRST } from './auth.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * The methods of the route this path names. A path matched by a fixed route for one method and a
 * parameter for another (POST /api/specs/validate, GET /api/specs/:id) names the fixed one.
 */
function allowedMethods(app: FastifyInstance, path: string): string[] {
  const found = METHODS.map((method) => ({ method, match: app.findRoute({ method, url: path }) })).filter(
    (x) => x.match !== null,
  );
  const params = (x: (typeof found)[number]) => Object.keys(x.match?.params ?? {}).length;
  const fewest = Math.min(...found.map(params));
  return found.filter((x) => params(x) === fewest).map((x) => x.method);
}

/** onRequest hook (before sign-in, so the answer is the same for everyone): 405 / OPTIONS. */
export function methodHook(app: FastifyInstance) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (!req.is404) return;
    const path = req.url.split('?')[0] ?? '/';
    const allowed = allowedMethods(app, path);
    if (allowed.length === 0) return;
    // No CORS on this API: OPTIONS only lists what the path allows.
    const allow = [...allowed, 'OPTIONS'].join(', ');
    reply.header('allow', allow);
    if (req.method === 'OPTIONS') return reply.code(204).send();
    throw new ServiceError(405, `${req.method} is not allowed on ${path}; allowed: ${allow}`, [
      { path: '(method)', message: `must be one of ${allow}` },
    ]);
  };
}

export function installFallback(app: FastifyInstance, indexHtml: string | null): void {
  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    if (isApiPath(req.url)) {
      if (!req.caller) throw new ServiceError(401, SIGN_IN_FIRST);
      throw new ServiceError(404, `no route ${req.method} ${path}`);
    }
    if (indexHtml !== null && req.method === 'GET')
      return reply.type('text/html; charset=utf-8').send(indexHtml);
    throw new ServiceError(404, `no route ${req.method} ${path}`);
  });
}
