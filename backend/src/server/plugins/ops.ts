// For operators: an unauthenticated health check and Prometheus metrics (admin).
import type { FastifyInstance } from 'fastify';
import { type Services, userOf } from '../context.js';
import { Health, textReply } from '../schemas.js';

const line = (
  name: string,
  help: string,
  type: 'gauge' | 'counter',
  samples: Array<[Record<string, string>, number]>,
) =>
  [
    `# HELP ${name} ${help}`,
    `# TYPE ${name} ${type}`,
    ...samples.map(([labels, v]) => {
      const l = Object.entries(labels).map(([k, x]) => `${k}="${x.replace(/["\\\n]/g, '_')}"`);
      return `${name}${l.length ? `{${l.join(',')}}` : ''} ${v}`;
    }),
  ].join('\n');

export async function opsRoutes(app: FastifyInstance, { s }: { s: Services }) {
  app.get(
    '/health',
    {
      config: { access: 'public' },
      schema: {
        tags: ['ops'],
        summary:
          'Liveness: storage, queue, this service’s labs and the workers heard from (no auth; run ids for admins)',
        response: { 200: Health },
      },
    },
    async (req) => {
      const h = s.storage.health();
      const q = await s.queue.counts();
      const labs = (await s.driver.labs(await s.queue.activeLabs())).map((l) => ({
        name: l.name,
        state: l.state,
      }));
      const workers = s.workerList.list({ withRuns: req.caller?.user.role === 'admin' });
      return {
        ok: true,
        influx: h.influx,
        spoolBytes: h.spoolBytes,
        queue: q.waiting + q.active,
        labs,
        workers,
      };
    },
  );
  app.get(
    '/ops/metrics',
    {
      config: { access: ['admin'] },
      schema: {
        tags: ['ops'],
        summary: 'Prometheus metrics (admin)',
        response: { 200: textReply('text/plain', 'Prometheus text exposition format') },
      },
    },
    async (req, reply) => {
      const runs = s.runs.visible(userOf(req));
      const byStatus = new Map<string, number>();
      for (const r of runs) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
      const h = s.storage.health();
      const q = await s.queue.counts();
      const text = [
        line(
          'lfnlab_runs',
          'Runs known to the service, by status',
          'gauge',
          ['queued', 'running', 'completed', 'failed', 'aborted'].map((st) => [
            { status: st },
            byStatus.get(st) ?? 0,
          ]),
        ),
        line('lfnlab_queue_jobs', 'Jobs in the run queue', 'gauge', [
          [{ state: 'waiting' }, q.waiting],
          [{ state: 'active' }, q.active],
        ]),
        line('lfnlab_samples_written_total', 'Points written to InfluxDB', 'counter', [[{}, h.written]]),
        line('lfnlab_storage_pending_lines', 'Points not yet in InfluxDB (memory and spool)', 'gauge', [
          [{}, h.pendingLines],
        ]),
        line('lfnlab_spool_bytes', 'Bytes spooled on disk while InfluxDB is away', 'gauge', [
          [{}, h.spoolBytes],
        ]),
        line('lfnlab_influx_up', 'InfluxDB reachable (1), away (0), storage off (-1)', 'gauge', [
          [{}, h.influx === 'up' ? 1 : h.influx === 'down' ? 0 : -1],
        ]),
        line('lfnlab_uptime_seconds', 'Seconds since the service started', 'gauge', [
          [{}, Math.round((Date.now() - s.startedAt.getTime()) / 1000)],
        ]),
      ].join('\n');
      return reply.type('text/plain; version=0.0.4').send(`${text}\n`);
    },
  );
}
