// The experiment spec: one zod schema shared by the CLI, the API and the UI.
// Input is what a person writes (strings with units); output is normalised numbers:
// durations in ms, rates in bit/s, sizes in bytes. Every message names what is allowed.
import { z } from 'zod';
import { STACK_NAMES } from './stacks.js';
import {
  AMOUNT_FORM,
  type Amount,
  formatMs,
  formatRate,
  type Parsed,
  parseAmount,
  parseDuration,
  parseRate,
  RATE_FORM,
  TIME_FORM,
} from './units.js';

type Range = { min: number; max: number };

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

const int = (what: string, min: number, max: number) =>
  z
    .number({ error: (iss) => (iss.input === undefined ? `is required: ${what}` : `must be ${what}`) })
    .int({ error: `must be a whole number (${what})` })
    .min(min, { error: `must be ${what}` })
    .max(max, { error: `must be ${what}` });

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;
const name = (what: string) =>
  z.string({ error: `must be ${what}: letters, digits, '_', '.', '-' (1-32 chars)` }).regex(NAME_RE, {
    error: `must be ${what}: letters, digits, '_', '.', '-' (1-32 chars, starting with a letter or digit)`,
  });

const strict = <T extends z.core.$ZodLooseShape>(shape: T) =>
  z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `unknown field${iss.keys.length > 1 ? 's' : ''} ${iss.keys.map((k) => `'${k}'`).join(', ')}; allowed: ${Object.keys(shape).join(', ')}`
        : 'must be an object',
  });

export const LIMITS = {
  rttMs: { min: 0, max: 5000 },
  rateBps: { min: 10e3, max: 10e9 },
  ber: { min: 0, max: 1e-3 },
  runMs: { min: 1e3, max: 24 * 3600e3 },
  sampleMs: { min: 100, max: 10e3 },
  flows: 64,
  streams: 128,
} as const;

const buffer = amount({
  packets: { min: 2, max: 1_000_000 },
  bytes: { min: 3000, max: 2 ** 31 },
  bdp: { min: 0.01, max: 100 },
});

export const PathSchema = strict({
  /** Round-trip propagation delay, ms; split evenly between the two directions. */
  rtt: duration(LIMITS.rttMs.min, LIMITS.rttMs.max),
  /** Bottleneck rate, bit/s (layer-2 frames, as tc counts them). */
  rate: rate(LIMITS.rateBps.min, LIMITS.rateBps.max),
  /** Bottleneck buffer. */
  buffer: buffer.prefault('1bdp'),
  /** Bit error rate applied to both directions, turned into a per-packet loss by frame size. */
  ber: z
    .number({ error: 'must be a bit error rate between 0 and 1e-3, e.g. 1e-7' })
    .min(LIMITS.ber.min, { error: 'must be a bit error rate between 0 and 1e-3, e.g. 1e-7' })
    .max(LIMITS.ber.max, { error: 'must be a bit error rate between 0 and 1e-3, e.g. 1e-7' })
    .default(0),
  /** Delay variation added to each direction's delay, ms. */
  jitter: duration(0, 1000).prefault('0ms'),
  /** netem's jitter distribution; uniform unless a table is named. */
  jitterDistribution: z
    .enum(['uniform', 'normal', 'pareto', 'paretonormal'], {
      error: 'must be one of uniform, normal, pareto, paretonormal',
    })
    .default('uniform'),
  /** The reverse bottleneck (receiver → sender); the forward rate and buffer unless given. */
  reverse: strict({
    rate: rate(LIMITS.rateBps.min, LIMITS.rateBps.max).optional(),
    buffer: buffer.optional(),
  }).optional(),
});

export const FlowSchema = strict({
  name: name('a flow name').optional(),
  stack: z.enum(STACK_NAMES, {
    error: (iss) =>
      iss.input === undefined
        ? `is required: one of ${STACK_NAMES.join(', ')}`
        : `unknown stack ${JSON.stringify(iss.input)}; available: ${STACK_NAMES.join(', ')}`,
  }),
  /** Name of a path in `paths`; may be left out when there is only one. */
  path: z.string({ error: 'must be the name of a path' }).optional(),
  /** Parallel TCP connections of this flow (P-TCP style); each gets the same stack. */
  streams: int(`a whole number from 1 to ${LIMITS.streams}`, 1, LIMITS.streams).default(1),
  /** Start offset from the run's start, ms. */
  start: duration(0, LIMITS.runMs.max).prefault('0s'),
  /** How long the flow sends, ms; until the run ends unless given. */
  duration: duration(1000, LIMITS.runMs.max).optional(),
  /** forward: sender side → receiver side; reverse: the other way over the reverse bottleneck. */
  direction: z.enum(['forward', 'reverse'], { error: 'must be forward or reverse' }).default('forward'),
  /** Socket buffer (iperf3 -w), which caps the window; a size or a BDP multiple. */
  window: amount({
    packets: { min: 2, max: 1_000_000 },
    bytes: { min: 2048, max: 2 ** 30 },
    bdp: { min: 0.01, max: 100 },
  }).optional(),
});

const SpecObject = strict({
  name: name('an experiment name'),
  description: z
    .string({ error: 'must be text' })
    .max(2000, { error: 'must be at most 2000 characters' })
    .optional(),
  /** Run length, ms. */
  duration: duration(LIMITS.runMs.min, LIMITS.runMs.max),
  /** Interval of iperf3's per-flow reports (goodput at the receiver, retransmits), ms. */
  sampleInterval: duration(LIMITS.sampleMs.min, LIMITS.sampleMs.max).prefault('1s'),
  /** Rate of the fine-grained samplers: TCP state per socket, bottleneck queue, lab CPU, RTT probe. */
  sampleHz: int('a sample rate from 1 to 100 Hz', 1, 100).default(10),
  seed: int('a whole number from 0 to 2^31-1', 0, 2 ** 31 - 1).default(1),
  mtu: int('an MTU from 576 to 9000 bytes', 576, 9000).default(1500),
  paths: z
    .record(name('a path name'), PathSchema, { error: 'must map path names to paths' })
    .refine((p) => Object.keys(p).length >= 1 && Object.keys(p).length <= 8, {
      error: 'must define 1 to 8 paths',
    }),
  flows: z
    .array(FlowSchema, { error: `must be a list of 1 to ${LIMITS.flows} flows` })
    .min(1, { error: `must be a list of 1 to ${LIMITS.flows} flows` })
    .max(LIMITS.flows, { error: `must be a list of 1 to ${LIMITS.flows} flows` }),
});

type SpecOut = z.output<typeof SpecObject>;

function checkSpec(spec: SpecOut, ctx: z.core.$RefinementCtx<SpecOut>): void {
  const pathNames = Object.keys(spec.paths);
  const seen = new Set<string>();
  spec.flows.forEach((flow, i) => {
    if (flow.path === undefined && pathNames.length > 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['flows', i, 'path'],
        message: `is required when there are several paths; one of ${pathNames.join(', ')}`,
      });
    } else if (flow.path !== undefined && !(flow.path in spec.paths)) {
      ctx.addIssue({
        code: 'custom',
        path: ['flows', i, 'path'],
        message: `unknown path ${JSON.stringify(flow.path)}; defined: ${pathNames.join(', ')}`,
      });
    }
    if (flow.start >= spec.duration) {
      ctx.addIssue({
        code: 'custom',
        path: ['flows', i, 'start'],
        message: `must be before the run ends (${formatMs(spec.duration)})`,
      });
    } else if (flow.duration !== undefined && flow.start + flow.duration > spec.duration) {
      ctx.addIssue({
        code: 'custom',
        path: ['flows', i, 'duration'],
        message: `start + duration must be at most the run's duration ${formatMs(spec.duration)} (at most ${formatMs(spec.duration - flow.start)} here)`,
      });
    }
    const runs = flow.duration ?? spec.duration - flow.start;
    if (flow.start < spec.duration && runs % 1000 !== 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['flows', i, flow.duration === undefined ? 'start' : 'duration'],
        message: `the flow must send for a whole number of seconds (iperf3's unit); it would send ${formatMs(runs)}`,
      });
    }
    const id = flowName(flow, i);
    if (seen.has(id)) {
      ctx.addIssue({ code: 'custom', path: ['flows', i, 'name'], message: `duplicate flow name '${id}'` });
    }
    seen.add(id);
  });
  for (const [pname, path] of Object.entries(spec.paths)) {
    if (path.jitter > path.rtt / 2) {
      ctx.addIssue({
        code: 'custom',
        path: ['paths', pname, 'jitter'],
        message: `must be at most the one-way delay, rtt/2 = ${formatMs(path.rtt / 2)}`,
      });
    }
    if (path.jitter === 0 && path.jitterDistribution !== 'uniform') {
      ctx.addIssue({
        code: 'custom',
        path: ['paths', pname, 'jitterDistribution'],
        message: 'needs a jitter above 0ms',
      });
    }
  }
  const streams = spec.flows.reduce((n, f) => n + f.streams, 0);
  if (streams > 256) {
    ctx.addIssue({ code: 'custom', path: ['flows'], message: `at most 256 streams in all (got ${streams})` });
  }
}

const flowName = (flow: { name?: string | undefined; stack: string }, i: number) =>
  flow.name ?? `${flow.stack}-${i + 1}`;

/** Fill defaults that depend on other fields, so every later stage sees a complete spec. */
function resolveSpec(spec: SpecOut) {
  const [onlyPath] = Object.keys(spec.paths);
  return {
    ...spec,
    paths: Object.fromEntries(
      Object.entries(spec.paths).map(([pname, p]) => [
        pname,
        { ...p, reverse: { rate: p.reverse?.rate ?? p.rate, buffer: p.reverse?.buffer ?? p.buffer } },
      ]),
    ),
    flows: spec.flows.map((f, i) => ({
      ...f,
      name: flowName(f, i),
      path: f.path ?? (onlyPath as string),
      duration: f.duration ?? spec.duration - f.start,
    })),
  };
}

export const SpecSchema = SpecObject.superRefine(checkSpec).transform(resolveSpec);

/** What a person writes. */
export type SpecInput = z.input<typeof SpecSchema>;
/** What every stage after validation works with. */
export type Spec = z.output<typeof SpecSchema>;
export type Path = Spec['paths'][string];
export type Flow = Spec['flows'][number];
