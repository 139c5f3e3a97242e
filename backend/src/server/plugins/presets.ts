// The paper presets as read-only campaigns: what the paper found, how it was scaled, the campaign
// text of each part and (on one preset) the published numbers with their table/figure references.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { formatRef, PRESETS_DIR, type Preset } from '../../presets/index.js';
import { presets } from '../../service/runInputs.js';
import { ServiceError } from '../../service/types.js';
import type { Services } from '../context.js';
import { PresetDetail, PresetSchema } from '../schemas.js';

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

export async function presetRoutes(app: FastifyInstance, _: { s: Services }) {
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
        params: z.object({ id: z.string().max(128) }),
        response: { 200: PresetDetail },
      },
    },
    async (req) => {
      const p = presets().find((x) => x.name === req.params.id);
      if (!p) throw new ServiceError(404, `no preset ${req.params.id}`);
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
}
