// Requests no route matched. On a path some route serves with another method: 405 with Allow.
// Under /api (as the router would read the path: decoded, any case, slashes collapsed): 401
// without sign-in, else 404. Any other GET is the single-page app's own route when the UI is served.
import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../../service/types.js';
import { isApiPath, SIGN_IN_FIRST } from './auth.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function installFallback(app: FastifyInstance, indexHtml: string | null): void {
  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((m) => app.findRoute({ method: m, url: path }) !== null);
    if (allowed.length > 0) {
      // OPTIONS is answered here too (no CORS on this API): it lists what the path allows.
      const allow = [...allowed, 'OPTIONS'].join(', ');
      reply.header('allow', allow);
      if (req.method === 'OPTIONS') return reply.code(204).send();
      throw new ServiceError(405, `${req.method} is not allowed on ${path}; allowed: ${allow}`, [
        { path: '(method)', message: `must be one of ${allow}` },
      ]);
    }
    if (isApiPath(req.url)) {
      if (!req.caller) throw new ServiceError(401, SIGN_IN_FIRST);
      throw new ServiceError(404, `no route ${req.method} ${path}`);
    }
    if (indexHtml !== null && req.method === 'GET')
      return reply.type('text/html; charset=utf-8').send(indexHtml);
    throw new ServiceError(404, `no route ${req.method} ${path}`);
  });
}
