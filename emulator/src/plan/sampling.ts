// What measures a run while it happens: a TCP sampler in every namespace that holds a flow's
// sockets (sender state at the client, goodput at the server), one queue-and-CPU poller in the
// router, and a ping from each path's probe host through the same bottleneck.

import { flowmeterArgv } from '../sampling/flowmeter.js';
import { pktTimingArgv } from '../sampling/pktTiming.js';
import { qdiscStatArgv } from '../sampling/qdiscStat.js';
import { tcpSamplerArgv } from '../sampling/tcpSampler.js';
import type { Spec } from '../spec/schema.js';
import { udpGenArgv, udpSinkArgv } from '../traffic/udpArgv.js';
import { inNs } from './netns.js';
import { ROUTER_NS } from './stages.js';
import { flowPorts } from './traffic.js';
import type { FlowTopology, PathTopology, Proc, Sampler, WireTopology } from './types.js';

/**
 * On a realtime clock, samplers and UDP generators run at real-time priority: a tick is short and
 * must start on time, and under load (a software-emulated lab is CPU-bound well before its links
 * are) a normal-priority sampler loses ticks to the very traffic it measures.
 *
 * On a dilated clock they do not: the guest's timers are exact and its one vCPU is far from busy,
 * while a real-time sampler preempts the sender in the middle of a send, its socket owned, so the
 * ACKs that arrive meanwhile are processed in one batch and the sender bursts. Measured (Reno,
 * 50 Mbit/s × 100 ms, 0.05 BDP buffer, 10 Hz): real-time samplers, max cwnd 385 and a loss at 34 s
 * with the queue nearly empty; normal priority, max cwnd 433 and the loss at 39 s where Reno's
 * arithmetic puts it, every sampler tick on time.
 */
const priority =
  (spec: Spec) =>
  (argv: string[]): string[] =>
    spec.clock === 'dilated' ? argv : ['chrt', '--fifo', '20', ...argv];

/** The probe pings at the sample rate, but no faster than 10 Hz: enough to see queueing, light on the link. */
export const probeHz = (sampleHz: number) => Math.min(sampleHz, 10);

export function buildSamplers(
  spec: Spec,
  paths: PathTopology[],
  flows: FlowTopology[],
  wire?: WireTopology,
): Sampler[] {
  const hz = spec.sampleHz;
  const realtime = priority(spec);
  const portsByNs = new Map<string, number[]>();
  // UDT and RBUDP carry their data over UDP: nothing of theirs for the TCP sampler to see.
  for (const f of flows.filter((x) => x.transport === 'tcp' || x.transport === 'psockets')) {
    for (const ns of [f.clientNs, f.serverNs])
      portsByNs.set(ns, [...(portsByNs.get(ns) ?? []), ...flowPorts(f)]);
  }
  const tcp: Sampler[] = [...portsByNs.entries()].map(([ns, ports]) => ({
    name: `tcp:${ns}`,
    kind: 'tcp',
    ns,
    // Our flows are IPv4; one family halves the kernel's walk of its socket hash.
    argv: inNs(ns, realtime(tcpSamplerArgv({ hz, durationS: 0, ports, family: 'inet' }))),
  }));
  const devs = paths.flatMap((p) => [
    p.routerIfs.forwardIfb,
    p.routerIfs.reverseIfb,
    p.routerIfs.toReceiver,
    p.routerIfs.toSender,
  ]);
  const qdisc: Sampler = {
    name: 'qdisc:router',
    kind: 'qdisc',
    ns: ROUTER_NS,
    argv: inNs(ROUTER_NS, realtime(qdiscStatArgv({ hz, durationS: 0, devs, cpu: true }))),
  };
  const interval = (1 / probeHz(spec.sampleHz)).toFixed(3);
  const ping: Sampler[] = paths.map((p) => ({
    name: `ping:${p.name}`,
    kind: 'ping',
    ns: p.probeNs,
    path: p.name,
    argv: inNs(p.probeNs, ['ping', '-n', '-D', '-i', interval, p.receiverAddr]),
  }));
  const sinks: Sampler[] = crossSources(spec, paths).map((c) => ({
    name: `udpsink:${c.name}`,
    kind: 'udpsink',
    ns: c.sinkNs,
    path: c.path.name,
    argv: inNs(c.sinkNs, realtime(udpSinkArgv({ port: c.port, durationS: 0, reportHz: hz }))),
  }));
  // A wire's flows are the external hosts': the lab sees them only as frames on its ports.
  const flowmeter: Sampler[] = wire
    ? [
        {
          name: 'flowmeter:wire',
          kind: 'flowmeter',
          ns: ROUTER_NS,
          argv: inNs(ROUTER_NS, realtime(flowmeterArgv({ a: wire.ports.a, b: wire.ports.b, hz }))),
        },
      ]
    : [];
  return [...tcp, qdisc, ...ping, ...sinks, timingSampler(spec, paths), ...flowmeter];
}

/** Frames the packet-timing capture may take per second of lab time: its cost stays a few % of the lab. */
export const TIMING_FRAMES_PER_S = 8000;

/**
 * The packet-timing capture in the router: per direction of each path, its bottleneck IFB and the
 * device after its delay stage. Each frame is seen about three times (arrival, bottleneck, delay
 * stage) and ACKs come back at about half the data's frame rate, so at high rates it captures only
 * part of every second.
 */
export function timingSampler(spec: Spec, paths: PathTopology[]): Sampler {
  const framesPerS = paths.reduce((a, p) => {
    const path = spec.paths[p.name];
    const peak = Math.max(
      path?.rate ?? 0,
      ...(path?.changes ?? []).map((c) => c.rate ?? 0),
      path?.reverse.rate ?? 0,
    );
    return a + (3 * 1.5 * peak) / (p.frameBytes * 8);
  }, 0);
  const windowMs = Math.max(
    100,
    Math.min(1000, Math.round((1000 * TIMING_FRAMES_PER_S) / Math.max(1, framesPerS))),
  );
  return {
    name: 'timing:router',
    kind: 'timing',
    ns: ROUTER_NS,
    argv: inNs(
      ROUTER_NS,
      pktTimingArgv({
        dirs: paths.flatMap((p) => [
          { name: `${p.name}.forward`, ifb: p.routerIfs.forwardIfb, egress: p.routerIfs.toReceiver },
          { name: `${p.name}.reverse`, ifb: p.routerIfs.reverseIfb, egress: p.routerIfs.toSender },
        ]),
        windowMs,
        everyMs: 1000,
      }),
    ),
  };
}

/** UDP ports from here on, one per cross-traffic source (TCP flows use 5201 up). */
export const CROSS_BASE_PORT = 6001;

/** Each source with its hosts: forward from the sender side's UDP host to the receiver, reverse the other way. */
function crossSources(spec: Spec, paths: PathTopology[]) {
  let k = 0;
  return paths.flatMap((p) =>
    (spec.paths[p.name]?.cross ?? []).map((c) => {
      const forward = c.direction === 'forward';
      return {
        ...c,
        path: p,
        port: CROSS_BASE_PORT + k++,
        sourceNs: (forward ? p.udp?.ns : p.udpReverse?.ns) ?? p.senderNs,
        sinkNs: forward ? p.receiverNs : p.senderNs,
        sinkAddr: forward ? p.receiverAddr : p.senderAddr,
      };
    }),
  );
}

/** The generators: from each path's UDP hosts to their sinks, paced at real-time priority. */
export function buildCross(spec: Spec, paths: PathTopology[]): Proc[] {
  const realtime = priority(spec);
  return crossSources(spec, paths).map((c) => ({
    name: `cross:${c.name}`,
    role: 'cross',
    flow: c.name,
    at: c.start,
    durationMs: Math.round(c.duration / 1000) * 1000,
    argv: inNs(
      c.sourceNs,
      realtime(
        udpGenArgv({
          host: c.sinkAddr,
          port: c.port,
          pattern: c.pattern,
          durationS: Math.round(c.duration / 1000),
          reportHz: spec.sampleHz,
          sizeBytes: c.size,
        }),
      ),
    ),
  }));
}
