// Field builders for the spec schema: unit-carrying strings with their allowed ranges, and the
// shapes every message follows ("is required: ...", "must be ... (got ...)").
import { z } from 'zod';
import {
  AMOUNT_FORM,
  type Amount,
  formatMs,
  formatRate,
  type Parsed,
  parseAmount,
  parseDuration,
  parseRate,
  parseSize,
  RATE_FORM,
  SIZE_FORM,
  TIME_FORM,
} from './units.js';

export type Range = { min: number; max: number };

function unitField(
  form: string,
  parse: (s: string) => Parsed<number>,
  range: Range,
  show: (n: number) => string,
) {
  return z
    .string({ error: (iss) => (iss.input === undefined ? `is required: ${form}` : `must be ${form}`) })
    .meta({ description: `${form}; from ${show(range.min)} to ${show(range.max)}` })
    .transform((text, ctx) => {
      const r = parse(text);
      if (!r.ok) {
        ctx.addIssue({ code: 'custom', message: r.error, input: text });
        return z.NEVER;
      }
      if (!(r.value >= range.min && r.value <= range.max)) {
        ctx.addIssue({
          code: 'custom',
          message: `must be between ${show(range.min)} and ${show(range.max)} (got '${text}')`,
          input: text,
        });
        return z.NEVER;
      }
      return r.value;
    });
}

/** A duration field; output in milliseconds. */
export const duration = (min: number, max: number) =>
  unitField(TIME_FORM, parseDuration, { min, max }, formatMs);
/** A rate field; output in bit/s. */
export const rate = (min: number, max: number) => unitField(RATE_FORM, parseRate, { min, max }, formatRate);

/** A buffer or window: packets, bytes or a BDP multiple, each with its own range. */
export const amount = (limits: { packets: Range; bytes: Range; bdp: Range }) =>
  z
    .union([z.string(), z.number()], {
      error: (iss) => (iss.input === undefined ? `is required: ${AMOUNT_FORM}` : `must be ${AMOUNT_FORM}`),
    })
    .meta({
      description: `${AMOUNT_FORM}; packets ${limits.packets.min}-${limits.packets.max}, bdp ${limits.bdp.min}-${limits.bdp.max}`,
    })
    .transform((input, ctx): Amount => {
      const r = parseAmount(input);
      if (!r.ok) {
        ctx.addIssue({ code: 'custom', message: r.error, input });
        return z.NEVER;
      }
      const [kind, value] = Object.entries(r.value)[0] as [keyof typeof limits, number];
      const { min, max } = limits[kind];
      if (!(value >= min && value <= max)) {
        const unit = kind === 'bdp' ? 'bdp' : kind === 'bytes' ? ' bytes' : ' packets';
        ctx.addIssue({
          code: 'custom',
          message: `${kind} must be between ${min}${unit} and ${max}${unit} (got ${JSON.stringify(input)})`,
          input,
        });
        return z.NEVER;
      }
      return r.value;
    });

export const int = (what: string, min: number, max: number) =>
  z
    .number({ error: (iss) => (iss.input === undefined ? `is required: ${what}` : `must be ${what}`) })
    .int({ error: `must be a whole number (${what})` })
    .min(min, { error: `must be ${what}` })
    .max(max, { error: `must be ${what}` });

export const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;
export const name = (what: string) =>
  z.string({ error: `must be ${what}: letters, digits, '_', '.', '-' (1-32 chars)` }).regex(NAME_RE, {
    error: `must be ${what}: letters, digits, '_', '.', '-' (1-32 chars, starting with a letter or digit)`,
  });

export const strict = <T extends z.core.$ZodLooseShape>(shape: T) =>
  z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `unknown field${iss.keys.length > 1 ? 's' : ''} ${iss.keys.map((k) => `'${k}'`).join(', ')}; allowed: ${Object.keys(shape).join(', ')}`
        : 'must be an object',
  });

/** A size field; output in bytes. */
export const size = (min: number, max: number) =>
  unitField(SIZE_FORM, parseSize, { min, max }, (n) => `${n} B`);

/** A rate, or a share of the path's bottleneck rate ("10%"): { bps } or { share } in 0..1. */
export const rateOrShare = (min: number, max: number) =>
  z
    .string({ error: `must be ${RATE_FORM}, or a share of the bottleneck such as '10%'` })
    .meta({ description: `${RATE_FORM}, or a share of the bottleneck rate such as '10%'` })
    .transform((text, ctx): { bps: number } | { share: number } => {
      const pct = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(text);
      if (pct) {
        const share = Number(pct[1]) / 100;
        if (share > 0 && share <= 1) return { share };
        ctx.addIssue({
          code: 'custom',
          message: `a share must be above 0% and at most 100% (got '${text}')`,
          input: text,
        });
        return z.NEVER;
      }
      const r = parseRate(text);
      if (!r.ok || !(r.value >= min && r.value <= max)) {
        ctx.addIssue({
          code: 'custom',
          message: r.ok
            ? `must be between ${formatRate(min)} and ${formatRate(max)} (got '${text}')`
            : `${r.error}, or a share such as '10%'`,
          input: text,
        });
        return z.NEVER;
      }
      return { bps: r.value };
    });
