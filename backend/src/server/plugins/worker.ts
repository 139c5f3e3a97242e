// What `lfnlab worker` processes call (worker token only, see service/workerRuns.ts), and the
// admin's worker tokens: one per lab host, the secret shown once.
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LAB_NAME } from '../../service/labDriver.js';
import { HOST_ID } from '../../service/redisKeys.js';
import { ServiceError } from '../../service/types.js';
import type { WorkerBatch } from '../../service/workerRuns.js';
import type { Services } from '../context.js';
import { Ok, RunSchema } from '../schemas.js';
import { errorReplies } from './docs.js';

const RunId = z.object({ id: z.string().max(200) });
const WORKER = { access: 'worker' as const };

/** Samples, events and progress of a run; the worker is trusted with their fields beyond these. */
const BatchBody = z.strictObject({
  seq: z.number().int().min(1, { error: 'must be 1 or more' }),
  plan: z.looseObject({ topology: z.looseObject({}) }).optional(),
  samples: z
    .array(
      z.looseObject({
        kind: z.enum(['interval', 'tcp', 'goodput', 'queue', 'cpu', 'rtt', 'udp']),
        t: z.number(),
      }),
    )
    .max(200_000),
  events: z
    .array(
      z.strictObject({
        type: z.string().min(1).max(64),
        detail: z.record(z.string(), z.unknown()),
        after: z.number().int().min(0),
      }),
    )
    .max(10_000),
  progress: z.strictObject({ t: z.number(), dilation: z.number().nullable() }).optional(),
});
/** A batch may hold a second of many flows' samples. */
const BATCH_BODY_LIMIT = 32 * 1024 * 1024;

const WorkerTokenInfo = z.object({
  id: z.string(),
  host: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});

function workerOf(req: FastifyRequest) {
  if (!req.worker) throw new ServiceError(401, 'a worker token is required');
  return req.worker;
}

export async function workerRoutes(app: FastifyInstance, { s }: { s: Services }) {
  // Uploaded files go to disk as they arrive (hashed on the way), never whole into memory.
  app.addContentTypeParser('application/octet-stream', (_req, payload, done) => done(null, payload));
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/worker/hello',
    {
      config: WORKER,
      schema: {
        tags: ['workers'],
        summary: 'Who this worker token names (a worker checks its token at start)',
        response: { 200: z.object({ host: z.string() }) },
      },
    },
    async (req) => ({ host: workerOf(req).host }),
  );

  r.post(
    '/worker/runs/:id/start',
    {
      config: WORKER,
      schema: {
        tags: ['workers'],
        summary: 'A worker starts a queued run (409 unless it is queued: no run starts twice)',
        params: RunId,
        body: z.strictObject({
          lab: z.string().regex(LAB_NAME, { error: 'must be a lab name' }),
          /** Which of the worker's own labs runs it (`lfnlab worker --labs N`). */
          workerLab: z.string().regex(LAB_NAME, { error: 'must be a lab name' }).optional(),
        }),
        response: { 200: RunSchema, ...errorReplies(404, 409) },
      },
    },
    async (req) => ({
      ...s.workers.start(workerOf(req), req.params.id, req.body.lab, req.body.workerLab),
      queue: null,
    }),
  );

  r.post(
    '/worker/runs/:id/batches',
    {
      config: WORKER,
      bodyLimit: BATCH_BODY_LIMIT,
      schema: {
        tags: ['workers'],
        summary: 'The next numbered batch of a running run’s plan, samples, events and progress',
        params: RunId,
        body: BatchBody,
        response: { 200: z.object({ ack: z.number().int() }), ...errorReplies(404, 409) },
      },
    },
    async (req) => s.workers.batch(workerOf(req), req.params.id, req.body as unknown as WorkerBatch),
  );

  r.get(
    '/worker/runs/:id/files',
    {
      config: WORKER,
      schema: {
        tags: ['workers'],
        summary:
          'The files of a running run’s directory the service has (streamed or uploaded), with SHA-256',
        params: RunId,
        response: {
          200: z.array(z.object({ path: z.string(), sha256: z.string(), bytes: z.number().int() })),
          ...errorReplies(404, 409),
        },
      },
    },
    async (req) => s.workers.files(workerOf(req), req.params.id),
  );

  r.post(
    '/worker/heartbeat',
    {
      config: WORKER,
      schema: {
        tags: ['workers'],
        summary: 'A worker’s labs and what they run, every few seconds (GET /api/health lists workers)',
        body: z.strictObject({
          instance: z
            .string()
            .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be 1-64 letters, digits, "_" or "-"' }),
          machine: z.string().min(1).max(253),
          version: z.string().min(1).max(64),
          labs: z
            .array(
              z.strictObject({
                name: z.string().regex(LAB_NAME, { error: 'must be a lab name' }),
                runId: z.string().max(200).nullable(),
              }),
            )
            .min(1, { error: 'must list at least one lab' })
            .max(64, { error: 'must list at most 64 labs' }),
          leaving: z.boolean().optional(),
        }),
        response: { 200: Ok },
      },
    },
    async (req) => {
      s.workerList.heard(workerOf(req), req.body);
      return { ok: true };
    },
  );

  r.put(
    '/worker/runs/:id/files',
    {
      config: WORKER,
      schema: {
        tags: ['workers'],
        summary: 'One file of the run directory (application/octet-stream), kept if its SHA-256 matches',
        params: RunId,
        querystring: z.strictObject({
          path: z.string().min(1).max(600),
          sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, { error: 'must be 64 hex digits' }),
        }),
        consumes: ['application/octet-stream'],
        response: {
          200: z.object({ path: z.string(), bytes: z.number().int() }),
          ...errorReplies(404, 409),
        },
      },
    },
    async (req) => {
      const body = req.body as unknown;
      if (!body || typeof (body as Readable).pipe !== 'function')
        throw new ServiceError(415, 'send the file as application/octet-stream', [
          { path: 'content-type', message: 'must be application/octet-stream' },
        ]);
      return s.workers.upload(
        workerOf(req),
        req.params.id,
        req.query.path,
        req.query.sha256,
        body as Readable,
      );
    },
  );

  r.post(
    '/worker/runs/:id/finished',
    {
      config: WORKER,
      schema: {
        tags: ['workers'],
        summary: 'How the run ended on the worker (after its files are uploaded)',
        params: RunId,
        body: z.strictObject({
          status: z.enum(['completed', 'failed', 'aborted'], {
            error: 'must be completed, failed or aborted',
          }),
          error: z.string().max(4000).nullable(),
        }),
        response: { 200: RunSchema, ...errorReplies(404, 409) },
      },
    },
    async (req) => ({ ...(await s.workers.finished(workerOf(req), req.params.id, req.body)), queue: null }),
  );

  r.get(
    '/worker-tokens',
    {
      config: { access: ['admin'] },
      schema: {
        tags: ['workers'],
        summary: 'Worker tokens (never the secret)',
        response: { 200: z.array(WorkerTokenInfo) },
      },
    },
    async () => s.workerTokens.list(),
  );
  r.post(
    '/worker-tokens',
    {
      config: { access: ['admin'] },
      schema: {
        tags: ['workers'],
        summary: 'New worker token for a lab host; the secret is shown once',
        body: z.strictObject({
          host: z.string().regex(HOST_ID, {
            error: 'must be 1-63 letters, digits, "_" or "-", starting with a letter or digit',
          }),
        }),
        response: { 201: WorkerTokenInfo.extend({ token: z.string() }) },
      },
    },
    async (req, reply) => reply.code(201).send(s.workerTokens.create(req.body.host)),
  );
  r.delete(
    '/worker-tokens/:id',
    {
      config: { access: ['admin'] },
      schema: {
        tags: ['workers'],
        summary: 'Revoke a worker token',
        params: z.object({ id: z.string().max(64) }),
        response: { 200: Ok },
      },
    },
    async (req) => {
      s.workerTokens.delete(req.params.id);
      return { ok: true };
    },
  );
}
