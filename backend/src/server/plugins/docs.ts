// The OpenAPI document, generated from the routes' zod schemas: /api/docs (UI), /api/docs/json.
// Each route declares its success replies; the error replies follow from what the route is (who
// may call it, whether it takes a body or parameters), added here so no route forgets one.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { ErrorBody } from '../schemas.js';

export const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: each problem names the field and what it must be',
  401: 'Not signed in: no session cookie or API token, or a wrong or expired one',
  403: 'Signed in, but not allowed: role, CSRF header, quota, or a WebSocket from another origin',
  404: 'No such resource, or not one this user may see',
  409: 'Conflicts with the current state',
  413: 'Request body too large',
  415: 'Unsupported content type (send application/json)',
  429: 'Too many: sign-in attempts, or open live sockets',
  503: 'The run queue (Redis, with --queue) did not answer; the run was recorded as failed',
};

/** ErrorBody for these statuses, each with its description. */
export const errorReplies = (...codes: number[]) =>
  Object.fromEntries(codes.map((c) => [c, ErrorBody.describe(ERROR_DESCRIPTIONS[c] ?? 'Error')]));

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function addErrorReplies(r: RouteOptions) {
  if (!r.schema || r.schema.hide) return;
  const codes = new Set<number>();
  const methods = [r.method].flat();
  if ((r.config as { access?: unknown } | undefined)?.access !== 'public') {
    codes.add(401);
    codes.add(403);
  } else r.schema.security = [];
  const body = methods.some((m) => WITH_BODY.has(m));
  if (body || r.schema.params || r.schema.querystring || r.schema.body) codes.add(400);
  if (body) {
    codes.add(413);
    codes.add(415);
  }
  if (r.schema.params) codes.add(404);
  r.schema.response = { ...errorReplies(...codes), ...(r.schema.response as object | undefined) };
}

/** `#/paths/…/method` of an operation, for links. */
const ref = (path: string, method: string) =>
  `#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}`;

/** What a created resource leads to: its id's operations (so a client, or a fuzzer, can follow). */
const LINKS: Array<{ from: [string, string, string]; to: Array<[string, string]> }> = [
  {
    from: ['/api/runs', 'post', '202'],
    to: [
      ['/api/runs/{id}', 'get'],
      ['/api/runs/{id}/stop', 'post'],
      ['/api/runs/{id}/summary', 'get'],
      ['/api/runs/{id}/record', 'get'],
      ['/api/runs/{id}/report', 'get'],
      ['/api/runs/{id}/export/{format}', 'get'],
      ['/api/runs/{id}/grafana', 'get'],
    ],
  },
  {
    from: ['/api/specs', 'post', '201'],
    to: [
      ['/api/specs/{id}', 'get'],
      ['/api/specs/{id}', 'put'],
      ['/api/specs/{id}', 'delete'],
      ['/api/specs/{id}/duplicate', 'post'],
    ],
  },
  {
    from: ['/api/users', 'post', '201'],
    to: [
      ['/api/users/{id}', 'patch'],
      ['/api/users/{id}', 'delete'],
    ],
  },
  { from: ['/api/tokens', 'post', '201'], to: [['/api/tokens/{id}', 'delete']] },
  {
    from: ['/api/classes', 'post', '201'],
    to: [
      ['/api/classes/{id}', 'get'],
      ['/api/classes/{id}', 'patch'],
      ['/api/classes/{id}', 'delete'],
      ['/api/classes/{id}/students', 'post'],
    ],
  },
  {
    from: ['/api/assignments', 'post', '201'],
    to: [
      ['/api/assignments/{id}', 'get'],
      ['/api/assignments/{id}', 'delete'],
      ['/api/assignments/{id}/runs', 'post'],
      ['/api/assignments/{id}/answers', 'put'],
      ['/api/assignments/{id}/table', 'get'],
      ['/api/assignments/{id}/table/csv', 'get'],
    ],
  },
];

type Doc = {
  paths?: Record<string, Record<string, { responses?: Record<string, Record<string, unknown>> }>>;
};

function addLinks(doc: Doc): Doc {
  for (const { from, to } of LINKS) {
    const [path, method, status] = from;
    const response = doc.paths?.[path]?.[method]?.responses?.[status];
    if (!response) continue;
    response.links = Object.fromEntries(
      to.map(([p, m]) => [
        `${m}_${p.replace('/api/', '').replace(/[{}]/g, '').replaceAll('/', '_')}`,
        { operationRef: ref(p, m), parameters: { id: '$response.body#/id' } },
      ]),
    );
  }
  return doc;
}

/** Registered on the root before any route, so its onRoute hooks see them all. */
export async function registerDocs(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', addErrorReplies);
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'lfnlab API',
        version: '1',
        description: 'See docs/API.md. Errors: { error, problems?: [{ path, message }] }.',
      },
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'lfn_session' },
          token: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ session: [] }, { token: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (d) => addLinks(('openapiObject' in d ? d.openapiObject : d) as Doc) as never,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
}
