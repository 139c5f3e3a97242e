// The paper presets as read-only campaigns: what the paper found, how it was scaled, the campaign
// text of each part and the published numbers with their table/figure references; per preset its
// findings as decided on the caller's newest results (or the committed ones), and what a pick of
// part, variant and length costs and whether it fits the caller's quota.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { formatRef, PRESETS_DIR, type Preset } from '../../presets/index.js';
import { presets } from '../../service/runInputs.js';
import { isActive, ServiceError } from '../../service/types.js';
import { type Services, userOf } from '../context.js';
import {
  PresetDetail,
  PresetFindingsReply,
  PresetPickSchema,
  PresetPlanReply,
  PresetSchema,
} from '../schemas.js';

function view(p: Preset) {
  return {
    id: p.name,
    paper: p.meta.paper,
    title: p.meta.experiment,
    finding: p.meta.finding,
    scaling: p.meta.scaling,
    ci: p.meta.ci,
    notExpressed: p.meta.notExpressed,
    parts: p.parts.map((part) => ({
      name: part.name,
      text: readFileSync(join(PRESETS_DIR, part.file), 'utf8'),
    })),
  };
}

const Params = z.object({ id: z.string().max(128) });
const DEFAULT_LAB = 'default';

function presetOf(id: string): Preset {
  const p = presets().find((x) => x.name === id);
  if (!p) throw new ServiceError(404, `no preset ${id}`);
  return p;
}

export async function presetRoutes(app: FastifyInstance, { s }: { s: Services }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/presets',
    { schema: { tags: ['presets'], summary: 'The paper presets', response: { 200: z.array(PresetSchema) } } },
    async () => presets().map(view),
  );
  r.get(
    '/presets/:id',
    {
      schema: {
        tags: ['presets'],
        summary: 'One preset with its published numbers',
        params: Params,
        response: { 200: PresetDetail },
      },
    },
    async (req) => {
      const p = presetOf(req.params.id);
      return {
        ...view(p),
        claims: p.meta.claims,
        published: p.meta.published.map((x) => ({
          id: x.id,
          name: x.name,
          label: x.label,
          value: x.value,
          sd: x.sd,
          unit: x.unit,
          scale: x.scale,
          note: x.note,
          where: x.where,
          ref: x.ref,
          refText: formatRef(x.ref),
        })),
      };
    },
  );
  r.get(
    '/presets/:id/findings',
    {
      schema: {
        tags: ['presets'],
        summary: "The preset's findings, decided on my newest results or the committed ones",
        params: Params,
        response: { 200: PresetFindingsReply },
      },
    },
    async (req) => s.presetFindings.view(userOf(req), presetOf(req.params.id)),
  );
  r.post(
    '/presets/:id/plan',
    {
      schema: {
        tags: ['presets'],
        summary: 'What a pick of part, variant and length starts, costs and whether it fits my quota',
        params: Params,
        body: PresetPickSchema,
        response: { 200: PresetPlanReply },
      },
    },
    async (req) => {
      const user = userOf(req);
      return s.presetPlanner.plan(presetOf(req.params.id).name, req.body, {
        user,
        quota: s.accounts.quotaOf(user),
        active: s.runs.visible(user).filter((r) => r.ownerId === user.id && isActive(r)).length,
        history: s.board.labHistory(DEFAULT_LAB),
        expectedPace: (spec) => s.driver.expectedPace(spec),
        specs: s.specs,
      });
    },
  );
}
