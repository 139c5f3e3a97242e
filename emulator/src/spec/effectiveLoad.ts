// What a spec really asks of the lab: the peak rate into each bottleneck direction (schedule
// changes, UDP cross traffic and user-space transports included, not only `rate`), the sockets and
// UDP sources it opens, the memory its queues and socket buffers can take, and the bytes it moves.
// One function for every front door: the spec schema bounds it for everyone (what the lab cannot
// hold), and the service's quotas judge it per role (backend/src/service/quotas.ts).
import type { z } from 'zod';
import { bdpBytes, bufferPackets, delayLimitPackets, frameBytes, windowBytes } from '../plan/sizing.js';
import type { CrossPattern } from './cross.js';

/** The lab VM's memory (MiB) and the share of it a run's queues and socket buffers may take. */
export const LAB_MEMORY_MIB = 2048;
export const RUN_MEMORY_BYTES = 1024 * 2 ** 20;
/** Sockets (TCP connections and UDP sources, on/off sources counted one each) a run may open. */
export const MAX_RUN_SOCKETS = 512;
/** What a connection's buffers take even when idle (both ends). */
const SOCKET_FLOOR_BYTES = 256 * 1024;

export interface DirectionLoad {
  /** The highest rate offered to this bottleneck direction at any time, bit/s. */
  peakBps: number;
  /** Spec fields that make up the peak, each with its rate: what a quota error names. */
  parts: { field: string; bps: number }[];
}

export interface PathLoad {
  forward: DirectionLoad;
  reverse: DirectionLoad;
  /** Queue memory: bottleneck buffers and delay-stage limits of both directions, full frames. */
  queueBytes: number;
  /** The forward buffer in BDPs: above 1 it, not the path, is what fills memory. */
  bufferOverBdp: number;
}

export interface EffectiveLoad {
  paths: Record<string, PathLoad>;
  /** TCP connections (streams of every flow, psockets' stripes) plus UDP sockets. */
  sockets: number;
  /** On/off sources of self-similar cross traffic (one process each sends for them all). */
  udpSources: number;
  /** Socket buffer memory the flows can take at their ceilings, both ends. */
  socketBytes: number;
  memoryBytes: number;
  /** Bytes of the sized transfers. */
  transferBytes: number;
}

/** A cross-traffic pattern's highest rate, bit/s. */
export function crossPeakBps(p: CrossPattern): number {
  if (p.kind === 'cbr') return p.rateBps;
  if (p.kind === 'sine') return p.meanBps + p.amplitudeBps;
  // On/off sources send at 2·mean/sources while on: all on at once is the ceiling.
  return 2 * p.meanBps;
}

interface LoadSpec {
  mtu: number;
  paths: Record<
    string,
    {
      rtt: number;
      rate: number;
      buffer: Parameters<typeof bufferPackets>[0];
      reverse: { rate: number; buffer: Parameters<typeof bufferPackets>[0] };
      changes: { rate?: number | undefined; rtt?: number | undefined }[];
      cross: { direction: 'forward' | 'reverse'; pattern: CrossPattern }[];
    }
  >;
  flows: {
    path: string;
    direction: 'forward' | 'reverse';
    transport: string;
    streams: number;
    rate?: number | undefined;
    bytes?: number | undefined;
    window?: Parameters<typeof windowBytes>[0] | undefined;
  }[];
}

export function effectiveLoad(spec: LoadSpec): EffectiveLoad {
  const frame = frameBytes(spec.mtu);
  const paths: Record<string, PathLoad> = Object.create(null);
  let socketBytes = 0;
  for (const [name, p] of Object.entries(spec.paths)) {
    const dir = (d: 'forward' | 'reverse'): DirectionLoad => {
      const parts: { field: string; bps: number }[] = [];
      if (d === 'forward') {
        parts.push({ field: `paths.${name}.rate`, bps: p.rate });
        p.changes.forEach((c, i) => {
          if (c.rate !== undefined) parts.push({ field: `paths.${name}.changes[${i}].rate`, bps: c.rate });
        });
      } else parts.push({ field: `paths.${name}.reverse.rate`, bps: p.reverse.rate });
      // The link's own rate is a ceiling on what it carries, but what is offered to it is what
      // loads the lab: senders of UDP and blast transports do not slow down for the bottleneck.
      const linkPeak = Math.max(...parts.map((x) => x.bps));
      let offered = 0;
      p.cross.forEach((c, i) => {
        if (c.direction !== d) return;
        const bps = crossPeakBps(c.pattern);
        offered += bps;
        parts.push({ field: `paths.${name}.cross[${i}]`, bps });
      });
      spec.flows.forEach((f, i) => {
        if (f.path !== name || f.direction !== d || f.rate === undefined) return;
        if (f.transport !== 'rbudp' && f.transport !== 'udt') return;
        offered += f.rate;
        parts.push({ field: `flows[${i}].rate`, bps: f.rate });
      });
      return { peakBps: Math.max(linkPeak, offered), parts };
    };
    const forward = dir('forward');
    const reverse = dir('reverse');
    // Queues are sized as the plan sizes them (plan/dumbbell.ts): from the path's own rate and RTT.
    const bdpF = bdpBytes(p.rate, p.rtt);
    const bdpR = bdpBytes(p.reverse.rate, p.rtt);
    const queues =
      bufferPackets(p.buffer, bdpF, frame) +
      bufferPackets(p.reverse.buffer, bdpR, frame) +
      delayLimitPackets(p.rate, p.reverse.rate, p.rtt / 2, frame) +
      delayLimitPackets(p.reverse.rate, p.rate, p.rtt / 2, frame);
    paths[name] = {
      forward,
      reverse,
      queueBytes: queues * frame,
      bufferOverBdp: (bufferPackets(p.buffer, bdpF, frame) * frame) / Math.max(1, bdpF),
    };
    // The connections of one direction share its pipe (BDP plus buffer): together they cannot have
    // more in flight, however many there are or however large their windows. Sender and receiver
    // buffers hold about twice what is in flight each; every connection has its floor besides.
    for (const [d, bdp, buf] of [
      ['forward', bdpF, p.buffer],
      ['reverse', bdpR, p.reverse.buffer],
    ] as const) {
      const tcp = spec.flows.filter(
        (f) => f.path === name && f.direction === d && (f.transport === 'tcp' || f.transport === 'psockets'),
      );
      if (tcp.length === 0) continue;
      const pipe = bdp + bufferPackets(buf, bdp, frame) * frame;
      const windows = tcp.reduce(
        (a, f) => a + f.streams * (f.window ? windowBytes(f.window, bdp, spec.mtu) : pipe),
        0,
      );
      const streams = tcp.reduce((a, f) => a + f.streams, 0);
      socketBytes += 4 * Math.min(pipe, windows) + streams * SOCKET_FLOOR_BYTES;
    }
  }
  const tcpSockets = spec.flows.reduce(
    (n, f) => n + (f.transport === 'tcp' || f.transport === 'psockets' ? f.streams : 1),
    0,
  );
  const cross = Object.values(spec.paths).flatMap((p) => p.cross);
  const udpSources = cross.reduce(
    (n, c) => n + (c.pattern.kind === 'selfsimilar' ? c.pattern.sources : 1),
    0,
  );
  const queueBytes = Object.values(paths).reduce((a, p) => a + p.queueBytes, 0);
  return {
    paths,
    sockets: tcpSockets + cross.length,
    udpSources,
    socketBytes,
    memoryBytes: queueBytes + socketBytes,
    transferBytes: spec.flows.reduce((a, f) => a + (f.bytes ?? 0), 0),
  };
}

const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;

/**
 * What no lab can carry, as schema issues: memory beyond the run's share of the lab VM, more
 * sockets or on/off sources than it can run, socket buffers beyond the kernel's int.
 */
export function checkLoad(spec: LoadSpec, ctx: z.core.$RefinementCtx<unknown>): void {
  const load = effectiveLoad(spec);
  if (load.memoryBytes > RUN_MEMORY_BYTES) {
    // Name what to change: the deepest buffer when buffers dominate, else the flows.
    const [worst] = Object.entries(load.paths).sort((a, b) => b[1].queueBytes - a[1].queueBytes);
    const field =
      worst && (worst[1].queueBytes >= load.socketBytes || worst[1].bufferOverBdp > 1)
        ? ['paths', worst[0], 'buffer']
        : ['flows'];
    ctx.addIssue({
      code: 'custom',
      path: field,
      message: `the run would need about ${mib(load.memoryBytes)} for queues (${mib(load.memoryBytes - load.socketBytes)}) and socket buffers (${mib(load.socketBytes)}); a run may use at most ${mib(RUN_MEMORY_BYTES)} of the ${LAB_MEMORY_MIB} MiB lab: lower the buffer, the RTT, the rate, the windows or the streams`,
    });
  }
  if (load.sockets > MAX_RUN_SOCKETS)
    ctx.addIssue({
      code: 'custom',
      path: ['flows'],
      message: `the run would open ${load.sockets} sockets; at most ${MAX_RUN_SOCKETS}`,
    });
  if (load.udpSources > 1024)
    ctx.addIssue({
      code: 'custom',
      path: ['paths'],
      message: `${load.udpSources} on/off cross-traffic sources in all; at most 1024`,
    });
  spec.flows.forEach((f, i) => {
    if (!f.window) return;
    const p = spec.paths[f.path];
    const bytes = windowBytes(f.window, p ? bdpBytes(p.rate, p.rtt) : 0, spec.mtu);
    if (bytes > 2 ** 30)
      ctx.addIssue({
        code: 'custom',
        path: ['flows', i, 'window'],
        message: `is ${bytes} bytes (with mtu ${spec.mtu}); at most 1 GiB (${2 ** 30} bytes) in any unit`,
      });
  });
}
