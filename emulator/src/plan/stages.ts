// The emulator's two stages per direction, in tc's words: the bottleneck (netem rate + buffer on an
// IFB fed from the router's ingress) and the delay stage (netem delay, + per-size BER loss, on the
// router's egress). Kept apart so queueing and propagation delay add up instead of blurring.
import type { Path, Spec } from '../spec/schema.js';
import { tcPercent, tcRate, tcTime } from './sizing.js';
import type { Cmd, HostGroup, PathTopology } from './types.js';

export const ROUTER_NS = 'lfn-rtr';

const tc = (...a: string[]) => ['tc', '-n', ROUTER_NS, ...a];

/** Everything arriving on `dev` is sent through `ifb` first: the IFB's qdisc is the bottleneck. */
export function redirectIngress(dev: string, ifb: string, comment?: string): Cmd[] {
  return [
    { comment, argv: tc('qdisc', 'add', 'dev', dev, 'handle', 'ffff:', 'ingress') },
    {
      argv: tc(
        'filter',
        'add',
        'dev',
        dev,
        'parent',
        'ffff:',
        'protocol',
        'all',
        'matchall',
        'action',
        'mirred',
        'egress',
        'redirect',
        'dev',
        ifb,
      ),
    },
  ];
}

export type Aqm = Path['aqm'];

/** The AQM leaf under the htb shaper, sized by the buffer, ECN marking on (DCTCP needs marks). */
function aqmLeaf(
  aqm: Exclude<Aqm, 'fifo' | 'cake'>,
  limit: number,
  frame: number,
  rateBps: number,
): string[] {
  switch (aqm) {
    case 'codel':
      return ['codel', 'limit', String(limit), 'ecn'];
    case 'fq_codel':
      return ['fq_codel', 'limit', String(limit), 'ecn'];
    case 'pie':
      return ['pie', 'limit', String(limit), 'ecn'];
    case 'red': {
      // Floyd's rules of thumb: mark from a fifth of the buffer, all by three fifths.
      const bytes = limit * frame;
      const min = Math.max(frame, Math.round(bytes / 5));
      const max = Math.max(2 * min, Math.round((3 * bytes) / 5));
      const burst = Math.max(1, Math.ceil((2 * min + max) / (3 * frame)));
      return [
        'red',
        'limit',
        String(bytes),
        'min',
        String(min),
        'max',
        String(max),
        'avpkt',
        String(frame),
        'burst',
        String(burst),
        'probability',
        '0.1',
        'bandwidth',
        tcRate(rateBps),
        'ecn',
      ];
    }
  }
}

// The bottleneck's qdiscs, one builder each for `add` (bottleneckStage) and `change` (rateChange), so
// a rate change always targets the qdisc or class the stage was built with.
type TcVerb = 'add' | 'change';

/** The IFB's root qdisc (handle 1:), given as its kind and parameters. */
function ifbRoot(verb: TcVerb, ifb: string, ...qdisc: string[]): string[] {
  return tc('qdisc', verb, 'dev', ifb, 'root', 'handle', '1:', ...qdisc);
}

/** fifo: netem's own paced queue as the IFB's root. */
function fifoRoot(verb: TcVerb, ifb: string, rateBps: number, limit: number): string[] {
  return ifbRoot(verb, ifb, 'netem', 'rate', tcRate(rateBps), 'limit', String(limit));
}

/** cake as the IFB's root, shaping by itself; `extra` only where the stage is built. */
function cakeRoot(verb: TcVerb, ifb: string, rateBps: number, ...extra: string[]): string[] {
  return ifbRoot(verb, ifb, 'cake', 'bandwidth', tcRate(rateBps), ...extra);
}

/** The htb class that shapes an AQM to the bottleneck rate. */
function htbClass(verb: TcVerb, ifb: string, rateBps: number): string[] {
  const rate = tcRate(rateBps);
  return tc('class', verb, 'dev', ifb, 'parent', '1:', 'classid', '1:1', 'htb', 'rate', rate, 'ceil', rate);
}

/**
 * Bottleneck stage: everything arriving on `ingressDev` goes through `ifb`. A fifo is netem's own
 * paced queue (exact per-packet departure times); an AQM runs under an htb shaper at the same rate
 * (cake shapes by itself).
 */
export function bottleneckStage(
  ingressDev: string,
  ifb: string,
  rateBps: number,
  limit: number,
  aqm: Aqm = 'fifo',
  frame = 1514,
): Cmd[] {
  const redirect = redirectIngress(ingressDev, ifb);
  if (aqm === 'fifo') {
    return [
      ...redirect,
      {
        comment: `bottleneck: ${tcRate(rateBps)}, buffer ${limit} packets (tail drop)`,
        argv: fifoRoot('add', ifb, rateBps, limit),
      },
    ];
  }
  if (aqm === 'cake') {
    return [
      ...redirect,
      {
        comment: `bottleneck: cake at ${tcRate(rateBps)} (its own shaper and AQM), ${limit * frame} bytes of memory`,
        argv: cakeRoot('add', ifb, rateBps, 'memlimit', String(limit * frame)),
      },
    ];
  }
  return [
    ...redirect,
    {
      comment: `bottleneck: htb at ${tcRate(rateBps)} with ${aqm} (limit ${limit} packets, ECN marking)`,
      argv: ifbRoot('add', ifb, 'htb', 'default', '1'),
    },
    {
      argv: htbClass('add', ifb, rateBps),
    },
    {
      argv: tc(
        'qdisc',
        'add',
        'dev',
        ifb,
        'parent',
        '1:1',
        'handle',
        '10:',
        ...aqmLeaf(aqm, limit, frame, rateBps),
      ),
    },
  ];
}

/** A new bottleneck rate on a running stage, in the same qdisc the stage was built with. */
export function rateChange(ifb: string, rateBps: number, limit: number, aqm: Aqm): Cmd[] {
  if (aqm === 'fifo') {
    return [
      {
        argv: fifoRoot('change', ifb, rateBps, limit),
      },
    ];
  }
  if (aqm === 'cake')
    return [
      {
        argv: cakeRoot('change', ifb, rateBps),
      },
    ];
  return [
    {
      argv: htbClass('change', ifb, rateBps),
    },
  ];
}

/** The probe's packets join the same forward bottleneck as the flows' (one IFB, one queue). */
export function probeIntoBottleneck(probeDev: string, ifb: string): Cmd[] {
  return redirectIngress(probeDev, ifb, 'RTT probe: same bottleneck queue as the flows');
}

/**
 * Delay stage on the router's egress. With a BER, ACK-sized and full-sized frames lose packets at
 * their own PER (netem's loss ignores size), so a prio qdisc splits them by IP length with u32.
 * `op: 'change'` gives only the netem commands, with another one-way delay (calibration).
 */
export function delayStage(
  dev: string,
  path: Path,
  topo: PathTopology,
  limit: number,
  { op = 'add', oneWayMs = path.rtt / 2 }: { op?: 'add' | 'change'; oneWayMs?: number } = {},
): Cmd[] {
  const delay = ['delay', tcTime(oneWayMs)];
  if (path.jitter > 0) {
    delay.push(tcTime(path.jitter));
    if (path.jitterDistribution !== 'uniform') delay.push('distribution', path.jitterDistribution);
  }
  const jitterNote =
    path.jitter > 0 ? `, jitter ±${tcTime(path.jitter)} ${path.jitterDistribution} (reorders packets)` : '';
  if (path.ber === 0) {
    if (oneWayMs === 0 && path.jitter === 0) return [];
    return [
      {
        comment:
          op === 'add'
            ? `delay ${tcTime(oneWayMs)} one way${jitterNote}; limit holds 1.5x what is in flight`
            : undefined,
        argv: tc('qdisc', op, 'dev', dev, 'root', 'handle', '1:', 'netem', ...delay, 'limit', String(limit)),
      },
    ];
  }
  const small = topo.per.ackFrame;
  const large = topo.per.fullFrame;
  const netems: Cmd[] = [
    {
      argv: tc(
        'qdisc',
        op,
        'dev',
        dev,
        'parent',
        '1:1',
        'handle',
        '10:',
        'netem',
        ...delay,
        'loss',
        'random',
        tcPercent(small),
        'limit',
        String(limit),
      ),
    },
    {
      argv: tc(
        'qdisc',
        op,
        'dev',
        dev,
        'parent',
        '1:2',
        'handle',
        '20:',
        'netem',
        ...delay,
        'loss',
        'random',
        tcPercent(large),
        'limit',
        String(limit),
      ),
    },
  ];
  if (op === 'change') return netems;
  return [
    {
      comment: `delay ${tcTime(oneWayMs)} one way${jitterNote}; BER ${path.ber} → PER ${small.toPrecision(3)} for ${topo.per.ackFrameBytes} B frames, ${large.toPrecision(3)} for ${topo.frameBytes} B`,
      argv: tc(
        'qdisc',
        'add',
        'dev',
        dev,
        'root',
        'handle',
        '1:',
        'prio',
        'bands',
        '2',
        'priomap',
        ...Array(16).fill('1'),
      ),
    },
    ...netems,
    {
      comment: 'IP total length below 128 bytes: ACK-sized frames',
      argv: tc(
        'filter',
        'add',
        'dev',
        dev,
        'parent',
        '1:',
        'protocol',
        'ip',
        'prio',
        '1',
        'u32',
        'match',
        'u16',
        '0x0000',
        '0xff80',
        'at',
        '2',
        'flowid',
        '1:1',
      ),
    },
  ];
}

/**
 * The emulator itself adds delay: under software emulation every netem stage's timer fires late
 * (~0.4 ms each under TCG, four stages per round trip). Given the idle RTT measured in excess of
 * the configured one, take half of it off each direction's delay stage. With `rttMs` (a scheduled
 * change), set the delay stages to that RTT, corrected the same way. Returns no commands when
 * there is nothing to change or no delay stage to change.
 */
export function calibrateDelay(
  spec: Spec,
  topo: PathTopology,
  excessMs: number,
  rttMs?: number,
  /** A host group (flows with their own RTT): its two delay stages instead of the path's. */
  group?: HostGroup,
): { oneWayMs: number; cmds: Cmd[] } {
  const path = spec.paths[topo.name] as Path;
  const nominal = group ? group.rttMs : path.rtt;
  const rtt = rttMs ?? nominal;
  const oneWayMs = Math.max(0, Math.round((rtt / 2 - Math.max(0, excessMs) / 2) * 1000) / 1000);
  if ((excessMs <= 0 && rtt === nominal) || nominal === 0) return { oneWayMs: rtt / 2, cmds: [] };
  if (group) {
    const g = group.routerIfs;
    return {
      oneWayMs,
      cmds: [
        ...delayStage(g.toReceiver, path, topo, group.delayLimitPackets.forward, { op: 'change', oneWayMs }),
        ...delayStage(g.toSender, path, topo, group.delayLimitPackets.reverse, { op: 'change', oneWayMs }),
      ],
    };
  }
  const { toSender, toReceiver, toProbe } = topo.routerIfs;
  return {
    oneWayMs,
    cmds: [
      ...delayStage(toReceiver, path, topo, topo.delayLimitPackets.forward, { op: 'change', oneWayMs }),
      ...delayStage(toSender, path, topo, topo.delayLimitPackets.reverse, { op: 'change', oneWayMs }),
      ...delayStage(toProbe, path, topo, topo.delayLimitPackets.reverse, { op: 'change', oneWayMs }),
      ...(topo.udp
        ? delayStage(topo.udp.toUdp, path, topo, topo.delayLimitPackets.reverse, { op: 'change', oneWayMs })
        : []),
      ...(topo.udpReverse
        ? delayStage(topo.udpReverse.toUdp, path, topo, topo.delayLimitPackets.forward, {
            op: 'change',
            oneWayMs,
          })
        : []),
    ],
  };
}
