// The lab as a bump in the wire: the router namespace bridges the lab's two ports and shapes the
// path between the hosts behind them with the dumbbell's own stages (bottleneck on an IFB fed from
// a port's ingress, delay on the other port's egress). The external hosts here are namespaces on
// the lab host, each side's on a bridge with the tap behind its lab port; their commands are
// marked `on: 'hosts'` and run through the agent on the lab host.
import type { Path, Spec } from '../spec/schema.js';
import type { Wire } from '../spec/wire.js';
import { endHostTcpSysctls, LAB_SYSCTLS_READ, pathTopology, sysctl } from './dumbbell.js';
import { HOST_IF, txqueuelenCmds } from './hosts.js';
import { inNs } from './netns.js';
import { bottleneckStage, delayStage, ROUTER_NS } from './stages.js';
import type { Cmd, PathTopology, Section, WireTopology } from './types.js';

/** The namespaces the lab host's agent may create and remove (its -netns-prefix). */
export const WIRE_HOST_PREFIX = 'lfnw-';
/** The lab bridge joining the two ports. */
const LAB_BRIDGE = 'wire0';
/** One subnet across the wire: the lab bridges frames, it does not route them. */
const SUBNET = '10.250.0';

/** The host taps of lab `labName`'s wire ports: short (IFNAMSIZ) and distinct per lab. */
export function wireTapNames(labName: string): { a: string; b: string } {
  let h = 2166136261;
  for (const c of labName) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  const tag = h.toString(36).padStart(7, '0').slice(0, 7);
  return { a: `lfnt${tag}a`, b: `lfnt${tag}b` };
}

const hosts = (c: Cmd): Cmd => ({ ...c, on: 'hosts' });

/** The path as the wire carries it: the dumbbell's topology with external hosts and lab ports. */
export function wirePathTopology(spec: Spec, wire: Wire): PathTopology {
  const [name] = Object.keys(spec.paths) as [string];
  const p = pathTopology(spec, name, 0);
  return {
    ...p,
    senderNs: `${WIRE_HOST_PREFIX}snd`,
    receiverNs: `${WIRE_HOST_PREFIX}rcv`,
    probeNs: `${WIRE_HOST_PREFIX}prb`,
    senderAddr: `${SUBNET}.1`,
    receiverAddr: `${SUBNET}.2`,
    probeAddr: `${SUBNET}.3`,
    routerIfs: { ...p.routerIfs, toSender: wire.ports.a, toReceiver: wire.ports.b, toProbe: wire.ports.a },
  };
}

export function buildWire(
  spec: Spec,
  taps: { a: string; b: string },
): {
  paths: PathTopology[];
  namespaces: string[];
  wire: WireTopology;
  setup: Section[];
  snapshot: Section[];
  teardown: Section;
} {
  const w = spec.wire as Wire;
  const p = wirePathTopology(spec, w);
  const path = spec.paths[p.name] as Path;
  const { a, b } = w.ports;
  const { forwardIfb, reverseIfb } = p.routerIfs;
  const bridges = { a: `${WIRE_HOST_PREFIX}bra`, b: `${WIRE_HOST_PREFIX}brb` };
  const external = [
    { ns: p.senderNs, addr: p.senderAddr, bridge: bridges.a, role: 'sender' as const },
    { ns: p.probeNs, addr: p.probeAddr, bridge: bridges.a, role: null },
    { ns: p.receiverNs, addr: p.receiverAddr, bridge: bridges.b, role: 'receiver' as const },
  ];
  const off = ['tso', 'off', 'gso', 'off', 'gro', 'off'];
  const mtu = String(spec.mtu);
  const rtr = (...argv: string[]) => ['ip', '-n', ROUTER_NS, ...argv];
  const rootSide = (ns: string) => `${ns}0`;

  const hostSetup: Cmd[] = [
    // A run killed before its teardown leaves its bridges behind (its namespaces die with the agent).
    ...Object.values(bridges).map((br) => hosts({ argv: ['ip', 'link', 'del', br], allowFail: true })),
    ...Object.entries(bridges).flatMap(([side, br]) => {
      const tap = taps[side as 'a' | 'b'];
      return [
        hosts({
          comment: `side ${side}: the lab's port ${w.ports[side as 'a' | 'b']} is host tap ${tap}, on bridge ${br} with that side's hosts`,
          argv: ['ip', 'link', 'add', br, 'type', 'bridge', 'stp_state', '0', 'forward_delay', '0'],
        }),
        hosts({ argv: ['ip', 'link', 'set', 'dev', tap, 'mtu', mtu, 'master', br, 'up'] }),
        hosts({ argv: ['ethtool', '-K', tap, ...off], allowFail: true }),
        hosts({ argv: ['ip', 'link', 'set', 'dev', br, 'mtu', mtu, 'up'] }),
      ];
    }),
    ...external.flatMap(({ ns, addr, bridge }) => [
      hosts({ argv: ['ip', 'netns', 'add', ns] }),
      hosts({ argv: ['ip', '-n', ns, 'link', 'set', 'lo', 'up'] }),
      hosts({
        argv: ['ip', 'link', 'add', rootSide(ns), 'type', 'veth', 'peer', 'name', HOST_IF, 'netns', ns],
      }),
      hosts({ argv: ['ip', 'link', 'set', 'dev', rootSide(ns), 'mtu', mtu, 'master', bridge, 'up'] }),
      hosts({ argv: ['ip', '-n', ns, 'link', 'set', 'dev', HOST_IF, 'mtu', mtu, 'up'] }),
      hosts({ argv: ['ip', '-n', ns, 'addr', 'add', `${addr}/24`, 'dev', HOST_IF] }),
      hosts({
        comment: 'wire-sized packets: the lab times and drops per frame',
        argv: inNs(ns, ['ethtool', '-K', HOST_IF, ...off]),
      }),
      hosts({ argv: ['ethtool', '-K', rootSide(ns), ...off] }),
    ]),
  ];
  const overrides = (ns: string, role: 'sender' | 'receiver' | 'router') =>
    Object.entries(spec.sysctls?.[role] ?? {}).map(([k, v]) => sysctl(ns, k, v));
  const hostSysctls: Cmd[] = external.flatMap(({ ns, role }) =>
    [
      sysctl(ns, 'net.ipv6.conf.all.disable_ipv6', 1),
      sysctl(ns, 'net.ipv6.conf.default.disable_ipv6', 1),
      ...endHostTcpSysctls(ns, p.socketBufferMax),
      ...(role ? overrides(ns, role) : []),
    ].map(hosts),
  );

  const lab: Cmd[] = [
    {
      comment:
        "qemu's wire ports are virtio-net (a lab PC's NIC drivers load at boot); the bridge joins them",
      argv: ['modprobe', '-a', 'virtio_net', 'bridge'],
    },
    ...[a, b].map((port) => ({
      argv: ['ip', 'link', 'show', 'dev', port],
      until: { timeoutMs: 10_000, intervalMs: 100 },
    })),
    { argv: ['ip', 'netns', 'add', ROUTER_NS] },
    { argv: rtr('link', 'set', 'lo', 'up') },
    sysctl(ROUTER_NS, 'net.ipv6.conf.all.disable_ipv6', 1),
    sysctl(ROUTER_NS, 'net.ipv6.conf.default.disable_ipv6', 1),
    ...overrides(ROUTER_NS, 'router'),
    ...[a, b].map((port) => ({ argv: ['ip', 'link', 'set', 'dev', port, 'netns', ROUTER_NS] })),
    {
      comment: `the wire: ${a} and ${b} bridged, no spanning tree, forwarding at once`,
      argv: rtr('link', 'add', LAB_BRIDGE, 'type', 'bridge', 'stp_state', '0', 'forward_delay', '0'),
    },
    ...[a, b].flatMap((port) => [
      { argv: rtr('link', 'set', 'dev', port, 'mtu', mtu, 'master', LAB_BRIDGE, 'up') },
      { argv: inNs(ROUTER_NS, ['ethtool', '-K', port, ...off]), allowFail: true },
    ]),
    { argv: rtr('link', 'set', 'dev', LAB_BRIDGE, 'mtu', mtu, 'up') },
    { argv: rtr('link', 'add', forwardIfb, 'type', 'ifb') },
    { argv: rtr('link', 'add', reverseIfb, 'type', 'ifb') },
    ...[forwardIfb, reverseIfb].map((dev) => ({ argv: rtr('link', 'set', 'dev', dev, 'mtu', mtu, 'up') })),
  ];
  const qdiscs: Cmd[] = [
    ...bottleneckStage(a, forwardIfb, path.rate, p.bufferPackets.forward, path.aqm, p.frameBytes),
    ...delayStage(b, path, p, p.delayLimitPackets.forward),
    ...bottleneckStage(b, reverseIfb, path.reverse.rate, p.bufferPackets.reverse, path.aqm, p.frameBytes),
    ...delayStage(a, path, p, p.delayLimitPackets.reverse),
  ];

  const hostNs = external.map((e) => e.ns);
  const namespaces = [ROUTER_NS, ...hostNs];
  const linkShow = (ns: string): Cmd =>
    ns === ROUTER_NS
      ? { argv: ['ip', '-n', ns, '-s', '-j', 'link', 'show'] }
      : hosts({ argv: ['ip', '-n', ns, '-s', '-j', 'link', 'show'] });
  const snapshot: Section[] = [
    { title: 'qdiscs', cmds: [{ argv: ['tc', '-n', ROUTER_NS, '-s', '-j', 'qdisc', 'show'] }] },
    {
      title: 'offloads',
      cmds: [
        hosts({ argv: inNs(p.senderNs, ['ethtool', '-k', HOST_IF]) }),
        hosts({ argv: inNs(p.receiverNs, ['ethtool', '-k', HOST_IF]) }),
        { argv: inNs(ROUTER_NS, ['ethtool', '-k', a]) },
        { argv: inNs(ROUTER_NS, ['ethtool', '-k', b]) },
      ],
    },
    {
      title: 'sysctls',
      cmds: [
        { argv: LAB_SYSCTLS_READ },
        { argv: inNs(ROUTER_NS, ['sysctl', '-a']) },
        ...hostNs.map((ns) => hosts({ argv: inNs(ns, ['sysctl', '-a']) })),
      ],
    },
    { title: 'links', cmds: namespaces.map(linkShow) },
  ];
  const teardown: Section = {
    title: 'teardown',
    cmds: [
      ...hostNs.map((ns) => hosts({ argv: ['ip', 'netns', 'del', ns], allowFail: true })),
      ...Object.values(bridges).map((br) => hosts({ argv: ['ip', 'link', 'del', br], allowFail: true })),
      // The ports go back to the lab's root namespace with the router's: ready for the next run.
      { argv: ['ip', 'netns', 'del', ROUTER_NS], allowFail: true },
    ],
  };
  return {
    paths: [p],
    namespaces,
    wire: { ports: w.ports, taps, bridges, labBridge: LAB_BRIDGE },
    setup: [
      { title: 'external hosts (lab host)', cmds: hostSetup },
      { title: 'external hosts: sysctls', cmds: hostSysctls },
      { title: 'the wire in the lab', cmds: lab },
      { title: 'txqueuelen', cmds: txqueuelenCmds(p).map((c) => (c.argv[2] === ROUTER_NS ? c : hosts(c))) },
      { title: 'bottleneck and delay stages', cmds: qdiscs },
    ],
    snapshot,
    teardown,
  };
}
