import { z } from 'zod';
import { StackNameSchema } from './flow.js';
import { SpecSchema } from './schema.js';
import { knownStackNames } from './stacks.js';

/**
 * JSON Schema of what a person writes (the input side of the zod schema). A stack name is checked
 * against the registry at parse time; here it becomes the enum of the stacks known now.
 */
export function specJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(SpecSchema, {
      io: 'input',
      unrepresentable: 'any',
      override: (ctx) => {
        if (ctx.zodSchema === StackNameSchema) ctx.jsonSchema.enum = knownStackNames();
      },
    }),
    $id: 'https://lfnlab.invalid/schema/spec.schema.json',
    title: 'lfnlab experiment spec',
  };
}
