// iperf3 per flow: a one-shot server on the flow's receiving host, a client on its sending host.
// A reverse flow swaps the hosts, so its data crosses the reverse bottleneck and shares it with
// the forward flows' ACKs. A flow whose streams connect together has one server and one
// single-stream client per stream, each on its own port, all started at the flow's start.
import type { Spec } from '../spec/schema.js';
import { inNs } from './netns.js';
import { bdpBytes, windowBytes } from './sizing.js';
import { transportProcs } from './transports.js';
import type { Cmd, FlowTopology, PathTopology, Proc } from './types.js';

export const BASE_PORT = 5201;

const seconds = (ms: number) => String(Number((ms / 1000).toFixed(3)));

/** The server ports of a flow: one, or one per stream when its streams connect together. */
export const flowPorts = (f: Pick<FlowTopology, 'port' | 'ports'>): number[] => f.ports ?? [f.port];

export function flowTopology(spec: Spec, paths: PathTopology[]): FlowTopology[] {
  // A flow keeps BASE_PORT + its index whatever the others do; the extra streams' ports follow all of those.
  let nextExtraPort = BASE_PORT + spec.flows.length;
  return spec.flows.map((f, k) => {
    const p = paths.find((x) => x.name === f.path) as PathTopology;
    const forward = f.direction === 'forward';
    // A flow with its own RTT lives on its host group's hosts; the bottleneck is the path's.
    const hosts = p.groups.find((g) => g.rttMs === f.rtt) ?? p;
    const port = BASE_PORT + k;
    const together = f.transport === 'tcp' && f.connect === 'together' && f.streams > 1;
    const extra = together ? Array.from({ length: f.streams - 1 }, () => nextExtraPort++) : [];
    return {
      name: f.name,
      transport: f.transport,
      stack: f.stack,
      path: f.path,
      direction: f.direction,
      streams: f.streams,
      connect: f.connect,
      port,
      ...(together ? { ports: [port, ...extra] } : {}),
      rttMs: 'rttMs' in hosts ? hosts.rttMs : (spec.paths[f.path]?.rtt ?? 0),
      clientNs: forward ? hosts.senderNs : hosts.receiverNs,
      serverNs: forward ? hosts.receiverNs : hosts.senderNs,
      serverAddr: forward ? hosts.receiverAddr : hosts.senderAddr,
      startMs: f.start,
      durationMs: f.duration,
      omitMs: f.omit,
      bytes: f.bytes ?? null,
      // A window in BDPs is the BDP of this flow's own RTT.
      windowBytes: f.window
        ? windowBytes(
            f.window,
            f.rtt === undefined ? p.bdpBytes : bdpBytes(spec.paths[f.path]?.rate ?? 0, f.rtt),
            spec.mtu,
          )
        : null,
      rateBps: f.rate ?? null,
      // The run's seed and the flow's place: the same spec sends the same bytes.
      payloadSeed: spec.seed * 1000 + k + 1,
    };
  });
}

/** Waits for a listening TCP socket (or, `udp`, a bound UDP socket) on the port. */
export function listening(ns: string, port: number, udp = false): Cmd {
  return {
    argv: inNs(ns, ['ss', udp ? '-Hlun' : '-Hltn', 'sport', '=', `:${port}`]),
    until: { timeoutMs: 15_000, intervalMs: 50, stdoutNonEmpty: true },
  };
}

/** `client:bulk`, or `client:bulk#3` for the third single-stream iperf3 of a flow whose streams connect together. */
const procName = (role: 'server' | 'client', f: FlowTopology, j: number) =>
  f.ports ? `${role}:${f.name}#${j + 1}` : `${role}:${f.name}`;

export function buildTraffic(spec: Spec, flows: FlowTopology[]): { servers: Proc[]; clients: Proc[] } {
  const interval = seconds(spec.sampleInterval);
  const iperf = flows.filter((f) => f.transport === 'tcp');
  const others = flows.filter((f) => f.transport !== 'tcp').map((f) => transportProcs(spec, f));
  const servers = iperf.flatMap((f) =>
    flowPorts(f).map(
      (port, j): Proc => ({
        name: procName('server', f, j),
        role: 'server',
        flow: f.name,
        at: 0,
        // -4: an IPv4 listener, so accepted sockets are AF_INET like the client's (the samplers filter by family).
        argv: inNs(f.serverNs, ['iperf3', '-s', '-1', '-4', '-p', String(port), '-i', interval, '-J']),
        ready: listening(f.serverNs, port),
      }),
    ),
  );
  const clients = iperf.flatMap((f) => {
    // A sized transfer (-n) ends when its bytes are through; otherwise the flow sends for -t seconds.
    const amount = f.bytes !== null ? ['-n', String(f.bytes)] : ['-t', seconds(f.durationMs)];
    const ports = flowPorts(f);
    // One process per port: each carries one stream, or all of them (-P) when there is one port.
    const perProc = ports.length > 1 ? 1 : f.streams;
    return ports.map((port, j): Proc => {
      const argv = [
        'iperf3',
        '-c',
        f.serverAddr,
        '-p',
        String(port),
        '-C',
        f.stack,
        ...amount,
        '-i',
        interval,
        '-P',
        String(perProc),
        '-J',
      ];
      if (f.windowBytes !== null) argv.push('-w', String(f.windowBytes));
      return {
        name: procName('client', f, j),
        role: 'client',
        flow: f.name,
        at: f.startMs,
        argv: inNs(f.clientNs, argv),
      };
    });
  });
  // In the flows' order, whatever their transport.
  const order = (p: Proc) => flows.findIndex((f) => f.name === p.flow);
  return {
    servers: [...servers, ...others.map((o) => o.server)].sort((a, b) => order(a) - order(b)),
    clients: [...clients, ...others.map((o) => o.client)].sort((a, b) => order(a) - order(b)),
  };
}

/** Every TCP socket in a namespace with its internals (`ss -ti`), including the stack's name. */
export const socketProbe = (ns: string): Cmd => ({ argv: inNs(ns, ['ss', '-Htin', 'state', 'established']) });
