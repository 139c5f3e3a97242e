// Runs: start (from text, a stored spec or campaign, or a preset), list and filter, stop, and
// everything the run directory holds: summary, record, HTML report, exports, a Grafana link.
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { grafanaRunUrl } from '@lfnlab/grafana';
import { METRICS } from '@lfnlab/metrics/registry';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CSV_COLUMNS,
  flentData,
  loadRun,
  readJson,
  readRunSummary,
  renderRunReport,
  replaySamples,
  runJson,
  samplesCsv,
  trafficStart,
} from '../../report/index.js';
import type { SampleKind } from '../../run/samples.js';
import { LAB_NAME } from '../../service/labDriver.js';
import { type Run, ServiceError } from '../../service/types.js';
import { type Services, userOf } from '../context.js';
import { MAX_TEXT_CHARS, TEXT_BODY_LIMIT } from '../limits.js';
import {
  Document,
  GrafanaLink,
  MetricDefinition,
  PresetPickSchema,
  ReplaySchema,
  RunSchema,
  StartedRuns,
  textReply,
  VariantId,
} from '../schemas.js';
import { errorReplies } from './docs.js';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[?::1\]?)$/i;

/**
 * Grafana as the caller can reach it: a loopback address is only right for a browser on this host;
 * anyone else reached the service by another name, and Grafana listens beside it under that name.
 */
export function grafanaBaseFor(configured: string, requestHost: string): string {
  const url = new URL(configured);
  const host = requestHost.replace(/:\d+$/, '');
  if (!LOOPBACK.test(url.hostname) || !host || LOOPBACK.test(host)) return configured;
  url.hostname = host;
  return url.toString();
}

const Id = z.object({ id: z.string().max(200) });
const KINDS = Object.keys(CSV_COLUMNS) as SampleKind[];

const Lab = z.string().regex(LAB_NAME, { error: 'must be a lab name (letters, digits, _ -)' }).optional();

/** A spec text, a stored spec or campaign, or a preset: exactly one (oneOf in the OpenAPI document). */
export const StartRunBody = z.xor(
  [
    z.strictObject({
      text: z.string().max(MAX_TEXT_CHARS, { error: `must be at most ${MAX_TEXT_CHARS} characters` }),
      lab: Lab,
    }),
    z.strictObject({ specId: z.string().max(64), variant: VariantId.optional(), lab: Lab }),
    PresetPickSchema.extend({ preset: z.string().max(128), lab: Lab }),
  ],
  { error: 'give exactly one of text, specId or preset' },
);

const ListQuery = z.object({
  owner: z.string().max(64).optional(),
  stack: z.string().max(32).optional(),
  preset: z.string().max(128).optional(),
  verdict: z.enum(['valid', 'suspect', 'invalid'], { error: 'must be valid, suspect or invalid' }).optional(),
  status: z
    .enum(['queued', 'running', 'completed', 'failed', 'aborted'], { error: 'must be a run status' })
    .optional(),
  campaign: z.string().max(200).optional(),
  from: z.iso.datetime({ error: 'must be an ISO date-time', offset: true }).optional(),
  to: z.iso.datetime({ error: 'must be an ISO date-time', offset: true }).optional(),
});

export async function runRoutes(app: FastifyInstance, { s }: { s: Services }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const runDir = (req: FastifyRequest, id: string) => s.runs.dir(userOf(req), id);
  const loaded = (req: FastifyRequest, id: string) => {
    const dir = runDir(req, id);
    try {
      return loadRun(dir);
    } catch {
      throw new ServiceError(404, `run ${id} has no summary yet`);
    }
  };

  r.post(
    '/runs',
    {
      bodyLimit: TEXT_BODY_LIMIT,
      schema: {
        tags: ['runs'],
        summary: 'Start runs: one for a spec, one per variant for a campaign or preset',
        body: StartRunBody,
        response: { 202: StartedRuns, ...errorReplies(404, 409, 503) },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const { lab } = b;
      const input =
        'text' in b
          ? { text: b.text }
          : 'specId' in b
            ? { specId: b.specId, variant: b.variant }
            : { preset: b.preset, part: b.part, shorten: b.shorten, variant: b.variant };
      // Only known labs: a run naming a new one would boot another VM.
      if (lab && !(await s.driver.labs(await s.queue.activeLabs())).some((l) => l.name === lab))
        throw new ServiceError(400, `no lab ${lab}`, [
          { path: 'lab', message: 'must be a lab GET /api/labs lists' },
        ]);
      const runs = await s.runs.create(userOf(req), { ...input, lab });
      const first = await s.board.view(runs[0] as Run);
      return reply.code(202).send({ ...first, queuedRuns: runs.map((x) => x.id) });
    },
  );
  r.get(
    '/runs',
    {
      schema: {
        tags: ['runs'],
        summary: 'Runs I may see, newest first, filtered',
        querystring: ListQuery,
        response: { 200: z.object({ runs: z.array(RunSchema) }) },
      },
    },
    async (req) => ({
      runs: await s.board.views(s.runs.visible(userOf(req), req.query)),
    }),
  );
  r.get(
    '/runs/:id',
    {
      schema: {
        tags: ['runs'],
        summary: 'One run with its status and progress',
        params: Id,
        response: { 200: RunSchema },
      },
    },
    async (req) => s.board.view(s.runs.get(userOf(req), req.params.id)),
  );
  r.post(
    '/runs/:id/stop',
    {
      schema: {
        tags: ['runs'],
        summary: 'Stop a queued or running run',
        params: Id,
        response: { 200: RunSchema },
      },
    },
    async (req) => s.board.view(await s.runs.stop(userOf(req), req.params.id)),
  );
  r.get(
    '/runs/:id/samples',
    {
      schema: {
        tags: ['runs'],
        summary: "A finished run's throughput, TCP, RTT and bottleneck-queue samples for charts",
        params: Id,
        querystring: z.object({
          maxPerSeries: z.coerce
            .number({ error: 'must be a number of samples from 10 to 20000' })
            .int({ error: 'must be a whole number of samples from 10 to 20000' })
            .min(10, { error: 'must be a number of samples from 10 to 20000' })
            .max(20_000, { error: 'must be a number of samples from 10 to 20000' })
            .default(2000),
        }),
        response: { 200: ReplaySchema },
      },
    },
    async (req) => {
      const replay = replaySamples(loaded(req, req.params.id), req.query.maxPerSeries);
      // Typed samples are records with a kind and a time; the schema says only that much.
      return { ...replay, samples: replay.samples as unknown as { kind: string; t: number }[] };
    },
  );
  r.get(
    '/runs/:id/summary',
    {
      schema: { tags: ['runs'], summary: "The run's summary.json", params: Id, response: { 200: Document } },
    },
    async (req) => {
      const summary = readRunSummary(runDir(req, req.params.id));
      if (!summary) throw new ServiceError(404, `run ${req.params.id} has no summary yet`);
      return summary as unknown as Record<string, unknown>;
    },
  );
  r.get(
    '/runs/:id/record',
    {
      schema: {
        tags: ['runs'],
        summary: 'Spec, environment, sysctls, qdiscs, offloads',
        params: Id,
        response: { 200: Document },
      },
    },
    async (req) => {
      const dir = runDir(req, req.params.id);
      const f = (name: string) => readJson(join(dir, name));
      return {
        spec: f('spec.json'),
        environment: f('environment.json'),
        sysctls: f('sysctls.json'),
        qdisc: { before: f('qdisc-before.json'), after: f('qdisc-after.json') },
        links: { before: f('links-before.json'), after: f('links-after.json') },
        offloads: f('offloads.json'),
        idleRtt: f('idle-rtt.json'),
        calibration: f('calibration.json'),
        sampling: f('sampling.json'),
        sockets: f('sockets.json'),
      };
    },
  );
  r.get(
    '/runs/:id/report',
    {
      schema: {
        tags: ['runs'],
        summary: 'The HTML report',
        params: Id,
        response: { 200: textReply('text/html', 'The report, one self-contained HTML page') },
      },
    },
    async (req, reply) =>
      reply.type('text/html; charset=utf-8').send(renderRunReport(loaded(req, req.params.id))),
  );
  r.get(
    '/runs/:id/export/:format',
    {
      schema: {
        tags: ['runs'],
        summary: 'Export: csv (one sample kind, ?kind=), json (everything), flent (.flent.gz)',
        params: Id.extend({
          format: z.enum(['csv', 'json', 'flent'], { error: 'must be csv, json or flent' }),
        }),
        querystring: z.object({
          kind: z.enum(KINDS, { error: `must be one of ${KINDS.join(', ')}` }).default('goodput'),
        }),
        response: {
          200: {
            description: 'The export as a download: CSV, JSON or gzipped flent data',
            content: {
              'text/csv': { schema: z.string() },
              'application/json': { schema: Document },
              'application/gzip': { schema: z.string() },
            },
          },
        },
      },
    },
    async (req, reply) => {
      const run = loaded(req, req.params.id);
      const base = req.params.id.replace(/[^A-Za-z0-9_.-]/g, '_');
      if (req.params.format === 'csv')
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${base}-${req.query.kind}.csv"`)
          .send(samplesCsv(req.query.kind, run.samples[req.query.kind]));
      if (req.params.format === 'json')
        return reply.header('content-disposition', `attachment; filename="${base}.json"`).send(runJson(run));
      return reply
        .type('application/gzip')
        .header('content-disposition', `attachment; filename="${base}.flent.gz"`)
        .send(gzipSync(JSON.stringify(flentData(run))) as unknown as string); // bytes, sent as they are
    },
  );
  r.get(
    '/runs/:id/grafana',
    {
      schema: {
        tags: ['runs'],
        summary: 'A link to the Run dashboard for this run',
        params: Id,
        response: { 200: GrafanaLink },
      },
    },
    async (req) => {
      const run = s.runs.get(userOf(req), req.params.id);
      if (s.storage.health().influx === 'off')
        throw new ServiceError(404, 'no Grafana data: this service runs without InfluxDB (--influx off)');
      let fromMs = Date.parse(run.startedAt ?? run.createdAt);
      try {
        fromMs = trafficStart(loadRun(s.runs.dir(userOf(req), run.id)))?.getTime() ?? fromMs;
      } catch {} // no summary yet: the start of the run will do
      const toMs = run.finishedAt ? Math.max(fromMs, Date.parse(run.finishedAt)) : undefined;
      const base = grafanaBaseFor(s.grafanaUrl, req.hostname);
      return { url: grafanaRunUrl(base, { run: run.id, fromMs, toMs }) };
    },
  );
  r.get(
    '/metric-definitions',
    {
      schema: { tags: ['runs'], summary: 'The metric library', response: { 200: z.array(MetricDefinition) } },
    },
    async () => Object.values(METRICS).map((m) => ({ ...m, name: m.title })),
  );
}
