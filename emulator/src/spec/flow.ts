// One flow of the spec: what moves (kernel TCP via iperf3, or one of seed 004's user-space
// transports), between which hosts, when, and how much. The transport decides which of the other
// fields mean anything, so those rules live here, next to the fields, with messages that say why.
import { z } from 'zod';
import { amount, duration, int, name, rate, size, strict } from './fields.js';
import { LIMITS } from './limits.js';
import { isKnownStack, knownStackNames } from './stacks.js';

export const TRANSPORTS = ['tcp', 'udt', 'rbudp', 'psockets'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** Transports whose data travels on kernel TCP sockets, so `stack` picks their congestion control. */
export const usesKernelTcp = (t: Transport): boolean => t === 'tcp' || t === 'psockets';

const TRANSPORT_HELP =
  'tcp: iperf3 over kernel TCP (timed or sized); psockets: one payload striped over `streams` TCP ' +
  "connections; udt: a UDT4 bulk transfer (UDT's own rate control over UDP); rbudp: Reliable Blast " +
  'UDP at `rate`, then rounds re-sending what the receiver reports missing. udt, rbudp and psockets ' +
  "send `bytes` of seeded data; the receiver's SHA-256 must equal the sender's.";

export const CONNECT_MODES = ['serial', 'together'] as const;
export type ConnectMode = (typeof CONNECT_MODES)[number];

const CONNECT_HELP =
  'tcp flows with several streams: serial, one iperf3 -P opening its streams one by one (a round trip ' +
  'or more each) before any sends; together, one single-stream iperf3 per stream, all started at once ' +
  'and counted as one flow.';

const unknownStack = (input: unknown) =>
  `unknown stack ${JSON.stringify(input)}; available: ${knownStackNames().join(', ')}`;

/**
 * A stack name: built in or added (registerStacks). A string checked against the registry when a
 * spec is parsed, not an enum fixed at load, so a stack added after start-up is accepted; the JSON
 * Schema lists the names known when it is generated (jsonSchema.ts).
 */
export const StackNameSchema = z
  .string({ error: (iss) => unknownStack(iss.input) })
  .refine(isKnownStack, { error: (iss) => unknownStack(iss.input) });

const FlowObject = strict({
  name: name('a flow name').optional(),
  /** How the data moves; see TRANSPORT_HELP. Default tcp (iperf3). */
  transport: z
    .enum(TRANSPORTS, { error: `must be one of ${TRANSPORTS.join(', ')}` })
    .default('tcp')
    .meta({ description: TRANSPORT_HELP }),
  /**
   * TCP congestion control. Required for tcp and psockets flows (psockets sets it on every striped
   * connection); udt and rbudp bring their own rate control and take none.
   */
  stack: StackNameSchema.optional(),
  /** Name of a path in `paths`; may be left out when there is only one. */
  path: z.string({ error: 'must be the name of a path' }).optional(),
  /**
   * Parallel TCP connections: iperf3 -P for tcp (P-TCP style), the stripe count for psockets.
   * udt and rbudp use one socket.
   */
  streams: int(`a whole number from 1 to ${LIMITS.streams}`, 1, LIMITS.streams).default(1),
  /**
   * How a tcp flow's streams come up. serial: one iperf3 -P, which opens them one after another, a
   * blocking connect (a round trip or more) each, and sends on none before the last is up: 48
   * streams at 1.2 s took 94 s. together: one single-stream iperf3 per stream, all started at once
   * and counted as one flow, as iperf2's threads or P-TCP's sockets connect.
   */
  connect: z
    .enum(CONNECT_MODES, { error: `must be one of ${CONNECT_MODES.join(', ')}` })
    .default('serial')
    .meta({ description: CONNECT_HELP }),
  /** Start offset from the run's start, ms. */
  start: duration(0, LIMITS.runMs.max).prefault('0s'),
  /** How long the flow sends, ms; until the run ends unless given. tcp only (the others are sized). */
  duration: duration(1000, LIMITS.runMs.max).optional(),
  /**
   * The first part of the flow left out of its per-interval statistics (mean ± σ of the interval
   * goodputs, the stability index σ/μ), as iperf3 --omit leaves out slow start. A paper that ran
   * 20 min had one slow-start interval in hundreds; a run shortened to 40 s has one in eight. The
   * whole-run goodput still counts every byte. tcp only.
   */
  omit: duration(0, LIMITS.runMs.max).prefault('0s'),
  /**
   * This flow's own round-trip propagation delay: its hosts get their own delay stages but share
   * the path's bottleneck, so flows with different RTTs compete for one queue (seed 000 §7).
   */
  rtt: duration(LIMITS.rttMs.min, LIMITS.rttMs.max).optional(),
  /** forward: sender side → receiver side; reverse: the other way over the reverse bottleneck. */
  direction: z.enum(['forward', 'reverse'], { error: 'must be forward or reverse' }).default('forward'),
  /**
   * Send this many bytes and stop (iperf3 -n) instead of sending for a duration. Required for udt,
   * rbudp and psockets: they move one payload and verify it at the receiver.
   */
  bytes: size(1e3, 1e12).optional(),
  /**
   * rbudp: the blast rate, bit/s of UDP payload (default: the bottleneck rate of the flow's
   * direction, so the frame overhead makes the first round lose a little). udt: a cap on UDT's own
   * rate (UDT_MAXBW). tcp and psockets flows are paced by their stack and take none.
   */
  rate: rate(LIMITS.rateBps.min, LIMITS.rateBps.max).optional(),
  /** This flow `count` times: the staggered-start shorthand (seed 001's DST: one more every 50 s). */
  count: int('a whole number from 1 to 64', 1, 64).default(1),
  /** With `count`: flow k (from 0) starts at start + k × every. */
  every: duration(0, LIMITS.runMs.max).prefault('0s'),
  /**
   * Socket buffer, which caps the window; a size or a BDP multiple. tcp: iperf3 -w; psockets:
   * SO_SNDBUF/SO_RCVBUF of every striped connection (autotuning off). Not for udt or rbudp.
   */
  window: amount({
    packets: { min: 2, max: 1_000_000 },
    bytes: { min: 2048, max: 2 ** 30 },
    bdp: { min: 0.01, max: 100 },
  }).optional(),
});

type FlowOut = z.output<typeof FlowObject>;

/** Rules that depend on the transport; each names the field and what the transport allows. */
function checkTransport(f: FlowOut, ctx: z.core.$RefinementCtx<FlowOut>): void {
  const t = f.transport;
  const issue = (field: keyof FlowOut, message: string) =>
    ctx.addIssue({ code: 'custom', path: [field], message });
  const udp = !usesKernelTcp(t);
  if (!udp && f.stack === undefined)
    issue('stack', `is required for a ${t} flow: one of ${knownStackNames().join(', ')}`);
  if (udp && f.stack !== undefined)
    issue(
      'stack',
      `only applies to transports tcp and psockets (kernel TCP); ${t} brings its own rate control`,
    );
  if (t !== 'tcp' && f.bytes === undefined)
    issue('bytes', `is required for transport ${t}: it sends a payload of that size and checks its SHA-256`);
  if (t !== 'tcp' && f.omit > 0)
    issue('omit', `only applies to transport tcp (per-interval goodput); a ${t} flow is one sized transfer`);
  if (t !== 'tcp' && f.duration !== undefined)
    issue('duration', `only applies to transport tcp; a ${t} flow ends when its bytes are through`);
  if (!udp && f.rate !== undefined)
    issue(
      'rate',
      `only applies to transports rbudp (blast rate) and udt (rate cap); ${t} is paced by its stack`,
    );
  if (udp && f.streams !== 1)
    issue('streams', `must be 1 for transport ${t}; striping over several connections is transport psockets`);
  if (t !== 'tcp' && f.connect !== 'serial')
    issue(
      'connect',
      `only applies to transport tcp (iperf3's streams); ${t === 'psockets' ? 'psockets opens its connections together already' : `${t} uses one socket`}`,
    );
  if (udp && f.window !== undefined)
    issue('window', `only applies to transports tcp and psockets (a TCP socket buffer)`);
}

export const FlowSchema = FlowObject.superRefine(checkTransport);

/** A flow's name when the spec gives none: its stack for tcp, its transport otherwise. */
export const flowLabel = (
  flow: { name?: string | undefined; stack?: string | undefined; transport: Transport },
  i: number,
): string => flow.name ?? `${flow.transport === 'tcp' ? (flow.stack ?? 'tcp') : flow.transport}-${i + 1}`;
