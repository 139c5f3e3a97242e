// Specs and campaigns: validate (every problem with its field path), store, change, duplicate.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ServiceError } from '../../service/types.js';
import {
  checkCampaignDocument,
  checkCampaignText,
  checkSpec,
  checkSpecText,
} from '../../service/validation.js';
import { type Services, userOf } from '../context.js';
import { MAX_TEXT_CHARS, TEXT_BODY_LIMIT } from '../limits.js';
import { Ok, StoredSpecSchema, ValidateReply } from '../schemas.js';
import { errorReplies } from './docs.js';

const Text = z.string().max(MAX_TEXT_CHARS, { error: `must be at most ${MAX_TEXT_CHARS} characters` });
const Kind = z.enum(['spec', 'campaign'], { error: 'must be spec or campaign' });
const Name = z
  .string()
  .min(1, { error: 'is required' })
  .max(128, { error: 'must be at most 128 characters' });
const Id = z.object({ id: z.string().max(64) });

// Exactly one of text and spec: the OpenAPI document says so (oneOf), and so does validation.
const ValidateBody = z.xor(
  [
    z.strictObject({ text: Text, kind: Kind.default('spec') }),
    z.strictObject({ spec: z.unknown().refine((v) => v !== undefined), kind: Kind.default('spec') }),
  ],
  { error: 'give either text (YAML or JSON) or spec (an object), not both' },
);

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
        response: { 200: ValidateReply },
      },
    },
    async (req) => {
      const { kind } = req.body;
      const text = 'text' in req.body ? req.body.text : undefined;
      const spec = 'spec' in req.body ? req.body.spec : undefined;
      if (kind === 'campaign') {
        const c =
          text !== undefined
            ? await checkCampaignText(text, 'text')
            : await checkCampaignDocument(spec ?? null, 'spec');
        return c.ok
          ? {
              ok: true as const,
              campaign: c.value.campaign,
              variants: c.value.variants.map((v) => ({ id: v.id, label: v.label, params: v.params })),
            }
          : { ok: false as const, problems: c.problems };
      }
      const v = text !== undefined ? checkSpecText(text, 'text') : checkSpec(spec, 'spec');
      return v.ok ? { ok: true as const, spec: v.value } : { ok: false as const, problems: v.problems };
    },
  );
  r.get(
    '/specs',
    {
      schema: {
        tags: ['specs'],
        summary: 'Stored specs and campaigns I may see',
        response: { 200: z.array(StoredSpecSchema) },
      },
    },
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
        response: { 201: StoredSpecSchema, ...errorReplies(409) },
      },
    },
    async (req, reply) => reply.code(201).send(await s.specs.create({ ...req.body, owner: userOf(req) })),
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
  r.get(
    '/specs/:id',
    {
      schema: {
        tags: ['specs'],
        summary: 'One stored spec',
        params: Id,
        response: { 200: StoredSpecSchema },
      },
    },
    async (req) => visible(req, req.params.id),
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
        response: { 200: StoredSpecSchema, ...errorReplies(409) },
      },
    },
    async (req) => {
      editable(req, req.params.id);
      return await s.specs.update(req.params.id, req.body);
    },
  );
  r.delete(
    '/specs/:id',
    { schema: { tags: ['specs'], summary: 'Delete a stored spec', params: Id, response: { 200: Ok } } },
    async (req) => {
      editable(req, req.params.id);
      s.specs.delete(req.params.id);
      return { ok: true };
    },
  );
  r.post(
    '/specs/:id/duplicate',
    {
      schema: {
        tags: ['specs'],
        summary: 'A copy, owned by me',
        params: Id,
        response: { 201: StoredSpecSchema, ...errorReplies(409) },
      },
    },
    async (req, reply) => {
      const src = visible(req, req.params.id);
      const copy = await s.specs.create({
        name: `${src.name} (copy)`.slice(0, 128),
        kind: src.kind,
        text: src.text,
        owner: userOf(req),
      });
      return reply.code(201).send(copy);
    },
  );
}
