// GET /api/runs/:id/live (WebSocket): the run's window of downsampled samples, events and progress
// after `cursor`, then `caught-up`, then live messages; closed after `done`. A client that drops
// reconnects with the last seq it saw and loses nothing still in the window.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { Downsampler, type LiveMessage } from '../../service/liveHub.js';
import { isActive, ServiceError } from '../../service/types.js';
import { type Services, userOf } from '../context.js';
import { LIVE_BEHIND_CODE, MAX_LIVE_BUFFERED, MAX_SOCKETS_PER_USER } from '../limits.js';

export async function liveRoutes(app: FastifyInstance, { s }: { s: Services }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  /** Open live sockets per user id. */
  const open = new Map<string, number>();
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
        const me = userOf(req);
        s.runs.get(me, (req.params as { id: string }).id);
        if ((open.get(me.id) ?? 0) >= MAX_SOCKETS_PER_USER)
          throw new ServiceError(429, `at most ${MAX_SOCKETS_PER_USER} live sockets per user; close some`, [
            { path: '(connection)', message: `at most ${MAX_SOCKETS_PER_USER} open per user` },
          ]);
      },
    },
    (socket: WebSocket, req) => {
      const me = userOf(req);
      open.set(me.id, (open.get(me.id) ?? 0) + 1);
      socket.on('close', () => {
        const n = (open.get(me.id) ?? 1) - 1;
        if (n > 0) open.set(me.id, n);
        else open.delete(me.id);
      });
      const run = s.runs.get(me, req.params.id);
      const { cursor, maxHz } = req.query;
      const channel = isActive(run) ? s.hub.open(run.id) : s.hub.channel(run.id);
      const thin = maxHz < s.hub.maxHz ? new Downsampler(maxHz) : null;
      let replaying = true;
      let ended = false;
      const send = (m: LiveMessage) => {
        if (m.seq <= cursor || socket.readyState !== socket.OPEN) return;
        if (m.type === 'sample' && thin && !thin.keep(m.sample)) return;
        // A reader that stops reading is cut off early rather than held in memory; the client
        // reconnects with ?cursor= and resumes from the window.
        if (socket.bufferedAmount > MAX_LIVE_BUFFERED) {
          socket.close(LIVE_BEHIND_CODE, 'too far behind; reconnect with ?cursor=');
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
