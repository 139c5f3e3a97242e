// GET /api/runs/:id/live (WebSocket): the run's window of downsampled samples, events and progress
// after `cursor`, then `caught-up`, then live messages; closed after `done`. A client that drops
// reconnects with the last seq it saw and loses nothing still in the window.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { Downsampler, type LiveMessage } from '../../service/liveHub.js';
import { isActive } from '../../service/types.js';
import { type Services, userOf } from '../context.js';

/** A browser that stops reading is cut off rather than held in memory. */
const MAX_BUFFERED = 16 * 1024 * 1024;

export async function liveRoutes(app: FastifyInstance, { s }: { s: Services }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/runs/:id/live',
    {
      websocket: true,
      schema: {
        tags: ['live'],
        summary: 'WebSocket: live samples, events and progress of a run (?cursor= resumes, ?maxHz= thins)',
        params: z.object({ id: z.string().max(200) }),
        querystring: z.object({
          cursor: z.coerce.number().int().min(0, { error: 'must be a seq (0 or more)' }).default(0),
          maxHz: z.coerce
            .number()
            .min(0.1, { error: 'must be 0.1 to 100' })
            .max(100, { error: 'must be 0.1 to 100' })
            .default(10),
        }),
      },
      // Access is checked before the upgrade, so a refusal is a plain 401/404.
      preHandler: async (req) => {
        s.runs.get(userOf(req), (req.params as { id: string }).id);
      },
    },
    (socket: WebSocket, req) => {
      const run = s.runs.get(userOf(req), req.params.id);
      const { cursor, maxHz } = req.query;
      const channel = isActive(run) ? s.hub.open(run.id) : s.hub.channel(run.id);
      const thin = maxHz < s.hub.maxHz ? new Downsampler(maxHz) : null;
      let replaying = true;
      let ended = false;
      const send = (m: LiveMessage) => {
        if (m.seq <= cursor || socket.readyState !== socket.OPEN) return;
        if (m.type === 'sample' && thin && !thin.keep(m.sample)) return;
        if (socket.bufferedAmount > MAX_BUFFERED) {
          socket.close(1013, 'too far behind; reconnect with ?cursor=');
          return;
        }
        socket.send(JSON.stringify(m));
        if (m.type === 'event' && m.event === 'done') {
          ended = true;
          if (!replaying) socket.close(1000, 'done');
        }
      };
      if (!channel) {
        // Ended before this process started: no window, only how it ended.
        const data = { status: run.status, verdict: run.verdict, error: run.error, partial: run.partial };
        socket.send(JSON.stringify({ seq: 1, type: 'event', event: 'done', data }));
        socket.send(JSON.stringify({ seq: 2, type: 'caught-up' }));
        socket.close(1000, 'done');
        return;
      }
      // Backlog and subscription in one synchronous step: nothing published can fall between them.
      const queued: LiveMessage[] = [];
      const unsubscribe = channel.subscribe((m) => (replaying ? queued.push(m) : send(m)));
      socket.on('close', unsubscribe);
      for (const m of channel.since(cursor)) send(m);
      if (socket.readyState === socket.OPEN)
        socket.send(JSON.stringify({ seq: channel.nextSeq(), type: 'caught-up' }));
      replaying = false;
      for (const m of queued) send(m);
      if (ended || channel.ended) socket.close(1000, 'done');
    },
  );
}
