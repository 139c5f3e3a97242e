// The plan (and its dry run) for transports as flows, reverse cross traffic and txqueuelen.
import { describe, expect, it } from 'vitest';
import { validateSpec } from '../spec/index.js';
import { buildPlan, formatPlan } from './index.js';

function plan(input: Record<string, unknown>) {
  const v = validateSpec({
    name: 't',
    duration: '20s',
    paths: { main: { rtt: '20ms', rate: '20Mbit' } },
    ...input,
  });
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return buildPlan(v.spec);
}
const line = (argv: string[]) => argv.join(' ');

describe('transports as flows', () => {
  const p = plan({
    flows: [
      { transport: 'rbudp', bytes: '5MB' },
      { transport: 'udt', bytes: '5MB', start: '5s', rate: '15Mbit' },
      {
        transport: 'psockets',
        stack: 'htcp',
        streams: 4,
        bytes: '5MB',
        window: '64KiB',
        direction: 'reverse',
      },
      { stack: 'cubic' },
    ],
  });

  it('runs each receiver as the server and each sender as the client, in the flow order', () => {
    expect(p.servers.map((s) => s.name)).toEqual([
      'server:rbudp-1',
      'server:udt-2',
      'server:psockets-3',
      'server:cubic-4',
    ]);
    expect(p.servers.map((s) => line(s.argv))).toEqual([
      'ip netns exec lfn-p0-rcv lfn-rbudp --recv --port 5201 --report 1 --timeout 20',
      'ip netns exec lfn-p0-rcv lfn-udt --recv --port 5202 --report 1 --timeout 25',
      'ip netns exec lfn-p0-snd lfn-psockets --recv --port 5203 --report 1 --timeout 20 --sockbuf 65536',
      'ip netns exec lfn-p0-rcv iperf3 -s -1 -4 -p 5204 -i 1 -J',
    ]);
    expect(p.clients.map((c) => [c.at, line(c.argv)])).toEqual([
      [
        0,
        // No rate in the spec: the bottleneck's.
        'ip netns exec lfn-p0-snd lfn-rbudp --send --connect 10.1.2.2 --port 5201 --report 1 --timeout 20 --bytes 5000000 --seed 1001 --rate 20000000',
      ],
      [
        5000,
        'ip netns exec lfn-p0-snd lfn-udt --send --connect 10.1.2.2 --port 5202 --report 1 --timeout 20 --bytes 5000000 --seed 1002 --max-rate 15000000',
      ],
      [
        0,
        // Reverse: from the receiver side to the sender side, over the reverse bottleneck.
        'ip netns exec lfn-p0-rcv lfn-psockets --send --connect 10.1.1.2 --port 5203 --report 1 --timeout 20 --bytes 5000000 --seed 1003 --streams 4 --sockbuf 65536 --cc htcp',
      ],
      [0, expect.stringMatching(/iperf3 -c 10.1.2.2 -p 5204 -C cubic -t 20/)],
    ]);
  });

  it('waits for a TCP listener (rbudp, psockets) or a bound UDP socket (udt)', () => {
    expect(p.servers.map((s) => s.ready?.argv.slice(4, 6))).toEqual([
      ['ss', '-Hltn'],
      ['ss', '-Hlun'],
      ['ss', '-Hltn'],
      ['ss', '-Hltn'],
    ]);
  });

  it('samples TCP only where TCP carries the data', () => {
    const tcp = p.samplers.filter((s) => s.kind === 'tcp').map((s) => [s.ns, line(s.argv)]);
    expect(tcp).toHaveLength(2);
    for (const [, argv] of tcp) {
      expect(argv).toMatch(/--port 5203/);
      expect(argv).not.toMatch(/5201|5202/);
    }
  });

  it('prints the commands in the dry run', () => {
    const text = formatPlan(p);
    expect(text).toContain('# server:udt-2\nip netns exec lfn-p0-rcv lfn-udt --recv');
    expect(text).toContain('# t=5.000 client:udt-2\nip netns exec lfn-p0-snd lfn-udt --send');
    expect(text).toContain('lfn-psockets --send');
  });
});

describe('reverse cross traffic', () => {
  const p = plan({
    paths: {
      main: { rtt: '20ms', rate: '20Mbit', cross: [{ pattern: 'cbr', rate: '2Mbit', direction: 'reverse' }] },
    },
    flows: [{ stack: 'reno' }],
  });
  const argv = p.setup.flatMap((s) => s.cmds.map((c) => line(c.argv)));

  it('sends from a receiver-side host through the reverse bottleneck to a sink at the sender side', () => {
    expect(p.topology.paths[0]?.udp).toBeNull();
    expect(p.topology.paths[0]?.udpReverse).toEqual({ ns: 'lfn-p0-udr', addr: '10.1.5.2', toUdp: 'p0-udr' });
    expect(argv).toContain('ip -n lfn-rtr link add p0-udr type veth peer name eth0 netns lfn-p0-udr');
    expect(argv).toContain(
      'tc -n lfn-rtr filter add dev p0-udr parent ffff: protocol all matchall action mirred egress redirect dev p0-rev',
    );
    expect(p.cross.map((c) => line(c.argv))).toEqual([
      expect.stringMatching(
        /^ip netns exec lfn-p0-udr chrt --fifo 20 lfn-udpgen --host 10\.1\.1\.2 --port 6001 --pattern cbr --rate 2000000 /,
      ),
    ]);
    const sink = p.samplers.find((s) => s.kind === 'udpsink');
    expect(sink?.ns).toBe('lfn-p0-snd');
    expect(line(sink?.argv ?? [])).toMatch(/^ip netns exec lfn-p0-snd .*lfn-udpsink --port 6001/);
  });

  it('lists every namespace in the order the snapshot reads them', () => {
    const links = p.snapshot.find((s) => s.title === 'links')?.cmds.map((c) => c.argv[2]);
    expect(p.topology.namespaces).toEqual(links);
    expect(p.topology.namespaces).toContain('lfn-p0-udr');
  });
});

describe('txqueuelen', () => {
  it('sets each role of the path, and only what the spec asks', () => {
    const p = plan({
      paths: { main: { rtt: '20ms', rate: '20Mbit', txqueuelen: { sender: 10000, router: 2000 } } },
      flows: [{ stack: 'reno' }, { stack: 'reno', rtt: '80ms' }],
    });
    const cmds = p.setup.flatMap((s) => s.cmds).filter((c) => c.argv.includes('txqueuelen'));
    expect(cmds.map((c) => line(c.argv))).toEqual([
      'ip -n lfn-p0-snd link set dev eth0 txqueuelen 10000',
      'ip -n lfn-p0g1-snd link set dev eth0 txqueuelen 10000',
      'ip -n lfn-rtr link set dev p0-snd txqueuelen 2000',
      'ip -n lfn-rtr link set dev p0-rcv txqueuelen 2000',
      'ip -n lfn-rtr link set dev p0g1-snd txqueuelen 2000',
      'ip -n lfn-rtr link set dev p0g1-rcv txqueuelen 2000',
    ]);
    expect(formatPlan(p)).toContain(
      "# path main: the spec's txqueuelen (sender 10000, receiver -, router 2000)\nip -n lfn-p0-snd link set dev eth0 txqueuelen 10000",
    );
  });

  it('changes nothing when not given', () => {
    const p = plan({ flows: [{ stack: 'reno' }] });
    expect(p.setup.flatMap((s) => s.cmds).some((c) => c.argv.includes('txqueuelen'))).toBe(false);
  });
});
