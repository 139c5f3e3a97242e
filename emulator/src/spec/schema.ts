// The experiment spec: one zod schema shared by the CLI, the API and the UI.
// Input is what a person writes (strings with units); output is normalised numbers:
// durations in ms, rates in bit/s, sizes in bytes. Every message names what is allowed.
import { z } from 'zod';
import { amount, duration, int, name, rate, rateOrShare, size, strict } from './fields.js';
import { STACK_NAMES } from './stacks.js';
import { formatMs, formatRate } from './units.js';

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
  /**
   * Queue discipline at the bottleneck. fifo: netem's tail-drop queue of `buffer` packets (exact
   * packet spacing); the others run under an htb shaper (cake shapes itself), with `buffer` as
   * their limit and ECN marking on, so ECN-capable stacks (DCTCP) see marks instead of drops.
   */
  aqm: z
    .enum(['fifo', 'red', 'codel', 'fq_codel', 'pie', 'cake'], {
      error: 'must be one of fifo, red, codel, fq_codel, pie, cake',
    })
    .default('fifo'),
  /**
   * UDP cross traffic through the forward bottleneck, each from its own namespace on the sender side
   * (seed 000's sinusoidal load, seed 002's CBR and self-similar backgrounds). Rates at the IP layer.
   */
  cross: z
    .array(
      strict({
        pattern: z.enum(['cbr', 'sine', 'selfsimilar'], { error: 'must be cbr, sine or selfsimilar' }),
        /** cbr: the constant rate. */
        rate: rateOrShare(LIMITS.rateBps.min, LIMITS.rateBps.max).optional(),
        /** sine and selfsimilar: the mean rate. */
        mean: rateOrShare(LIMITS.rateBps.min, LIMITS.rateBps.max).optional(),
        /** sine: rate(t) = mean + amplitude · sin(2πt / period); at most the mean. */
        amplitude: rateOrShare(0, LIMITS.rateBps.max).optional(),
        period: duration(100, LIMITS.runMs.max).optional(),
        /** selfsimilar: the Hurst parameter of the superposed on/off sources. */
        hurst: z
          .number({ error: 'must be a Hurst parameter from 0.5 to 0.99' })
          .min(0.5, { error: 'must be a Hurst parameter from 0.5 to 0.99' })
          .max(0.99, { error: 'must be a Hurst parameter from 0.5 to 0.99' })
          .optional(),
        sources: int('a whole number from 1 to 1024', 1, 1024).default(16),
        start: duration(0, LIMITS.runMs.max).prefault('0s'),
        duration: duration(1000, LIMITS.runMs.max).optional(),
        /** UDP payload per datagram, bytes. */
        size: int('a datagram payload from 16 to 65507 bytes', 16, 65507).default(1472),
      }),
      { error: 'must be a list of cross-traffic sources' },
    )
    .max(8, { error: 'must have at most 8 cross-traffic sources' })
    .default([]),
  /** Changes during the run: from `at` on, the bottleneck rate and/or the RTT take new values. */
  changes: z
    .array(
      strict({
        at: duration(0, LIMITS.runMs.max),
        rate: rate(LIMITS.rateBps.min, LIMITS.rateBps.max).optional(),
        rtt: duration(LIMITS.rttMs.min, LIMITS.rttMs.max).optional(),
      }),
      { error: 'must be a list of { at, rate?, rtt? }' },
    )
    .max(100, { error: 'must have at most 100 changes' })
    .default([]),
  /** The reverse bottleneck (receiver → sender); the forward rate and buffer unless given. */
  reverse: strict({
    rate: rate(LIMITS.rateBps.min, LIMITS.rateBps.max).optional(),
    buffer: buffer.optional(),
  }).optional(),
});

const sysctlMap = z.record(
  z.string().regex(/^net\.[a-z0-9_.-]+$/, { error: 'must be a net.* sysctl key, e.g. net.ipv4.tcp_ecn' }),
  z.union([z.string().regex(/^[\w .:-]*$/, { error: 'must be a plain value' }), z.number()], {
    error: 'must be a number or a plain string',
  }),
  { error: 'must map net.* sysctl keys (e.g. net.ipv4.tcp_ecn) to numbers or plain strings' },
);

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
  /**
   * This flow's own round-trip propagation delay: its hosts get their own delay stages but share
   * the path's bottleneck, so flows with different RTTs compete for one queue (seed 000 §7).
   */
  rtt: duration(LIMITS.rttMs.min, LIMITS.rttMs.max).optional(),
  /** forward: sender side → receiver side; reverse: the other way over the reverse bottleneck. */
  direction: z.enum(['forward', 'reverse'], { error: 'must be forward or reverse' }).default('forward'),
  /** Send this many bytes and stop (iperf3 -n), instead of sending for a duration. */
  bytes: size(1e3, 1e12).optional(),
  /** This flow `count` times: the staggered-start shorthand (seed 001's DST: one more every 50 s). */
  count: int('a whole number from 1 to 64', 1, 64).default(1),
  /** With `count`: flow k (from 0) starts at start + k × every. */
  every: duration(0, LIMITS.runMs.max).prefault('0s'),
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
  /** sysctl overrides per role (net.* only: the ones that live in a namespace), after the lab's defaults. */
  sysctls: strict({ sender: sysctlMap, receiver: sysctlMap, router: sysctlMap }).partial().optional(),
  flows: z
    .array(FlowSchema, { error: `must be a list of 1 to ${LIMITS.flows} flows` })
    .min(1, { error: `must be a list of 1 to ${LIMITS.flows} flows` })
    .max(LIMITS.flows, { error: `must be a list of 1 to ${LIMITS.flows} flows` }),
});

type SpecOut = z.output<typeof SpecObject>;

function checkSpec(spec: SpecOut, ctx: z.core.$RefinementCtx<SpecOut>): void {
  const pathNames = Object.keys(spec.paths);
  const seen = new Set<string>();
  let expanded = 0;
  spec.flows.forEach((flow, i) => {
    const at = (field: string) => ['flows', i, field];
    if (flow.path === undefined && pathNames.length > 1) {
      ctx.addIssue({
        code: 'custom',
        path: at('path'),
        message: `is required when there are several paths; one of ${pathNames.join(', ')}`,
      });
    } else if (flow.path !== undefined && !(flow.path in spec.paths)) {
      ctx.addIssue({
        code: 'custom',
        path: at('path'),
        message: `unknown path ${JSON.stringify(flow.path)}; defined: ${pathNames.join(', ')}`,
      });
    }
    if (flow.bytes !== undefined && flow.duration !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: at('bytes'),
        message: 'give either bytes (a transfer of that size) or duration, not both',
      });
    }
    const ownPath = spec.paths[flow.path ?? pathNames[0] ?? ''];
    if (flow.rtt !== undefined && ownPath && ownPath.jitter > flow.rtt / 2) {
      ctx.addIssue({
        code: 'custom',
        path: at('rtt'),
        message: `must be at least twice the path's jitter (${formatMs(ownPath.jitter)})`,
      });
    }
    expanded += flow.count;
    const lastStart = flow.start + (flow.count - 1) * flow.every;
    if (flow.start >= spec.duration) {
      ctx.addIssue({
        code: 'custom',
        path: at('start'),
        message: `must be before the run ends (${formatMs(spec.duration)})`,
      });
    } else if (lastStart >= spec.duration) {
      ctx.addIssue({
        code: 'custom',
        path: at('every'),
        message: `the last of ${flow.count} flows would start at ${formatMs(lastStart)}, after the run ends (${formatMs(spec.duration)})`,
      });
    } else if (flow.duration !== undefined && lastStart + flow.duration > spec.duration) {
      ctx.addIssue({
        code: 'custom',
        path: at('duration'),
        message: `start + duration must be at most the run's duration ${formatMs(spec.duration)} (at most ${formatMs(spec.duration - lastStart)} here)`,
      });
    } else if (flow.bytes === undefined) {
      for (let k = 0; k < flow.count; k++) {
        const runs = flow.duration ?? spec.duration - (flow.start + k * flow.every);
        if (runs % 1000 !== 0) {
          ctx.addIssue({
            code: 'custom',
            path: at(flow.duration === undefined ? (k ? 'every' : 'start') : 'duration'),
            message: `the flow must send for a whole number of seconds (iperf3's unit); it would send ${formatMs(runs)}`,
          });
          break;
        }
      }
    }
    for (const id of expandedNames(flow, i)) {
      if (seen.has(id))
        ctx.addIssue({ code: 'custom', path: at('name'), message: `duplicate flow name '${id}'` });
      seen.add(id);
    }
  });
  if (expanded > LIMITS.flows) {
    ctx.addIssue({
      code: 'custom',
      path: ['flows'],
      message: `at most ${LIMITS.flows} flows once counts are expanded (got ${expanded})`,
    });
  }
  for (const [pname, path] of Object.entries(spec.paths)) {
    path.cross.forEach((c, i) => {
      const at = (field: string) => ['paths', pname, 'cross', i, field];
      const bps = (r: { bps: number } | { share: number } | undefined) =>
        r === undefined ? undefined : 'bps' in r ? r.bps : r.share * path.rate;
      const need = (field: 'rate' | 'mean' | 'amplitude' | 'period' | 'hurst') => {
        if (c[field] === undefined)
          ctx.addIssue({
            code: 'custom',
            path: at(field),
            message: `is required for the ${c.pattern} pattern`,
          });
      };
      if (c.pattern === 'cbr') need('rate');
      if (c.pattern === 'sine') for (const f of ['mean', 'amplitude', 'period'] as const) need(f);
      if (c.pattern === 'selfsimilar') for (const f of ['mean', 'hurst'] as const) need(f);
      const mean = bps(c.mean);
      const amp = bps(c.amplitude);
      if (mean !== undefined && amp !== undefined && amp > mean) {
        ctx.addIssue({
          code: 'custom',
          path: at('amplitude'),
          message: `must be at most the mean (${formatRate(mean)}), or the rate would go below zero`,
        });
      }
      if (c.start >= spec.duration)
        ctx.addIssue({
          code: 'custom',
          path: at('start'),
          message: `must be before the run ends (${formatMs(spec.duration)})`,
        });
      else if (c.duration !== undefined && c.start + c.duration > spec.duration) {
        ctx.addIssue({
          code: 'custom',
          path: at('duration'),
          message: `start + duration must be at most the run's duration ${formatMs(spec.duration)}`,
        });
      }
    });
    path.changes.forEach((c, i) => {
      const at = (field: string) => ['paths', pname, 'changes', i, field];
      if (c.rate === undefined && c.rtt === undefined) {
        ctx.addIssue({ code: 'custom', path: at('at'), message: 'a change needs a new rate or rtt' });
      }
      if (c.at >= spec.duration)
        ctx.addIssue({
          code: 'custom',
          path: at('at'),
          message: `must be before the run ends (${formatMs(spec.duration)})`,
        });
      const prev = path.changes[i - 1];
      if (prev && c.at <= prev.at)
        ctx.addIssue({ code: 'custom', path: at('at'), message: 'changes must be in time order' });
      if (c.rtt !== undefined && path.jitter > c.rtt / 2) {
        ctx.addIssue({
          code: 'custom',
          path: at('rtt'),
          message: `must be at least twice the jitter (${formatMs(path.jitter)})`,
        });
      }
    });
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
  const streams = spec.flows.reduce((n, f) => n + f.streams * f.count, 0);
  if (streams > 256) {
    ctx.addIssue({ code: 'custom', path: ['flows'], message: `at most 256 streams in all (got ${streams})` });
  }
}

const flowName = (flow: { name?: string | undefined; stack: string }, i: number) =>
  flow.name ?? `${flow.stack}-${i + 1}`;

/** A flow with `count: n` becomes n flows, named name-1 ... name-n. */
function expandedNames(
  flow: { name?: string | undefined; stack: string; count: number },
  i: number,
): string[] {
  const base = flowName(flow, i);
  return flow.count === 1 ? [base] : Array.from({ length: flow.count }, (_, k) => `${base}-${k + 1}`);
}

/** Fill defaults that depend on other fields, so every later stage sees a complete spec. */
/** A cross-traffic source with its rates in bit/s, in the generator's own pattern vocabulary. */
export type CrossPattern =
  | { kind: 'cbr'; rateBps: number }
  | { kind: 'sine'; meanBps: number; amplitudeBps: number; periodS: number }
  | { kind: 'selfsimilar'; meanBps: number; hurst: number; sources: number; seed: number };

function resolveCross(spec: SpecOut, pname: string, p: SpecOut['paths'][string], offset: number) {
  const bps = (r: { bps: number } | { share: number } | undefined) =>
    r === undefined ? 0 : 'bps' in r ? r.bps : r.share * p.rate;
  return p.cross.map((c, k) => {
    const pattern: CrossPattern =
      c.pattern === 'cbr'
        ? { kind: 'cbr', rateBps: bps(c.rate) }
        : c.pattern === 'sine'
          ? {
              kind: 'sine',
              meanBps: bps(c.mean),
              amplitudeBps: bps(c.amplitude),
              periodS: (c.period ?? 0) / 1000,
            }
          : // Each source its own seed, derived from the run's: the same spec gives the same schedule.
            {
              kind: 'selfsimilar',
              meanBps: bps(c.mean),
              hurst: c.hurst ?? 0.8,
              sources: c.sources,
              seed: spec.seed * 1000 + offset + k,
            };
    return {
      name: `${pname}-udp${k + 1}`,
      pattern,
      start: c.start,
      duration: c.duration ?? spec.duration - c.start,
      size: c.size,
    };
  });
}

function resolveSpec(spec: SpecOut) {
  const [onlyPath] = Object.keys(spec.paths);
  return {
    ...spec,
    paths: Object.fromEntries(
      Object.entries(spec.paths).map(([pname, p], i) => [
        pname,
        {
          ...p,
          reverse: { rate: p.reverse?.rate ?? p.rate, buffer: p.reverse?.buffer ?? p.buffer },
          cross: resolveCross(spec, pname, p, i * 10),
        },
      ]),
    ),
    flows: spec.flows.flatMap((f, i) =>
      expandedNames(f, i).map((name, k) => {
        const start = f.start + k * f.every;
        return {
          ...f,
          name,
          path: f.path ?? (onlyPath as string),
          start,
          // A sized transfer has until the run ends to finish.
          duration: f.duration ?? spec.duration - start,
        };
      }),
    ),
  };
}

export const SpecSchema = SpecObject.superRefine(checkSpec).transform(resolveSpec);

/** What a person writes. */
export type SpecInput = z.input<typeof SpecSchema>;
/** What every stage after validation works with. */
export type Spec = z.output<typeof SpecSchema>;
export type Path = Spec['paths'][string];
export type Flow = Spec['flows'][number];
