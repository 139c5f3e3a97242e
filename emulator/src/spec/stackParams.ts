// The spec's `stackParams`: module parameters of the stacks, set for one run and restored after it
// (they are global to the lab kernel). Checked against the catalog (stackParamCatalog.ts): only
// parameters a running socket reads from sysfs, or that the lab kernel takes when it boots, each
// within its range.
import { z } from 'zod';
import { paramStacks, settableParams, stackParam, stackParamsOf } from './stackParamCatalog.js';
import { isKnownStack } from './stacks.js';

export * from './stackParamCatalog.js';

const settableStacks = () => paramStacks().filter((s) => settableParams(s).length > 0);

const why = (sysfs: string) =>
  sysfs === 'load'
    ? 'is read only when the module loads, so a run cannot change it'
    : sysfs === 'hidden'
      ? 'is a module parameter without a sysfs file, so a run cannot change it'
      : 'is a compile-time constant of the module, so a run cannot change it';

type Params = Record<string, Record<string, number>>;

function checkStackParams(value: Params, ctx: z.core.$RefinementCtx<Params>): void {
  for (const [stack, params] of Object.entries(value)) {
    if (!stackParamsOf(stack)) {
      ctx.addIssue({
        code: 'custom',
        path: [stack],
        message: isKnownStack(stack)
          ? `${stack} has no settable parameters (an added stack's are its module_params the owner may write, with a literal default); stacks with some: ${settableStacks().join(', ')}`
          : `unknown stack; stacks with settable parameters: ${settableStacks().join(', ')}`,
      });
      continue;
    }
    const names = settableParams(stack).map((p) => p.name);
    for (const [name, v] of Object.entries(params)) {
      const p = stackParam(stack, name);
      if (!p) {
        ctx.addIssue({
          code: 'custom',
          path: [stack, name],
          message: names.length
            ? `${stack} has no parameter '${name}'; settable: ${names.join(', ')}`
            : `${stack} has no settable parameters`,
        });
      } else if (p.sysfs !== 'live' && !p.boot) {
        ctx.addIssue({
          code: 'custom',
          path: [stack, name],
          message: `${why(p.sysfs)}${names.length ? `; settable for ${stack}: ${names.join(', ')}` : ''}`,
        });
      } else if (!Number.isInteger(v) || v < p.min || v > p.max) {
        ctx.addIssue({
          code: 'custom',
          path: [stack, name],
          message: `must be a whole number from ${p.min} to ${p.max} (${p.unit}; default ${p.default})`,
        });
      }
    }
  }
}

const MESSAGE = 'must map stack names to { parameter: whole number }, e.g. { fast: { alpha: 16 } }';

/** `stackParams: { fast: { alpha: 16 }, vegas: { alpha: 1, beta: 3 } }`. */
export const StackParamsSchema = z
  .record(z.string(), z.record(z.string(), z.number({ error: 'must be a number' }), { error: MESSAGE }), {
    error: MESSAGE,
  })
  .superRefine(checkStackParams)
  .optional()
  .meta({ description: 'stack → module parameter → value, in force for the run only' });
