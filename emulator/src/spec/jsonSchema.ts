import { z } from 'zod';
import { SpecSchema } from './schema.js';

/** JSON Schema of what a person writes (the input side of the zod schema). */
export function specJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(SpecSchema, { io: 'input', unrepresentable: 'any' }),
    $id: 'https://lfnlab.invalid/schema/spec.schema.json',
    title: 'lfnlab experiment spec',
  };
}
