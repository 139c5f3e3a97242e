import { describe, expect, it } from 'vitest';
import { validateSpec } from '../spec/index.js';
import { buildPlan, formatPlan, wireTapNames } from './index.js';

const base = {
  name: 'w',
  duration: '20s',
  wire: {},
  paths: { main: { rtt: '40ms', rate: '10mbit', buffer: '1bdp' } },
  flows: [{ stack: 'cubic' }, { stack: 'bbr', start: '5s' }],
};

function spec(extra: Record<string, unknown> = {}) {
  const v = validateSpec({ ...base, ...extra });
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return v.spec;
}

function problems(extra: Record<string, unknown>) {
  const v = validateSpec({ ...base, ...extra });
  return v.ok ? [] : v.problems.map((p) => `${p.path}: ${p.message}`);
}

describe('a wire in the spec', () => {
  it('defaults to namespace hosts on eth0 and eth1', () => {
    expect(spec().wire).toEqual({ hosts: 'netns', ports: { a: 'eth0', b: 'eth1' } });
  });

  it('refuses what a wire cannot carry, naming each field', () => {
    expect(problems({ clock: 'dilated' })).toEqual([
      expect.stringMatching(/^clock: must be realtime or auto/),
    ]);
    expect(
      problems({
        paths: { a: { rtt: '40ms', rate: '10mbit' }, b: { rtt: '40ms', rate: '10mbit' } },
        flows: [{ stack: 'cubic', path: 'a' }],
      }),
    ).toEqual([expect.stringMatching(/^paths: must define exactly 1 path with a wire/)]);
    expect(problems({ flows: [{ stack: 'cubic', rtt: '80ms' }] })).toEqual([
      expect.stringMatching(/^flows\.0\.rtt: must be left out with a wire/),
    ]);
    expect(problems({ flows: [{ transport: 'udt', bytes: '1MB' }] })).toContainEqual(
      expect.stringMatching(/^flows\.0\.transport: must be tcp with a wire/),
    );
    expect(problems({ stackParams: { vegas: { alpha: 2 } } })).toEqual([
      expect.stringMatching(/^stackParams: must be empty with a wire/),
    ]);
    expect(problems({ wire: { ports: { a: 'eth1', b: 'eth1' } } })).toEqual([
      'wire.ports.b: a and b must be two different ports',
    ]);
    expect(problems({ wire: { hosts: 'lab' } })).toEqual([
      expect.stringMatching(/^wire\.hosts: must be netns/),
    ]);
  });
});

describe('buildPlan with a wire', () => {
  const taps = { a: 'lfntaaaa1a', b: 'lfntaaaa1b' };
  const plan = buildPlan(spec(), { wireTaps: taps });
  const setup = plan.setup.flatMap((s) => s.cmds);
  const line = (c: { argv: string[] }) => c.argv.join(' ');

  it("bridges the lab's two ports and shapes them with the dumbbell's stages", () => {
    const lab = setup.filter((c) => c.on !== 'hosts').map(line);
    expect(lab).toContain('ip link set dev eth0 netns lfn-rtr');
    expect(lab).toContain('ip -n lfn-rtr link set dev eth1 mtu 1500 master wire0 up');
    // Forward: into the bottleneck from a's ingress, delayed on b's egress; reverse the other way.
    expect(lab).toContain(
      'tc -n lfn-rtr filter add dev eth0 parent ffff: protocol all matchall action mirred egress redirect dev p0-fwd',
    );
    expect(lab).toContain('tc -n lfn-rtr qdisc add dev p0-fwd root handle 1: netem rate 10mbit limit 34');
    expect(lab).toContain('tc -n lfn-rtr qdisc add dev eth1 root handle 1: netem delay 20ms limit 1050');
    expect(lab).toContain(
      'tc -n lfn-rtr filter add dev eth1 parent ffff: protocol all matchall action mirred egress redirect dev p0-rev',
    );
    expect(lab).toContain('tc -n lfn-rtr qdisc add dev eth0 root handle 1: netem delay 20ms limit 1050');
    expect(plan.topology.wire).toMatchObject({ ports: { a: 'eth0', b: 'eth1' }, taps });
  });

  it("puts the external hosts on the lab host, each side's on a bridge with that side's tap", () => {
    const hosts = setup.filter((c) => c.on === 'hosts').map(line);
    expect(hosts).toContain('ip link set dev lfntaaaa1a mtu 1500 master lfnw-bra up');
    expect(hosts).toContain('ip link set dev lfntaaaa1b mtu 1500 master lfnw-brb up');
    expect(hosts).toContain('ip link set dev lfnw-snd0 mtu 1500 master lfnw-bra up');
    expect(hosts).toContain('ip link set dev lfnw-rcv0 mtu 1500 master lfnw-brb up');
    expect(hosts).toContain('ip -n lfnw-snd addr add 10.250.0.1/24 dev eth0');
    // Nothing of the hosts' runs in the lab, nothing of the lab's on the hosts.
    expect(setup.filter((c) => c.on === 'hosts').every((c) => !c.argv.includes('lfn-rtr'))).toBe(true);
    expect(setup.filter((c) => c.on !== 'hosts').some((c) => c.argv.join(' ').includes('lfnw-'))).toBe(false);
  });

  it("runs the flows, their probes and their sockets' samplers on the hosts; the wire's samplers in the lab", () => {
    expect([...plan.servers, ...plan.clients].every((p) => p.on === 'hosts')).toBe(true);
    expect(plan.servers.every((p) => p.ready?.on === 'hosts')).toBe(true);
    expect(plan.idleRtt.every((r) => r.probe.on === 'hosts' && r.warmup.on === 'hosts')).toBe(true);
    expect(Object.values(plan.socketProbes).every((c) => c.on === 'hosts')).toBe(true);
    const where = Object.fromEntries(plan.samplers.map((s) => [s.name, s.on ?? 'lab']));
    expect(where).toEqual({
      'tcp:lfnw-snd': 'hosts',
      'tcp:lfnw-rcv': 'hosts',
      'ping:main': 'hosts',
      'qdisc:router': 'lab',
      'timing:router': 'lab',
      'flowmeter:wire': 'lab',
    });
    expect(plan.samplers.find((s) => s.kind === 'flowmeter')?.argv.slice(4)).toEqual([
      'chrt',
      '--fifo',
      '20',
      'lfn-flowmeter',
      '--a',
      'eth0',
      '--b',
      'eth1',
      '--hz',
      '10',
    ]);
  });

  it('tears down the hosts and gives the ports back to the lab; the dry run says where each step runs', () => {
    expect(plan.teardown.cmds.map(line)).toEqual([
      'ip netns del lfnw-snd',
      'ip netns del lfnw-prb',
      'ip netns del lfnw-rcv',
      'ip link del lfnw-bra',
      'ip link del lfnw-brb',
      'ip netns del lfn-rtr',
    ]);
    const text = formatPlan(plan);
    expect(text).toContain(
      'ip netns exec lfnw-snd iperf3 -c 10.250.0.2 -p 5201 -C cubic -t 20 -i 1 -P 1 -J &    # on the lab host',
    );
    expect(text).toContain('tc -n lfn-rtr qdisc add dev eth1 root handle 1: netem delay 20ms limit 1050\n');
  });

  it('names taps per lab within the 15 characters of an interface name', () => {
    const a = wireTapNames('default');
    const b = wireTapNames('a-very-long-lab-name-indeed');
    expect(a.a).not.toBe(b.a);
    for (const n of [a.a, a.b, b.a, b.b]) expect(n.length).toBeLessThanOrEqual(15);
    expect(wireTapNames('default')).toEqual(a);
  });
});
