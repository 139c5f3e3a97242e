// One error shape for every 4xx: `{ error, problems: [{ path, message }] }`, where each problem's
// path names the field (body fields as dotted paths, or body / querystring / params as a whole).
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { type Problem, ServiceError } from '../service/types.js';

const pathOf = (instancePath: string, context: string) =>
  instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.') || context;

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (hasZodFastifySchemaValidationErrors(err)) {
      const context = err.validationContext ?? 'body';
      const problems: Problem[] = err.validation.map((v) => ({
        path: pathOf(v.instancePath, context),
        message: v.message ?? 'invalid',
      }));
      return reply.code(400).send({
        error: `invalid ${context}: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
        problems,
      });
    }
    if (err instanceof ServiceError) {
      return reply
        .code(err.statusCode)
        .send({ error: err.message, ...(err.problems.length ? { problems: err.problems } : {}) });
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own refusals: unparseable JSON, wrong content type, body too large.
      const path = err.code?.startsWith('FST_ERR_CTP') ? 'body' : '(request)';
      return reply.code(status).send({ error: err.message, problems: [{ path, message: err.message }] });
    }
    req.log.error({ err }, 'request failed');
    return reply.code(500).send({ error: 'internal error; the service log has the details' });
  });
}
