// The dumbbell: sender and receiver namespaces per path, one router
// namespace; per direction a bottleneck stage (netem rate + buffer on an IFB fed from the
// router's ingress) and then a delay stage (netem delay, + BER loss) on the router's egress.
// Nothing is shaped or delayed on an end host's own egress.
import type { Path, Spec } from '../spec/schema.js';
import { HOST_IF, txqueuelenCmds, udpHostCmds, udpHosts, udpHostTopology } from './hosts.js';
import { inNs } from './netns.js';
import {
  ACK_FRAME_BYTES,
  bdpBytes,
  bufferPackets,
  delayLimitPackets,
  frameBytes,
  perFromBer,
  socketBufferMax,
} from './sizing.js';
import { bottleneckStage, delayStage, probeIntoBottleneck, ROUTER_NS, redirectIngress } from './stages.js';
import type { Cmd, HostGroup, PathTopology, Section } from './types.js';

export const sysctl = (ns: string | null, key: string, value: string | number): Cmd => ({
  argv: ns ? inNs(ns, ['sysctl', '-q', '-w', `${key}=${value}`]) : ['sysctl', '-q', '-w', `${key}=${value}`],
});

/** Options of the TCP end hosts' default routes: `quickack 1` turns their delayed ACKs off. */
export const endHostRouteOptions = (path: Pick<Path, 'quickack'>): string[] =>
  path.quickack ? ['quickack', '1'] : [];

/** An end host's TCP settings: buffers that hold the path, no cached state, comparable timestamps. */
export function endHostTcpSysctls(ns: string, max: number): Cmd[] {
  return [
    {
      comment: `${ns}: TCP buffers up to ${max} B (>= 2 x (BDP + buffer))`,
      ...sysctl(ns, 'net.ipv4.tcp_rmem', `4096 131072 ${max}`),
    },
    sysctl(ns, 'net.ipv4.tcp_wmem', `4096 16384 ${max}`),
    {
      comment: 'no cached ssthresh/RTT from an earlier connection',
      ...sysctl(ns, 'net.ipv4.tcp_no_metrics_save', 1),
    },
    {
      // Every host shares the lab's clock; per-connection random offsets would make the
      // one-way delay that LP and HSTCP-LP read from TSval/TSecr an arbitrary number, and
      // the same spec's packets differ from run to run.
      comment: 'TCP timestamps without per-connection random offsets',
      ...sysctl(ns, 'net.ipv4.tcp_timestamps', 2),
    },
  ];
}

/** The lab-wide sysctls a run records (sysctls.json, `lab`); tcp_mem is the agent's, set at boot. */
export const LAB_SYSCTLS_READ = [
  'sysctl',
  'net.core.netdev_max_backlog',
  'net.core.rmem_max',
  'net.core.wmem_max',
  'net.ipv4.tcp_mem',
];

/** A path's TCP end hosts: its own sender and receiver, then those of its host groups. */
export const tcpEndHosts = (p: PathTopology): string[] => [
  p.senderNs,
  p.receiverNs,
  ...p.groups.flatMap((g) => [g.senderNs, g.receiverNs]),
];

export function pathTopology(spec: Spec, name: string, index: number): PathTopology {
  const path = spec.paths[name] as Path;
  const frame = frameBytes(spec.mtu);
  const bdp = bdpBytes(path.rate, path.rtt);
  const reverseBdp = bdpBytes(path.reverse.rate, path.rtt);
  const forwardBuf = bufferPackets(path.buffer, bdp, frame);
  const reverseBuf = bufferPackets(path.reverse.buffer, reverseBdp, frame);
  const oneWay = path.rtt / 2;
  const net = index + 1;
  // Flows with their own RTT on this path: one host group per distinct RTT, in ascending order.
  const rtts = [
    ...new Set(
      spec.flows
        .filter((f) => f.path === name && f.rtt !== undefined && f.rtt !== path.rtt)
        .map((f) => f.rtt as number),
    ),
  ].sort((a, b) => a - b);
  const groups: HostGroup[] = rtts.map((rttMs, i) => {
    const g = i + 1;
    return {
      index: g,
      rttMs,
      senderNs: `lfn-p${index}g${g}-snd`,
      receiverNs: `lfn-p${index}g${g}-rcv`,
      senderAddr: `10.${net}.${16 + g}.2`,
      receiverAddr: `10.${net}.${32 + g}.2`,
      routerIfs: { toSender: `p${index}g${g}-snd`, toReceiver: `p${index}g${g}-rcv` },
      delayLimitPackets: {
        forward: delayLimitPackets(path.rate, path.reverse.rate, rttMs / 2, frame),
        reverse: delayLimitPackets(path.reverse.rate, path.rate, rttMs / 2, frame),
      },
    };
  });
  const maxBdp = Math.max(
    bdp,
    reverseBdp,
    ...rtts.map((r) => bdpBytes(Math.max(path.rate, path.reverse.rate), r)),
  );
  return {
    name,
    index,
    senderNs: `lfn-p${index}-snd`,
    receiverNs: `lfn-p${index}-rcv`,
    probeNs: `lfn-p${index}-prb`,
    senderAddr: `10.${net}.1.2`,
    receiverAddr: `10.${net}.2.2`,
    probeAddr: `10.${net}.3.2`,
    routerIfs: {
      toSender: `p${index}-snd`,
      toReceiver: `p${index}-rcv`,
      toProbe: `p${index}-prb`,
      forwardIfb: `p${index}-fwd`,
      reverseIfb: `p${index}-rev`,
    },
    frameBytes: frame,
    bdpBytes: Math.round(bdp),
    bdpPackets: Math.ceil(bdp / frame),
    bufferPackets: { forward: forwardBuf, reverse: reverseBuf },
    delayLimitPackets: {
      forward: delayLimitPackets(path.rate, path.reverse.rate, oneWay, frame),
      reverse: delayLimitPackets(path.reverse.rate, path.rate, oneWay, frame),
    },
    per: {
      ackFrame: perFromBer(path.ber, ACK_FRAME_BYTES),
      fullFrame: perFromBer(path.ber, frame),
      ackFrameBytes: ACK_FRAME_BYTES,
    },
    socketBufferMax: socketBufferMax(maxBdp, Math.max(forwardBuf, reverseBuf) * frame),
    groups,
    ...udpHostTopology(path, index),
    txqueuelen: path.txqueuelen,
  };
}

export function buildDumbbell(spec: Spec): {
  paths: PathTopology[];
  /** Every namespace, router first, in the order the snapshot commands visit them. */
  namespaces: string[];
  setup: Section[];
  snapshot: Section[];
  teardown: Section;
} {
  const paths = Object.keys(spec.paths).map((name, i) => pathTopology(spec, name, i));
  const hostNs = paths.flatMap((p) => [
    ...udpHosts(p).map((u) => u.ns),
    p.senderNs,
    p.receiverNs,
    p.probeNs,
    ...p.groups.flatMap((g) => [g.senderNs, g.receiverNs]),
  ]);
  const allNs = [ROUTER_NS, ...hostNs];
  const bufMax = Math.max(...paths.map((p) => p.socketBufferMax));

  const globals: Cmd[] = [
    {
      comment: 'no hidden queue before the router: raise the per-CPU backlog',
      ...sysctl(null, 'net.core.netdev_max_backlog', 10000),
    },
    {
      comment: "let iperf3 -w ask for windows up to the namespaces' ceiling",
      ...sysctl(null, 'net.core.rmem_max', bufMax),
    },
    sysctl(null, 'net.core.wmem_max', bufMax),
    {
      comment:
        'each namespace made after this gets its own small TCP hash table: the samplers walk it 100 times a second',
      ...sysctl(null, 'net.ipv4.tcp_child_ehash_entries', 1024),
    },
  ];

  const namespaces: Cmd[] = allNs.flatMap((ns) => [
    { argv: ['ip', 'netns', 'add', ns] },
    { argv: ['ip', '-n', ns, 'link', 'set', 'lo', 'up'] },
  ]);

  const nsSysctls: Cmd[] = [];
  for (const ns of allNs) {
    nsSysctls.push(
      sysctl(ns, 'net.ipv6.conf.all.disable_ipv6', 1),
      sysctl(ns, 'net.ipv6.conf.default.disable_ipv6', 1),
    );
  }
  nsSysctls.push({ comment: 'the router forwards', ...sysctl(ROUTER_NS, 'net.ipv4.ip_forward', 1) });
  for (const p of paths) {
    const pairs = [
      { snd: p.senderNs, rcv: p.receiverNs, rtt: undefined as number | undefined },
      ...p.groups.map((g) => ({ snd: g.senderNs, rcv: g.receiverNs, rtt: g.rttMs })),
    ];
    for (const { snd, rcv, rtt } of pairs)
      for (const ns of [snd, rcv]) {
        // DCTCP falls back to Reno ("dctcp-reno") unless the connection negotiates ECN.
        const dctcpHere = spec.flows.some(
          (f) =>
            f.stack === 'dctcp' &&
            f.path === p.name &&
            (rtt === undefined ? f.rtt === undefined || f.rtt === spec.paths[p.name]?.rtt : f.rtt === rtt) &&
            (f.direction === 'forward') === (ns === snd),
        );
        if (dctcpHere)
          nsSysctls.push({
            comment: 'DCTCP flows start here: request ECN',
            ...sysctl(ns, 'net.ipv4.tcp_ecn', 1),
          });
        nsSysctls.push(...endHostTcpSysctls(ns, p.socketBufferMax));
      }
  }
  // The spec's own overrides come last, so they win over the defaults above.
  const overrides = (ns: string[], role: 'sender' | 'receiver' | 'router') =>
    Object.entries(spec.sysctls?.[role] ?? {}).flatMap(([k, v], i) =>
      ns.map((n) => ({ comment: i === 0 ? `spec's ${role} sysctls` : undefined, ...sysctl(n, k, v) })),
    );
  nsSysctls.push(
    ...overrides(
      paths.flatMap((p) => [p.senderNs, ...p.groups.map((g) => g.senderNs)]),
      'sender',
    ),
    ...overrides(
      paths.flatMap((p) => [p.receiverNs, ...p.groups.map((g) => g.receiverNs)]),
      'receiver',
    ),
    ...overrides([ROUTER_NS], 'router'),
  );

  const links: Cmd[] = [];
  const offloads: Cmd[] = [];
  const rtrLink = (...a: string[]) => ['ip', '-n', ROUTER_NS, 'link', ...a];
  for (const p of paths) {
    const { toSender, toReceiver, toProbe, forwardIfb, reverseIfb } = p.routerIfs;
    const net = p.index + 1;
    const ack = endHostRouteOptions(spec.paths[p.name] as Path);
    links.push(
      {
        comment: `path ${p.name}: ${p.senderNs} <-> router <-> ${p.receiverNs}`,
        argv: rtrLink('add', toSender, 'type', 'veth', 'peer', 'name', HOST_IF, 'netns', p.senderNs),
      },
      { argv: rtrLink('add', toReceiver, 'type', 'veth', 'peer', 'name', HOST_IF, 'netns', p.receiverNs) },
      {
        comment: "the RTT probe's host",
        argv: rtrLink('add', toProbe, 'type', 'veth', 'peer', 'name', HOST_IF, 'netns', p.probeNs),
      },
      { argv: rtrLink('add', forwardIfb, 'type', 'ifb') },
      { argv: rtrLink('add', reverseIfb, 'type', 'ifb') },
    );
    for (const dev of [toSender, toReceiver, toProbe, forwardIfb, reverseIfb]) {
      links.push({ argv: rtrLink('set', 'dev', dev, 'mtu', String(spec.mtu), 'up') });
    }
    for (const ns of [p.senderNs, p.receiverNs, p.probeNs]) {
      links.push({ argv: ['ip', '-n', ns, 'link', 'set', 'dev', HOST_IF, 'mtu', String(spec.mtu), 'up'] });
    }
    links.push(
      { argv: ['ip', '-n', ROUTER_NS, 'addr', 'add', `10.${net}.1.1/24`, 'dev', toSender] },
      { argv: ['ip', '-n', ROUTER_NS, 'addr', 'add', `10.${net}.2.1/24`, 'dev', toReceiver] },
      { argv: ['ip', '-n', ROUTER_NS, 'addr', 'add', `10.${net}.3.1/24`, 'dev', toProbe] },
      { argv: ['ip', '-n', p.senderNs, 'addr', 'add', `${p.senderAddr}/24`, 'dev', HOST_IF] },
      { argv: ['ip', '-n', p.receiverNs, 'addr', 'add', `${p.receiverAddr}/24`, 'dev', HOST_IF] },
      { argv: ['ip', '-n', p.probeNs, 'addr', 'add', `${p.probeAddr}/24`, 'dev', HOST_IF] },
      {
        ...(ack.length ? { comment: 'no delayed ACKs: every segment acknowledged at once' } : {}),
        argv: ['ip', '-n', p.senderNs, 'route', 'add', 'default', 'via', `10.${net}.1.1`, ...ack],
      },
      { argv: ['ip', '-n', p.receiverNs, 'route', 'add', 'default', 'via', `10.${net}.2.1`, ...ack] },
      { argv: ['ip', '-n', p.probeNs, 'route', 'add', 'default', 'via', `10.${net}.3.1`] },
    );
    const off = ['tso', 'off', 'gso', 'off', 'gro', 'off'];
    offloads.push(
      {
        comment: 'wire-sized packets: netem times and drops per skb',
        argv: inNs(p.senderNs, ['ethtool', '-K', HOST_IF, ...off]),
      },
      { argv: inNs(p.receiverNs, ['ethtool', '-K', HOST_IF, ...off]) },
      { argv: inNs(ROUTER_NS, ['ethtool', '-K', toSender, ...off]) },
      { argv: inNs(ROUTER_NS, ['ethtool', '-K', toReceiver, ...off]) },
      { argv: inNs(p.probeNs, ['ethtool', '-K', HOST_IF, ...off]) },
      { argv: inNs(ROUTER_NS, ['ethtool', '-K', toProbe, ...off]) },
    );
    const udp = udpHostCmds(spec, p, spec.paths[p.name] as Path);
    links.push(...udp.links);
    offloads.push(...udp.offloads);
    for (const g of p.groups) {
      const s = `10.${net}.${16 + g.index}`;
      const r = `10.${net}.${32 + g.index}`;
      const gi = g.routerIfs;
      links.push(
        {
          comment: `flows with RTT ${g.rttMs} ms on path ${p.name}: their own hosts, the same bottleneck`,
          argv: rtrLink('add', gi.toSender, 'type', 'veth', 'peer', 'name', HOST_IF, 'netns', g.senderNs),
        },
        {
          argv: rtrLink('add', gi.toReceiver, 'type', 'veth', 'peer', 'name', HOST_IF, 'netns', g.receiverNs),
        },
        ...[gi.toSender, gi.toReceiver].map((dev) => ({
          argv: rtrLink('set', 'dev', dev, 'mtu', String(spec.mtu), 'up'),
        })),
        ...[g.senderNs, g.receiverNs].map((ns) => ({
          argv: ['ip', '-n', ns, 'link', 'set', 'dev', HOST_IF, 'mtu', String(spec.mtu), 'up'],
        })),
        { argv: ['ip', '-n', ROUTER_NS, 'addr', 'add', `${s}.1/24`, 'dev', gi.toSender] },
        { argv: ['ip', '-n', ROUTER_NS, 'addr', 'add', `${r}.1/24`, 'dev', gi.toReceiver] },
        { argv: ['ip', '-n', g.senderNs, 'addr', 'add', `${g.senderAddr}/24`, 'dev', HOST_IF] },
        { argv: ['ip', '-n', g.receiverNs, 'addr', 'add', `${g.receiverAddr}/24`, 'dev', HOST_IF] },
        { argv: ['ip', '-n', g.senderNs, 'route', 'add', 'default', 'via', `${s}.1`, ...ack] },
        { argv: ['ip', '-n', g.receiverNs, 'route', 'add', 'default', 'via', `${r}.1`, ...ack] },
      );
      offloads.push(
        { argv: inNs(g.senderNs, ['ethtool', '-K', HOST_IF, ...off]) },
        { argv: inNs(g.receiverNs, ['ethtool', '-K', HOST_IF, ...off]) },
        { argv: inNs(ROUTER_NS, ['ethtool', '-K', gi.toSender, ...off]) },
        { argv: inNs(ROUTER_NS, ['ethtool', '-K', gi.toReceiver, ...off]) },
      );
    }
  }

  // After every link exists: the spec's device queue lengths.
  links.push(...paths.flatMap(txqueuelenCmds));

  const qdiscs: Cmd[] = [];
  for (const p of paths) {
    const path = spec.paths[p.name] as Path;
    const { toSender, toReceiver, toProbe, forwardIfb, reverseIfb } = p.routerIfs;
    qdiscs.push(
      ...bottleneckStage(toSender, forwardIfb, path.rate, p.bufferPackets.forward, path.aqm, p.frameBytes),
      ...probeIntoBottleneck(toProbe, forwardIfb),
      ...delayStage(toReceiver, path, p, p.delayLimitPackets.forward),
      ...bottleneckStage(
        toReceiver,
        reverseIfb,
        path.reverse.rate,
        p.bufferPackets.reverse,
        path.aqm,
        p.frameBytes,
      ),
      ...delayStage(toSender, path, p, p.delayLimitPackets.reverse),
      ...delayStage(toProbe, path, p, p.delayLimitPackets.reverse),
    );
    qdiscs.push(...udpHostCmds(spec, p, path).qdiscs);
    for (const g of p.groups) {
      const gi = g.routerIfs;
      qdiscs.push(
        ...redirectIngress(
          gi.toSender,
          forwardIfb,
          `RTT ${g.rttMs} ms group: into the path's bottleneck both ways`,
        ),
        ...redirectIngress(gi.toReceiver, reverseIfb),
        ...delayStage(gi.toReceiver, path, p, g.delayLimitPackets.forward, { oneWayMs: g.rttMs / 2 }),
        ...delayStage(gi.toSender, path, p, g.delayLimitPackets.reverse, { oneWayMs: g.rttMs / 2 }),
      );
    }
  }

  const snapshot: Section[] = [
    { title: 'qdiscs', cmds: [{ argv: ['tc', '-n', ROUTER_NS, '-s', '-j', 'qdisc', 'show'] }] },
    {
      title: 'offloads',
      cmds: paths.flatMap((p) => [
        { argv: inNs(p.senderNs, ['ethtool', '-k', HOST_IF]) },
        { argv: inNs(p.receiverNs, ['ethtool', '-k', HOST_IF]) },
        { argv: inNs(ROUTER_NS, ['ethtool', '-k', p.routerIfs.toSender]) },
        { argv: inNs(ROUTER_NS, ['ethtool', '-k', p.routerIfs.toReceiver]) },
      ]),
    },
    {
      title: 'sysctls',
      cmds: [{ argv: LAB_SYSCTLS_READ }, ...allNs.map((ns) => ({ argv: inNs(ns, ['sysctl', '-a']) }))],
    },
    { title: 'links', cmds: allNs.map((ns) => ({ argv: ['ip', '-n', ns, '-s', '-j', 'link', 'show'] })) },
    {
      title: 'routes',
      cmds: paths.flatMap(tcpEndHosts).map((ns) => ({ argv: ['ip', '-n', ns, '-j', 'route', 'show'] })),
    },
    {
      // TcpExt counters, among them TCPMemoryPressures: the hosts share the guest's TCP memory.
      title: 'tcp counters',
      cmds: paths.flatMap(tcpEndHosts).map((ns) => ({ argv: inNs(ns, ['cat', '/proc/net/netstat']) })),
    },
  ];

  const teardown: Section = {
    title: 'teardown',
    cmds: [...allNs].reverse().map((ns) => ({ argv: ['ip', 'netns', 'del', ns], allowFail: true })),
  };

  return {
    paths,
    namespaces: allNs,
    setup: [
      { title: 'lab-wide sysctls', cmds: globals },
      { title: 'namespaces', cmds: namespaces },
      { title: 'per-namespace sysctls', cmds: nsSysctls },
      { title: 'links, addresses, routes', cmds: links },
      { title: 'offloads', cmds: offloads },
      { title: 'bottleneck and delay stages', cmds: qdiscs },
    ],
    snapshot,
    teardown,
  };
}
