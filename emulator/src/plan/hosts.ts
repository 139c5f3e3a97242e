// Hosts beside a path's flows: the UDP cross-traffic hosts (one per direction that has sources),
// and the txqueuelen the spec sets on the path's interfaces. Split from dumbbell.ts, which wires
// the path itself.
import type { Path, Spec } from '../spec/schema.js';
import { inNs } from './netns.js';
import { delayStage, ROUTER_NS, redirectIngress } from './stages.js';
import type { Cmd, PathTopology, UdpHost } from './types.js';

export const HOST_IF = 'eth0';

/**
 * Forward sources live on the sender side (10.N.4.0/24) and feed the forward bottleneck; reverse
 * sources on the receiver side (10.N.5.0/24) and feed the reverse one, so their datagrams queue with
 * the forward flows' ACKs and the reverse flows' data.
 */
export function udpHostTopology(
  path: Path,
  index: number,
): { udp: UdpHost | null; udpReverse: UdpHost | null } {
  const net = index + 1;
  const has = (d: 'forward' | 'reverse') => path.cross.some((c) => c.direction === d);
  return {
    udp: has('forward') ? { ns: `lfn-p${index}-udp`, addr: `10.${net}.4.2`, toUdp: `p${index}-udp` } : null,
    udpReverse: has('reverse')
      ? { ns: `lfn-p${index}-udr`, addr: `10.${net}.5.2`, toUdp: `p${index}-udr` }
      : null,
  };
}

export const udpHosts = (p: PathTopology) =>
  [
    { host: p.udp, direction: 'forward' as const },
    { host: p.udpReverse, direction: 'reverse' as const },
  ].flatMap(({ host, direction }) => (host ? [{ ...host, direction }] : []));

/** Links, offloads and stages of a path's UDP hosts. */
export function udpHostCmds(
  spec: Spec,
  p: PathTopology,
  path: Path,
): { links: Cmd[]; offloads: Cmd[]; qdiscs: Cmd[] } {
  const links: Cmd[] = [];
  const offloads: Cmd[] = [];
  const qdiscs: Cmd[] = [];
  const off = ['tso', 'off', 'gso', 'off', 'gro', 'off'];
  for (const u of udpHosts(p)) {
    const subnet = u.addr.replace(/\.2$/, '');
    const forward = u.direction === 'forward';
    links.push(
      {
        comment: `the UDP cross-traffic host (${u.direction})`,
        argv: [
          'ip',
          '-n',
          ROUTER_NS,
          'link',
          'add',
          u.toUdp,
          'type',
          'veth',
          'peer',
          'name',
          HOST_IF,
          'netns',
          u.ns,
        ],
      },
      { argv: ['ip', '-n', ROUTER_NS, 'link', 'set', 'dev', u.toUdp, 'mtu', String(spec.mtu), 'up'] },
      { argv: ['ip', '-n', u.ns, 'link', 'set', 'dev', HOST_IF, 'mtu', String(spec.mtu), 'up'] },
      { argv: ['ip', '-n', ROUTER_NS, 'addr', 'add', `${subnet}.1/24`, 'dev', u.toUdp] },
      { argv: ['ip', '-n', u.ns, 'addr', 'add', `${u.addr}/24`, 'dev', HOST_IF] },
      { argv: ['ip', '-n', u.ns, 'route', 'add', 'default', 'via', `${subnet}.1`] },
    );
    offloads.push(
      { argv: inNs(u.ns, ['ethtool', '-K', HOST_IF, ...off]) },
      { argv: inNs(ROUTER_NS, ['ethtool', '-K', u.toUdp, ...off]) },
    );
    qdiscs.push(
      ...redirectIngress(
        u.toUdp,
        forward ? p.routerIfs.forwardIfb : p.routerIfs.reverseIfb,
        `UDP cross traffic: into the ${u.direction} bottleneck`,
      ),
      // What goes back to the host crosses the other direction's delay.
      ...delayStage(u.toUdp, path, p, forward ? p.delayLimitPackets.reverse : p.delayLimitPackets.forward),
    );
  }
  return { links, offloads, qdiscs };
}

/** `ip link set DEV txqueuelen N` on each role's interfaces of a path, as the spec asks. */
export function txqueuelenCmds(p: PathTopology): Cmd[] {
  const t = p.txqueuelen;
  const devs: { ns: string; dev: string; n: number | null }[] = [
    ...[p.senderNs, ...p.groups.map((g) => g.senderNs), ...(p.udp ? [p.udp.ns] : [])].map((ns) => ({
      ns,
      dev: HOST_IF,
      n: t.sender,
    })),
    ...[p.receiverNs, ...p.groups.map((g) => g.receiverNs), ...(p.udpReverse ? [p.udpReverse.ns] : [])].map(
      (ns) => ({ ns, dev: HOST_IF, n: t.receiver }),
    ),
    ...[
      p.routerIfs.toSender,
      p.routerIfs.toReceiver,
      ...p.groups.flatMap((g) => [g.routerIfs.toSender, g.routerIfs.toReceiver]),
      ...udpHosts(p).map((u) => u.toUdp),
    ].map((dev) => ({ ns: ROUTER_NS, dev, n: t.router })),
  ];
  return devs
    .filter((d): d is { ns: string; dev: string; n: number } => d.n !== null)
    .map((d, i) => ({
      comment:
        i === 0
          ? `path ${p.name}: the spec's txqueuelen (sender ${t.sender ?? '-'}, receiver ${t.receiver ?? '-'}, router ${t.router ?? '-'})`
          : undefined,
      argv: ['ip', '-n', d.ns, 'link', 'set', 'dev', d.dev, 'txqueuelen', String(d.n)],
    }));
}
