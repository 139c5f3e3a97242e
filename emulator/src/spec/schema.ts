// The experiment spec: one zod schema shared by the CLI, the API and the UI.
// Input is what a person writes (strings with units); output is normalised numbers:
// durations in ms, rates in bit/s, sizes in bytes. Every message names what is allowed.
import { z } from 'zod';
import { type CrossPattern, CrossSchema, checkCross, resolveCross } from './cross.js';
import { checkLoad } from './effectiveLoad.js';
import { amount, duration, int, name, rate, strict } from './fields.js';
import { FlowSchema, flowLabel } from './flow.js';
import { LIMITS } from './limits.js';
import { StackParamsSchema } from './stackParams.js';
import { formatMs } from './units.js';
import { WireSchema, wireProblems } from './wire.js';

export type { CrossPattern };
export { LIMITS };

const buffer = amount({
  packets: { min: 2, max: 1_000_000 },
  bytes: { min: 3000, max: 2 ** 31 },
  bdp: { min: 0.01, max: 100 },
});

const txqlen = int('a queue length from 0 to 1000000 packets', 0, 1_000_000);

/** txqueuelen per role, null where the spec leaves the kernel's default. */
export type TxQueueLens = Record<'sender' | 'receiver' | 'router', number | null>;
function resolveTxqueuelen(
  t:
    | number
    | { sender?: number | undefined; receiver?: number | undefined; router?: number | undefined }
    | undefined,
): TxQueueLens {
  if (typeof t === 'number') return { sender: t, receiver: t, router: t };
  return { sender: t?.sender ?? null, receiver: t?.receiver ?? null, router: t?.router ?? null };
}

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
   * UDP cross traffic, each source from its own namespace: forward from the sender side, or
   * `direction: reverse` from the receiver side through the reverse bottleneck. Rates at the IP layer.
   */
  cross: CrossSchema,
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
  /**
   * Device queue length (`ip link set DEV txqueuelen N`, packets) on this path's interfaces: one
   * number for all of them, or per role. sender: eth0 of every sender-side host (the path's own, its
   * host groups', the forward UDP host); receiver: eth0 of the receiver-side hosts (and the reverse
   * UDP host); router: the router's veths towards them. The IFBs and the RTT probe's host keep their
   * defaults. It only bounds a qdisc that takes its limit from the device: the hosts' veths have
   * none (noqueue) unless a sysctl or tc adds one, and the bottleneck and delay stages have their
   * own limits (`buffer`), so here it is the seed papers' host tuning, applied and recorded.
   */
  txqueuelen: z
    .union([txqlen, strict({ sender: txqlen, receiver: txqlen, router: txqlen }).partial()], {
      error: 'must be a queue length in packets (0 to 1000000), or { sender, receiver, router } of them',
    })
    .optional()
    .meta({
      description: 'packets, for all interfaces of the path, or per role { sender, receiver, router }',
    }),
  /**
   * true: the path's end hosts acknowledge every segment at once (`ip route add default via GW
   * quickack 1` in each), instead of Linux's delayed ACKs (one ACK per two full segments, or a lone
   * segment's after up to 40 ms). Delayed ACKs shape what a flow of a few packets measures: its RTT
   * samples and any one-way delay timed from the TSecr an ACK echoes.
   */
  quickack: z
    .boolean({ error: 'must be true (acknowledge every segment at once) or false (delayed ACKs)' })
    .optional()
    .meta({
      description:
        "true: end hosts ACK every segment at once (route quickack 1); default Linux's delayed ACKs",
    }),
  /** The reverse bottleneck (receiver → sender); the forward rate and buffer unless given. */
  reverse: strict({
    rate: rate(LIMITS.rateBps.min, LIMITS.rateBps.max).optional(),
    buffer: buffer.optional(),
  }).optional(),
});

// Keys: dot-separated names, none empty or starting with '-' (sysctl would read `net.-a` as an
// option). Values: whole numbers sysctl can write exactly, or plain words and numbers (tcp_rmem's
// "4096 87380 6291456").
const sysctlMap = z.record(
  z.string().regex(/^net(\.[a-z0-9_][a-z0-9_-]*)+$/, {
    error: 'must be a net.* sysctl key of dot-separated names, e.g. net.ipv4.tcp_ecn',
  }),
  z.union(
    [
      z.string().regex(/^[\w .:-]*$/, { error: 'must be a plain value' }),
      z
        .number()
        .int({ error: 'must be a whole number' })
        .min(-Number.MAX_SAFE_INTEGER, { error: 'must be a whole number within ±2^53' })
        .max(Number.MAX_SAFE_INTEGER, { error: 'must be a whole number within ±2^53' }),
    ],
    {
      error: 'must be a whole number within ±2^53 or a plain string',
    },
  ),
  { error: 'must map net.* sysctl keys (e.g. net.ipv4.tcp_ecn) to numbers or plain strings' },
);

export { FlowSchema };

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
  /**
   * The lab's clock. realtime: guest time follows the host's, so under software emulation (TCG) late
   * timers bunch packets. dilated: qemu's instruction counter drives guest time, so timers fire on
   * time in guest time however slow the host is, and wall time stretches instead (TCG only, 1 vCPU).
   * auto: dilated under TCG, realtime under KVM.
   */
  clock: z
    .enum(['auto', 'realtime', 'dilated'], { error: 'must be one of auto, realtime, dilated' })
    .default('auto'),
  paths: z
    .record(name('a path name'), PathSchema, { error: 'must map path names to paths' })
    .refine((p) => Object.keys(p).length >= 1 && Object.keys(p).length <= 8, {
      error: 'must define 1 to 8 paths',
    }),
  /** sysctl overrides per role (net.* only: the ones that live in a namespace), after the lab's defaults. */
  sysctls: strict({ sender: sysctlMap, receiver: sysctlMap, router: sysctlMap }).partial().optional(),
  /**
   * Stack module parameters for this run (stackParams.ts): written to sysfs before the flows and
   * restored to the defaults in teardown, as they are global to the lab kernel.
   */
  stackParams: StackParamsSchema,
  /**
   * The lab as a bump in the wire (wire.ts): its router bridges two network ports and shapes the
   * one path between the external hosts behind them, who run the flows with their own stacks.
   */
  wire: WireSchema,
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
    } else if (flow.path !== undefined && !Object.hasOwn(spec.paths, flow.path)) {
      // Own keys only: `constructor` or `toString` is in every object, but names no path here.
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
      const shortest = flow.duration ?? spec.duration - lastStart;
      if (flow.omit > 0 && flow.omit + spec.sampleInterval > shortest)
        ctx.addIssue({
          code: 'custom',
          path: at('omit'),
          message: `must leave at least one sample interval (${formatMs(spec.sampleInterval)}) of the flow's ${formatMs(shortest)} of sending (at most ${formatMs(Math.max(0, shortest - spec.sampleInterval))} here)`,
        });
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
    checkCross(path.cross, path, spec.duration, (i, field, message) =>
      ctx.addIssue({ code: 'custom', path: ['paths', pname, 'cross', i, field], message }),
    );
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
  for (const p of wireProblems(spec)) ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
  const streams = spec.flows.reduce((n, f) => n + f.streams * f.count, 0);
  if (streams > 256) {
    ctx.addIssue({ code: 'custom', path: ['flows'], message: `at most 256 streams in all (got ${streams})` });
  }
}

/** A flow with `count: n` becomes n flows, named name-1 ... name-n. */
function expandedNames(flow: Parameters<typeof flowLabel>[0] & { count: number }, i: number): string[] {
  const base = flowLabel(flow, i);
  return flow.count === 1 ? [base] : Array.from({ length: flow.count }, (_, k) => `${base}-${k + 1}`);
}

/** Fill defaults that depend on other fields, so every later stage sees a complete spec. */
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
          cross: resolveCross(pname, p, spec.duration, spec.seed * 1000 + i * 10),
          txqueuelen: resolveTxqueuelen(p.txqueuelen),
        },
      ]),
    ),
    flows: spec.flows.flatMap((f, i) =>
      expandedNames(f, i).map((name, k) => {
        const start = f.start + k * f.every;
        const path = f.path ?? (onlyPath as string);
        const p = spec.paths[path];
        const bottleneck = f.direction === 'reverse' ? (p?.reverse?.rate ?? p?.rate) : p?.rate;
        return {
          ...f,
          name,
          path,
          // udt and rbudp carry their transport's name where tcp flows carry their stack's.
          stack: f.stack ?? f.transport,
          // RBUDP has no congestion control: without a rate it blasts at the bottleneck's.
          rate: f.rate ?? (f.transport === 'rbudp' ? bottleneck : undefined),
          start,
          // A sized transfer has until the run ends to finish.
          duration: f.duration ?? spec.duration - start,
        };
      }),
    ),
  };
}

// The resolved spec is bounded by what the lab can hold (effectiveLoad.ts).
export const SpecSchema = SpecObject.superRefine(checkSpec).transform(resolveSpec).superRefine(checkLoad);

/** What a person writes. */
export type SpecInput = z.input<typeof SpecSchema>;
/** What every stage after validation works with. */
export type Spec = z.output<typeof SpecSchema>;
export type Path = Spec['paths'][string];
export type Flow = Spec['flows'][number];
