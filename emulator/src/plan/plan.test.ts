import { describe, expect, it } from 'vitest';
import { validateSpec } from '../spec/index.js';
import { buildPlan, delayLimitPackets, formatPlan, perFromBer, tcPercent, tcRate, tcTime } from './index.js';

function spec(input: Record<string, unknown>) {
  const v = validateSpec({ name: 't', duration: '20s', flows: [{ stack: 'cubic' }], ...input });
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return v.spec;
}

const allArgv = (plan: ReturnType<typeof buildPlan>) => plan.setup.flatMap((s) => s.cmds.map((c) => c.argv));

describe('sizing', () => {
  it('turns BER into PER by frame size', () => {
    expect(perFromBer(1e-9, 1500)).toBeCloseTo(1.2e-5, 7);
    expect(perFromBer(1e-5, 1500)).toBeCloseTo(0.113, 3);
    expect(perFromBer(1e-9, 66)).toBeCloseTo(5.28e-7, 9);
    expect(perFromBer(0, 1500)).toBe(0);
  });
  it("sizes the delay stage for what is in flight, not netem's default 1000", () => {
    // 1 Gbit/s each way, 100 ms one way: (2e9 / (8*1514)) * 0.1 * 1.5 ≈ 24769 + 1000 slack
    expect(delayLimitPackets(1e9, 1e9, 100, 1514)).toBe(25769);
  });
  it('speaks tc', () => {
    expect(tcRate(100e6)).toBe('100mbit');
    expect(tcRate(1e9)).toBe('1gbit');
    expect(tcRate(622e6)).toBe('622mbit');
    expect(tcRate(1.5e6)).toBe('1500kbit');
    expect(tcTime(25)).toBe('25ms');
    expect(tcTime(0.25)).toBe('250us');
    expect(tcPercent(1.2e-5)).toBe('0.0012%');
  });
});

describe('buildPlan', () => {
  const s = spec({ paths: { main: { rtt: '50ms', rate: '50Mbit', buffer: '1bdp' } } });
  const plan = buildPlan(s);

  it('puts the bottleneck on an IFB fed from the router ingress, then delay on the router egress', () => {
    const argv = allArgv(plan).map((a) => a.join(' '));
    expect(argv).toContain('tc -n lfn-rtr qdisc add dev p0-fwd root handle 1: netem rate 50mbit limit 207');
    expect(argv).toContain(
      'tc -n lfn-rtr filter add dev p0-snd parent ffff: protocol all matchall action mirred egress redirect dev p0-fwd',
    );
    expect(argv.find((a) => a.startsWith('tc -n lfn-rtr qdisc add dev p0-rcv root'))).toMatch(
      /netem delay 25ms limit \d+$/,
    );
    // Nothing shaped or delayed inside an end host.
    expect(argv.filter((a) => /^tc -n lfn-p\d-(snd|rcv)/.test(a))).toEqual([]);
  });

  it('sizes the buffer from the BDP in frames', () => {
    // 50 Mbit/s × 50 ms = 312500 B; / 1514 B = 206.4 → 207 packets
    expect(plan.topology.paths[0]?.bufferPackets).toEqual({ forward: 207, reverse: 207 });
    expect(plan.topology.paths[0]?.bdpBytes).toBe(312500);
  });

  it('turns offloads off and sets TCP buffers per namespace', () => {
    const argv = allArgv(plan).map((a) => a.join(' '));
    expect(argv).toContain('ip netns exec lfn-p0-snd ethtool -K eth0 tso off gso off gro off');
    expect(argv).toContain('ip netns exec lfn-p0-snd sysctl -q -w net.ipv4.tcp_rmem=4096 131072 4194304');
    expect(argv).toContain('ip netns exec lfn-p0-rcv sysctl -q -w net.ipv4.tcp_no_metrics_save=1');
    for (const ns of ['lfn-p0-snd', 'lfn-p0-rcv'])
      expect(argv).toContain(`ip netns exec ${ns} sysctl -q -w net.ipv4.tcp_timestamps=2`);
  });

  it('runs reverse flows from the receiver side, one port per flow', () => {
    const p = buildPlan(
      spec({
        paths: { main: { rtt: '20ms', rate: '10Mbit' } },
        flows: [{ stack: 'htcp' }, { stack: 'reno', streams: 16, direction: 'reverse', window: '64KiB' }],
      }),
    );
    expect(p.clients.map((c) => c.argv.join(' '))).toEqual([
      'ip netns exec lfn-p0-snd iperf3 -c 10.1.2.2 -p 5201 -C htcp -t 20 -i 1 -P 1 -J',
      'ip netns exec lfn-p0-rcv iperf3 -c 10.1.1.2 -p 5202 -C reno -t 20 -i 1 -P 16 -J -w 65536',
    ]);
    expect(p.servers[1]?.argv.slice(0, 4)).toEqual(['ip', 'netns', 'exec', 'lfn-p0-snd']);
  });

  it('gives a flow whose streams connect together one server and one single-stream client per stream', () => {
    const p = buildPlan(
      spec({
        paths: { main: { rtt: '20ms', rate: '10Mbit' } },
        flows: [
          { stack: 'reno', streams: 3, connect: 'together', window: '64KiB' },
          { stack: 'htcp' },
          { stack: 'cubic', streams: 2, connect: 'together' },
        ],
      }),
    );
    // The flows keep 5201 + their index; the extra streams' ports follow them.
    expect(p.topology.flows.map((f) => f.ports ?? [f.port])).toEqual([
      [5201, 5204, 5205],
      [5202],
      [5203, 5206],
    ]);
    expect(p.clients.map((c) => [c.name, c.at, c.argv.slice(4).join(' ')])).toEqual([
      ['client:reno-1#1', 0, 'iperf3 -c 10.1.2.2 -p 5201 -C reno -t 20 -i 1 -P 1 -J -w 65536'],
      ['client:reno-1#2', 0, 'iperf3 -c 10.1.2.2 -p 5204 -C reno -t 20 -i 1 -P 1 -J -w 65536'],
      ['client:reno-1#3', 0, 'iperf3 -c 10.1.2.2 -p 5205 -C reno -t 20 -i 1 -P 1 -J -w 65536'],
      ['client:htcp-2', 0, 'iperf3 -c 10.1.2.2 -p 5202 -C htcp -t 20 -i 1 -P 1 -J'],
      ['client:cubic-3#1', 0, 'iperf3 -c 10.1.2.2 -p 5203 -C cubic -t 20 -i 1 -P 1 -J'],
      ['client:cubic-3#2', 0, 'iperf3 -c 10.1.2.2 -p 5206 -C cubic -t 20 -i 1 -P 1 -J'],
    ]);
    expect(p.servers.map((s) => s.ready?.argv.at(-1))).toEqual([
      ':5201',
      ':5204',
      ':5205',
      ':5202',
      ':5203',
      ':5206',
    ]);
    // The tcp sampler on each end host watches every one of those ports.
    const sampler = p.samplers.find((x) => x.name === 'tcp:lfn-p0-snd')?.argv.join(' ') ?? '';
    for (const port of [5201, 5202, 5203, 5204, 5205, 5206])
      expect(sampler).toMatch(new RegExp(`\\b${port}\\b`));
  });

  it('takes connect: together only for tcp flows', () => {
    const r = validateSpec({
      name: 't',
      paths: { main: { rtt: '20ms', rate: '10Mbit' } },
      flows: [{ transport: 'psockets', stack: 'reno', streams: 4, bytes: '10MB', connect: 'together' }],
    });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.problems.map((x) => `${x.path}: ${x.message}`)).toContain(
        "flows.0.connect: only applies to transport tcp (iperf3's streams); psockets opens its connections together already",
      );
  });

  it('splits loss by frame size when there is a BER', () => {
    const p = buildPlan(spec({ paths: { main: { rtt: '20ms', rate: '10Mbit', ber: 1e-8 } } }));
    const argv = allArgv(p).map((a) => a.join(' '));
    expect(
      argv.some((a) =>
        /dev p0-rcv parent 1:2 handle 20: netem delay 10ms loss random 0\.0121\d*% limit/.test(a),
      ),
    ).toBe(true);
    expect(argv).toContain(
      'tc -n lfn-rtr filter add dev p0-rcv parent 1: protocol ip prio 1 u32 match u16 0x0000 0xff80 at 2 flowid 1:1',
    );
  });

  it('is deterministic and prints as commands', () => {
    expect(buildPlan(s)).toEqual(plan);
    const text = formatPlan(plan);
    expect(text).toMatch(/^# lfnlab plan for 't' \(seed 1\)/);
    expect(text).toContain("ip netns exec lfn-p0-snd sysctl -q -w 'net.ipv4.tcp_rmem=4096 131072 4194304'");
    expect(text).toContain('ip netns del lfn-rtr    # best effort');
  });
});

describe('stack-specific set-up', () => {
  it('asks for ECN where a DCTCP flow starts, and nowhere else', () => {
    const p = buildPlan(
      spec({
        paths: { main: { rtt: '20ms', rate: '10Mbit' } },
        flows: [{ stack: 'cubic' }, { stack: 'dctcp', direction: 'reverse' }],
      }),
    );
    const ecn = allArgv(p)
      .map((a) => a.join(' '))
      .filter((a) => a.includes('tcp_ecn'));
    expect(ecn).toEqual(['ip netns exec lfn-p0-rcv sysctl -q -w net.ipv4.tcp_ecn=1']);
  });
});

describe('traffic patterns', () => {
  it('expands a staggered flow into one flow every X seconds (seed 001 DST)', () => {
    const p = buildPlan(
      spec({
        duration: '200s',
        paths: { main: { rtt: '100ms', rate: '100Mbit' } },
        flows: [{ name: 'hs', stack: 'highspeed', count: 4, every: '50s' }],
      }),
    );
    expect(p.clients.map((c) => [c.flow, c.at])).toEqual([
      ['hs-1', 0],
      ['hs-2', 50_000],
      ['hs-3', 100_000],
      ['hs-4', 150_000],
    ]);
    expect(p.clients[3]?.argv.join(' ')).toContain('-t 50 ');
    expect(new Set(p.clients.map((c) => c.argv[c.argv.indexOf('-p') + 1])).size).toBe(4);
  });

  it('sends a fixed number of bytes with -n', () => {
    const p = buildPlan(
      spec({ paths: { main: { rtt: '10ms', rate: '10Mbit' } }, flows: [{ stack: 'reno', bytes: '100MB' }] }),
    );
    expect(p.clients[0]?.argv.join(' ')).toContain('-n 100000000 -i 1');
    expect(p.clients[0]?.argv).not.toContain('-t');
  });

  it('builds an AQM bottleneck under an htb shaper, with ECN marking', () => {
    const argv = (aqm: string) =>
      allArgv(buildPlan(spec({ paths: { main: { rtt: '20ms', rate: '50Mbit', buffer: 100, aqm } } }))).map(
        (a) => a.join(' '),
      );
    expect(argv('fq_codel')).toEqual(
      expect.arrayContaining([
        'tc -n lfn-rtr qdisc add dev p0-fwd root handle 1: htb default 1',
        'tc -n lfn-rtr class add dev p0-fwd parent 1: classid 1:1 htb rate 50mbit ceil 50mbit',
        'tc -n lfn-rtr qdisc add dev p0-fwd parent 1:1 handle 10: fq_codel limit 100 ecn',
      ]),
    );
    expect(argv('red').find((a) => a.includes('handle 10: red'))).toBe(
      'tc -n lfn-rtr qdisc add dev p0-fwd parent 1:1 handle 10: red limit 151400 min 30280 max 90840 avpkt 1514 burst 34 probability 0.1 bandwidth 50mbit ecn',
    );
    expect(argv('cake')).toContain(
      'tc -n lfn-rtr qdisc add dev p0-fwd root handle 1: cake bandwidth 50mbit memlimit 151400',
    );
    expect(argv('fifo')).toContain(
      'tc -n lfn-rtr qdisc add dev p0-fwd root handle 1: netem rate 50mbit limit 100',
    );
  });

  it("applies the spec's sysctls after the lab's defaults", () => {
    const p = buildPlan(
      spec({
        paths: { main: { rtt: '20ms', rate: '50Mbit' } },
        sysctls: { sender: { 'net.ipv4.tcp_wmem': '4096 16384 65536', 'net.ipv4.tcp_sack': 0 } },
      }),
    );
    const cmds = allArgv(p).map((a) => a.join(' '));
    const dflt = cmds.indexOf('ip netns exec lfn-p0-snd sysctl -q -w net.ipv4.tcp_wmem=4096 16384 4194304');
    const mine = cmds.indexOf('ip netns exec lfn-p0-snd sysctl -q -w net.ipv4.tcp_wmem=4096 16384 65536');
    expect(dflt).toBeGreaterThanOrEqual(0);
    expect(mine).toBeGreaterThan(dflt);
    expect(cmds).toContain('ip netns exec lfn-p0-snd sysctl -q -w net.ipv4.tcp_sack=0');
  });
});

describe('scheduled changes', () => {
  it('plans a rate change on the bottleneck and an RTT change on every delay stage, in order', () => {
    const p = buildPlan(
      spec({
        paths: {
          main: {
            rtt: '40ms',
            rate: '50Mbit',
            changes: [
              { at: '5s', rate: '20Mbit' },
              { at: '10s', rtt: '100ms' },
            ],
          },
        },
      }),
    );
    expect(p.changes.map((c) => [c.at, c.rateBps, c.rttMs])).toEqual([
      [5000, 20e6, undefined],
      [10_000, undefined, 100],
    ]);
    expect(p.changes[0]?.cmds.map((c) => c.argv.join(' '))).toEqual([
      'tc -n lfn-rtr qdisc change dev p0-fwd root handle 1: netem rate 20mbit limit 166',
    ]);
    expect(p.changes[1]?.cmds.map((c) => c.argv.slice(5, 13).join(' '))).toEqual([
      'dev p0-rcv root handle 1: netem delay 50ms',
      'dev p0-snd root handle 1: netem delay 50ms',
      'dev p0-prb root handle 1: netem delay 50ms',
    ]);
    expect(formatPlan(p)).toContain('# t=5.000 path main');
  });
});

describe('flows with their own RTT', () => {
  it('puts them on their own hosts with their own delay stages, feeding the same bottleneck', () => {
    const p = buildPlan(
      spec({
        paths: { main: { rtt: '10ms', rate: '50Mbit' } },
        flows: [
          { stack: 'cubic' },
          { stack: 'cubic', rtt: '170ms', window: '1bdp' },
          { stack: 'reno', rtt: '70ms' },
        ],
      }),
    );
    const groups = p.topology.paths[0]?.groups ?? [];
    expect(groups.map((g) => [g.index, g.rttMs, g.senderNs, g.routerIfs.toReceiver])).toEqual([
      [1, 70, 'lfn-p0g1-snd', 'p0g1-rcv'],
      [2, 170, 'lfn-p0g2-snd', 'p0g2-rcv'],
    ]);
    expect(p.topology.flows.map((f) => [f.clientNs, f.serverAddr, f.rttMs])).toEqual([
      ['lfn-p0-snd', '10.1.2.2', 10],
      ['lfn-p0g2-snd', '10.1.34.2', 170],
      ['lfn-p0g1-snd', '10.1.33.2', 70],
    ]);
    // The 170 ms flow's 1 BDP window is 50 Mbit/s × 170 ms, not the path's 10 ms BDP.
    expect(p.topology.flows[1]?.windowBytes).toBe(1_062_500);
    const cmds = allArgv(p).map((a) => a.join(' '));
    expect(cmds).toContain(
      'tc -n lfn-rtr filter add dev p0g2-snd parent ffff: protocol all matchall action mirred egress redirect dev p0-fwd',
    );
    expect(cmds).toContain(
      'tc -n lfn-rtr filter add dev p0g2-rcv parent ffff: protocol all matchall action mirred egress redirect dev p0-rev',
    );
    expect(
      cmds.some((c) =>
        /^tc -n lfn-rtr qdisc add dev p0g2-rcv root handle 1: netem delay 85ms limit \d+$/.test(c),
      ),
    ).toBe(true);
    expect(p.idleRtt.map((r) => [r.path, r.group, r.rttMs])).toEqual([
      ['main', 0, 10],
      ['main', 1, 70],
      ['main', 2, 170],
    ]);
    expect(p.samplers.map((s) => s.name)).toEqual(
      expect.arrayContaining(['tcp:lfn-p0g1-snd', 'tcp:lfn-p0g2-rcv']),
    );
  });
});

describe('delayed ACKs off (quickack)', () => {
  const routeCmds = (p: ReturnType<typeof buildPlan>) =>
    allArgv(p)
      .map((a) => a.join(' '))
      .filter((c) => / route add default /.test(c));

  it("adds quickack 1 to the default routes of the path's TCP end hosts and its host groups, not the probe", () => {
    const p = buildPlan(
      spec({
        paths: { main: { rtt: '10ms', rate: '50Mbit', quickack: true } },
        flows: [{ stack: 'cubic' }, { stack: 'reno', rtt: '70ms' }],
      }),
    );
    expect(routeCmds(p)).toEqual([
      'ip -n lfn-p0-snd route add default via 10.1.1.1 quickack 1',
      'ip -n lfn-p0-rcv route add default via 10.1.2.1 quickack 1',
      'ip -n lfn-p0-prb route add default via 10.1.3.1',
      'ip -n lfn-p0g1-snd route add default via 10.1.17.1 quickack 1',
      'ip -n lfn-p0g1-rcv route add default via 10.1.33.1 quickack 1',
    ]);
    expect(p.snapshot.find((s) => s.title === 'routes')?.cmds.map((c) => c.argv.join(' '))).toEqual([
      'ip -n lfn-p0-snd -j route show',
      'ip -n lfn-p0-rcv -j route show',
      'ip -n lfn-p0g1-snd -j route show',
      'ip -n lfn-p0g1-rcv -j route show',
    ]);
  });

  it("keeps Linux's delayed ACKs when the path does not ask, and on the other paths", () => {
    const p = buildPlan(
      spec({
        paths: { a: { rtt: '10ms', rate: '50Mbit', quickack: true }, b: { rtt: '10ms', rate: '50Mbit' } },
        flows: [
          { stack: 'cubic', path: 'a' },
          { stack: 'cubic', path: 'b' },
        ],
      }),
    );
    const routes = routeCmds(p);
    expect(routes.filter((c) => c.endsWith('quickack 1'))).toHaveLength(2);
    const other = routes.filter((c) => c.includes('lfn-p1-'));
    expect(other).toHaveLength(3);
    expect(other.filter((c) => c.includes('quickack'))).toEqual([]);
  });
});

describe('UDP cross traffic', () => {
  it('sends from its own host through the forward bottleneck to a sink at the receiver', () => {
    const p = buildPlan(
      spec({
        paths: {
          main: {
            rtt: '40ms',
            rate: '100Mbit',
            cross: [{ pattern: 'sine', mean: '20%', amplitude: '10Mbit', period: '30s', start: '2s' }],
          },
        },
      }),
    );
    expect(p.topology.paths[0]?.udp).toEqual({ ns: 'lfn-p0-udp', addr: '10.1.4.2', toUdp: 'p0-udp' });
    const cmds = allArgv(p).map((a) => a.join(' '));
    expect(cmds).toContain(
      'tc -n lfn-rtr filter add dev p0-udp parent ffff: protocol all matchall action mirred egress redirect dev p0-fwd',
    );
    expect(p.cross).toHaveLength(1);
    expect(p.cross[0]).toMatchObject({ name: 'cross:main-udp1', at: 2000, durationMs: 18_000 });
    expect(p.cross[0]?.argv.join(' ')).toMatch(
      /^ip netns exec lfn-p0-udp chrt --fifo 20 lfn-udpgen --host 10\.1\.2\.2 --port 6001 .*--pattern sine --mean 20000000 --amplitude 10000000 --period 30/,
    );
    expect(
      p.samplers
        .find((s) => s.kind === 'udpsink')
        ?.argv.slice(0, 10)
        .join(' '),
    ).toBe('ip netns exec lfn-p0-rcv chrt --fifo 20 lfn-udpsink --port 6001');
    expect(formatPlan(p)).toContain('# t=2.000 cross:main-udp1');
  });
  it('asks for what each pattern needs', () => {
    const v = validateSpec({
      name: 't',
      duration: '20s',
      flows: [{ stack: 'cubic' }],
      paths: {
        main: {
          rtt: '10ms',
          rate: '10Mbit',
          cross: [{ pattern: 'sine', mean: '5Mbit', amplitude: '8Mbit' }],
        },
      },
    });
    expect(v.ok).toBe(false);
    if (!v.ok) {
      expect(v.problems).toContainEqual({
        path: 'paths.main.cross.0.period',
        message: 'is required for the sine pattern',
      });
      expect(v.problems).toContainEqual({
        path: 'paths.main.cross.0.amplitude',
        message: expect.stringMatching(/at most the mean \(5Mbit\)/),
      });
    }
  });
});
