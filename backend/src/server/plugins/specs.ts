// Specs and campaigns: validate (every problem with its field path), store, change, duplicate.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ServiceError } from '../../service/types.js';
import { checkCampaignText, checkSpec, checkSpecText } from '../../service/validation.js';
import { type Services, userOf } from '../context.js';
import { TEXT_BODY_LIMIT } from '../limits.js';

const Text = z.string().max(1_000_000, { error: 'must be at most 1 MB' });
const Kind = z.enum(['spec', 'campaign'], { error: 'must be spec or campaign' });
const Name = z
  .string()
  .min(1, { error: 'is required' })
  .max(128, { error: 'must be at most 128 characters' });
const Id = z.object({ id: z.string().max(64) });

const ValidateBody = z
  .object({ text: Text.optional(), spec: z.unknown().optional(), kind: Kind.default('spec') })
  .refine((b) => b.text !== undefined || b.spec !== undefined, {
    error: 'give text (YAML or JSON) or spec (an object)',
    path: ['text'],
  });

export async function specRoutes(app: FastifyInstance, { s }: { s: Services }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/specs/validate',
    {
      bodyLimit: TEXT_BODY_LIMIT,
      schema: {
        tags: ['specs'],
        summary: 'Validate a spec or campaign; always 200 with ok and problems',
        body: ValidateBody,
      },
    },
    async (req) => {
      const { text, spec, kind } = req.body;
      if (kind === 'campaign') {
        const c = checkCampaignText(
          text ?? JSON.stringify(spec ?? null),
          text !== undefined ? 'text' : 'spec',
        );
        return c.ok
          ? {
              ok: true,
              campaign: c.value.campaign,
              variants: c.value.variants.map((v) => ({ id: v.id, params: v.params })),
            }
          : { ok: false, problems: c.problems };
      }
      const v = text !== undefined ? checkSpecText(text, 'text') : checkSpec(spec, 'spec');
      return v.ok ? { ok: true, spec: v.value } : { ok: false, problems: v.problems };
    },
  );
  r.get(
    '/specs',
    { schema: { tags: ['specs'], summary: 'Stored specs and campaigns I may see' } },
    async (req) => {
      const me = userOf(req);
      return s.specs.list((ownerId) => s.access.canSee(me, ownerId));
    },
  );
  r.post(
    '/specs',
    {
      bodyLimit: TEXT_BODY_LIMIT,
      schema: {
        tags: ['specs'],
        summary: 'Store a spec or campaign (it must validate)',
        body: z.object({ name: Name, kind: Kind, text: Text }),
      },
    },
    async (req, reply) => reply.code(201).send(s.specs.create({ ...req.body, owner: userOf(req) })),
  );
  const visible = (req: Parameters<typeof userOf>[0], id: string) => {
    const spec = s.specs.get(id);
    if (!spec || !s.access.canSee(userOf(req), spec.ownerId)) throw new ServiceError(404, `no spec ${id}`);
    return spec;
  };
  const editable = (req: Parameters<typeof userOf>[0], id: string) => {
    const spec = visible(req, id);
    if (!s.access.canEdit(userOf(req), spec.ownerId))
      throw new ServiceError(403, 'only its owner (or an admin) may change this spec');
    return spec;
  };
  r.get('/specs/:id', { schema: { tags: ['specs'], summary: 'One stored spec', params: Id } }, async (req) =>
    visible(req, req.params.id),
  );
  r.put(
    '/specs/:id',
    {
      bodyLimit: TEXT_BODY_LIMIT,
      schema: {
        tags: ['specs'],
        summary: 'Change name or text (it must validate)',
        params: Id,
        body: z.object({ name: Name.optional(), text: Text.optional() }),
      },
    },
    async (req) => {
      editable(req, req.params.id);
      return s.specs.update(req.params.id, req.body);
    },
  );
  r.delete(
    '/specs/:id',
    { schema: { tags: ['specs'], summary: 'Delete a stored spec', params: Id } },
    async (req) => {
      editable(req, req.params.id);
      s.specs.delete(req.params.id);
      return { ok: true };
    },
  );
  r.post(
    '/specs/:id/duplicate',
    { schema: { tags: ['specs'], summary: 'A copy, owned by me', params: Id } },
    async (req, reply) => {
      const src = visible(req, req.params.id);
      const copy = s.specs.create({
        name: `${src.name} (copy)`.slice(0, 128),
        kind: src.kind,
        text: src.text,
        owner: userOf(req),
      });
      return reply.code(201).send(copy);
    },
  );
}
