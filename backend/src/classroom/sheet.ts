// A lab sheet: the exercise an instructor hands to a class. A read-only experiment (spec text, or a
// variant of a paper preset), the few fields students may change (each with its allowed range),
// theory to read, a prediction to write before running, questions, and checkpoints graded from
// the run's summary. The shipped sheets are presets/sheets/*.yaml; instructors may publish others.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { PRESETS_DIR } from '../presets/index.js';
import { compileCheck } from './checkEval.js';
import { CheckSyntaxError } from './checkLanguage.js';

export const SHEETS_DIR = join(PRESETS_DIR, 'sheets');

/** Units a numeric field's value is written with into the spec (`60` + `ms` → `60ms`). */
export const FIELD_UNITS = ['ms', 's', 'Kbit', 'Mbit', 'Gbit', 'bdp', 'packets', ''] as const;

const Id = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, { error: 'must be 1-64 lower-case letters, digits, -' });
const Text = (max: number) =>
  z
    .string()
    .min(1, { error: 'is required' })
    .max(max, { error: `must be at most ${max} characters` });
const SpecPath = z.string().regex(/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/, {
  error: 'must be a dotted spec field such as paths.main.rtt or flows.0.stack',
});

export const FieldSchema = z
  .strictObject({
    path: SpecPath,
    label: Text(80),
    help: Text(400).optional(),
    unit: z
      .enum(FIELD_UNITS, { error: `must be one of ${FIELD_UNITS.filter(Boolean).join(', ')} or ""` })
      .optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    step: z.number().positive().optional(),
    options: z.array(z.string().min(1).max(64)).min(2).max(32).optional(),
  })
  .superRefine((f, ctx) => {
    const numeric = f.min !== undefined || f.max !== undefined;
    if (numeric === Boolean(f.options))
      ctx.addIssue({
        code: 'custom',
        path: ['options'],
        message: 'give either min and max (a number) or options (a choice)',
      });
    if (numeric && (f.min === undefined || f.max === undefined || f.min > f.max))
      ctx.addIssue({ code: 'custom', path: ['max'], message: 'a number field needs min ≤ max' });
  });
export type SheetField = z.output<typeof FieldSchema>;

export const CheckpointSchema = z.strictObject({
  id: Id,
  text: Text(300),
  check: Text(500).superRefine((src, ctx) => {
    try {
      compileCheck(src);
    } catch (err) {
      if (err instanceof CheckSyntaxError) ctx.addIssue({ code: 'custom', message: err.message });
      else throw err;
    }
  }),
  points: z.number().int().min(0).max(100).default(1),
});
export type Checkpoint = z.output<typeof CheckpointSchema>;

export const TemplateSchema = z.xor(
  [
    z.strictObject({ spec: Text(64 * 1024) }),
    z.strictObject({
      preset: z.string().max(128),
      part: z.string().max(64).optional(),
      variant: z.string().max(200),
      /** Seconds: paper runs are long; a sheet shortens them to fit a lab session and the quota. */
      duration: z.number().int().min(2).max(3600).optional(),
    }),
  ],
  { error: 'give either spec (text) or preset with variant' },
);
export type Template = z.output<typeof TemplateSchema>;

export const SheetSchema = z.strictObject({
  id: Id,
  title: Text(120),
  /** The preset the sheet is built on (its paper's finding is the background). */
  basedOn: z.string().max(128).optional(),
  summary: Text(400),
  theory: Text(8000),
  template: TemplateSchema,
  fields: z.array(FieldSchema).max(12).default([]),
  prediction: Text(600),
  questions: z
    .array(z.strictObject({ id: Id, text: Text(600) }))
    .max(20)
    .default([]),
  checkpoints: z.array(CheckpointSchema).min(1).max(20),
});
export type Sheet = z.output<typeof SheetSchema>;

let cache: Sheet[] | null = null;

/** The shipped sheets (presets/sheets/*.yaml); a sheet that does not validate fails loudly. */
export function shippedSheets(): Sheet[] {
  if (cache) return cache;
  const out: Sheet[] = [];
  for (const f of readdirSync(SHEETS_DIR)
    .filter((x) => x.endsWith('.yaml'))
    .sort()) {
    const r = SheetSchema.safeParse(parseYaml(readFileSync(join(SHEETS_DIR, f), 'utf8')));
    if (!r.success)
      throw new Error(
        `presets/sheets/${f}: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    out.push(r.data);
  }
  cache = out;
  return out;
}
