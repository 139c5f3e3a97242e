// The queue board (what runs and waits on each lab, with expected starts) and moving a waiting run.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type Services, userOf } from '../context.js';
import { QueueBoardSchema, RunSchema } from '../schemas.js';
import { errorReplies } from './docs.js';

const MoveBody = z.strictObject({
  to: z.enum(['earlier', 'later', 'first', 'last'], { error: 'must be earlier, later, first or last' }),
});

export async function queueRoutes(app: FastifyInstance, { s }: { s: Services }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/queue',
    {
      schema: {
        tags: ['runs'],
        summary: "Each lab's running and waiting runs, in order, with expected starts",
        response: { 200: QueueBoardSchema, ...errorReplies(503) },
      },
    },
    async (req) => s.board.board(userOf(req)),
  );
  r.post(
    '/runs/:id/move',
    {
      config: { access: ['admin', 'instructor'] },
      schema: {
        tags: ['runs'],
        summary: 'Move a waiting run among the waiting runs you control on its lab',
        params: z.object({ id: z.string().max(200) }),
        body: MoveBody,
        response: { 200: RunSchema, ...errorReplies(404, 409) },
      },
    },
    async (req) => {
      const viewer = userOf(req);
      const run = s.runs.get(viewer, req.params.id);
      await s.board.move(viewer, run, req.body.to);
      return s.board.view(run);
    },
  );
}
