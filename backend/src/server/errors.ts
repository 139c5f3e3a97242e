// One error shape for every 4xx: `{ error, problems: [{ path, message }] }`, where each problem's
// path names the field (body fields as dotted paths, or body / querystring / params as a whole).
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { type Problem, ServiceError } from '../service/types.js';

const pathOf = (instancePath: string, context: string) =>
  instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.') || context;

interface BranchIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

const isMissing = (i: BranchIssue) =>
  i.code === 'invalid_type' && i.path.length === 1 && /received undefined/.test(i.message);

/**
 * A one-of body that fits no alternative: the problems of the alternative whose fields were
 * given (a wrong value there), else the rule itself at the field that breaks it.
 */
function unionProblems(base: string, message: string, branches: BranchIssue[][], context: string): Problem[] {
  const at = (path: PropertyKey[]) => pathOf(`${base}/${path.map(String).join('/')}`, context);
  const fitting = branches.filter((b) => !b.some((i) => i.code === 'unrecognized_keys' || isMissing(i)));
  const best = fitting.sort((a, b) => a.length - b.length)[0];
  if (best) return best.map((i) => ({ path: at(i.path), message: i.message }));
  const fewest = [...branches].sort((a, b) => a.length - b.length)[0] ?? [];
  const extra = fewest.find((i) => i.code === 'unrecognized_keys')?.keys?.[0];
  if (extra !== undefined) return [{ path: at([extra]), message }];
  const missing = fewest.find(isMissing);
  return [{ path: at(missing?.path ?? []), message }];
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (hasZodFastifySchemaValidationErrors(err)) {
      const context = err.validationContext ?? 'body';
      const problems: Problem[] = err.validation.flatMap((v) => {
        const branches = (v.params as { errors?: unknown } | undefined)?.errors;
        if (v.keyword === 'invalid_union' && Array.isArray(branches))
          return unionProblems(v.instancePath, v.message ?? 'invalid', branches as BranchIssue[][], context);
        return [{ path: pathOf(v.instancePath, context), message: v.message ?? 'invalid' }];
      });
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
