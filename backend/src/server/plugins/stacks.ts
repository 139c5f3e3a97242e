// The stacks a spec may name on this service, whatever state its labs are in: the designer
// registers the added ones (and their parameters) so its copy of the schema is the API's.
import { knownStacks } from '@lfnlab/emulator';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { StackSchema } from '../schemas.js';

export async function stackRoutes(app: FastifyInstance) {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/stacks',
    {
      schema: {
        tags: ['labs'],
        summary: 'Every stack a spec may name: built in, then added ones with their settable parameters',
        response: { 200: z.array(StackSchema) },
      },
    },
    async () =>
      knownStacks().map((s) => ({
        name: s.name,
        origin: s.origin,
        family: s.family,
        ...(s.params?.length ? { params: [...s.params] } : {}),
      })),
  );
}
