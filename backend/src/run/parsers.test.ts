import { describe, expect, it } from 'vitest';
import { parseOffloads, parseSysctl, toolVersions } from './environment.js';
import { flowIntervals, type IperfJson, mergeIperf } from './iperf.js';
import { parsePing, parseSs } from './probes.js';

describe('parsePing', () => {
  it('reads counts and min/avg/max/mdev', () => {
    const text = `PING 10.1.2.2 (10.1.2.2) 56(84) bytes of data.\n\n--- 10.1.2.2 ping statistics ---\n10 packets transmitted, 10 received, 0% packet loss, time 1808ms\nrtt min/avg/max/mdev = 50.012/50.344/51.020/0.301 ms\n`;
    expect(parsePing(text)).toEqual({
      sent: 10,
      received: 10,
      minMs: 50.012,
      avgMs: 50.344,
      maxMs: 51.02,
      mdevMs: 0.301,
    });
  });
  it('returns null when nothing came back', () => {
    expect(parsePing('10 packets transmitted, 0 received, 100% packet loss, time 9000ms\n')).toBeNull();
  });
});

describe('parseSs', () => {
  it('finds the stack name after the option flags', () => {
    const text = [
      '0      0      10.1.1.2:41234      10.1.2.2:5201',
      '\t cubic wscale:7,7 rto:204 rtt:0.05/0.025 mss:32768 cwnd:10 bytes_sent:150',
      '0      0      10.1.1.2:41236      10.1.2.2:5201',
      '\t ts sack htcp wscale:9,9 rto:256 rtt:52.1/1.2 ato:40 mss:1448 cwnd:87 ssthresh:40',
      '0      0      10.1.1.2:41238      10.1.2.2:5202',
      '\t ts sack ecn dctcp wscale:9,9 rtt:20.5/0.1 cwnd:12 dctcp:(ce_state:0,alpha:1024)',
    ].join('\n');
    const s = parseSs(text);
    expect(s.map((x) => x.stack)).toEqual(['cubic', 'htcp', 'dctcp']);
    expect(s[1]).toMatchObject({ localPort: 41236, peerPort: 5201, cwnd: 87, rttMs: 52.1 });
  });
});

describe('flowIntervals', () => {
  const client: IperfJson = {
    intervals: [
      {
        streams: [
          {
            socket: 5,
            start: 0,
            end: 1,
            bytes: 1e6,
            bits_per_second: 8e6,
            retransmits: 2,
            snd_cwnd: 100000,
            rtt: 50000,
          },
          {
            socket: 7,
            start: 0,
            end: 1,
            bytes: 1e6,
            bits_per_second: 8e6,
            retransmits: 0,
            snd_cwnd: 50000,
            rtt: 52000,
          },
        ],
        sum: { start: 0, end: 1, bytes: 2e6, bits_per_second: 16e6, retransmits: 2 },
      },
    ],
  };
  const server: IperfJson = {
    intervals: [{ streams: [], sum: { start: 0, end: 1, bytes: 1.9e6, bits_per_second: 15.2e6 } }],
  };
  it('merges the sender (cwnd, RTT, retransmits) with the receiver (goodput), shifted to run time', () => {
    const [s] = flowIntervals('f', 5, client, server);
    expect(s).toMatchObject({
      flow: 'f',
      t: 6,
      goodputBps: 15.2e6,
      sendBps: 16e6,
      retransmits: 2,
      cwndBytes: 150000,
      rttMs: 51,
    });
    expect(s?.streams).toHaveLength(2);
  });
  it('keeps what one side has when the other is missing', () => {
    expect(flowIntervals('f', 0, null, server)[0]).toMatchObject({
      goodputBps: 15.2e6,
      sendBps: null,
      cwndBytes: null,
    });
  });
});

describe('environment parsers', () => {
  it('reads sysctl -a and ethtool -k', () => {
    expect(parseSysctl('net.ipv4.tcp_rmem = 4096\t131072\t6291456\nnet.ipv4.ip_forward = 1\n')).toEqual({
      'net.ipv4.tcp_rmem': '4096\t131072\t6291456',
      'net.ipv4.ip_forward': '1',
    });
    expect(
      parseOffloads(
        'Features for eth0:\nrx-checksumming: on\ntcp-segmentation-offload: off\n\ttx-tcp-segmentation: off\nrx-vlan-filter: off [fixed]\n',
      ),
    ).toEqual({
      'rx-checksumming': 'on',
      'tcp-segmentation-offload': 'off',
      'tx-tcp-segmentation': 'off',
      'rx-vlan-filter': 'off [fixed]',
    });
    expect(
      toolVersions([
        { argv: ['iperf3', '--version'], stdout: 'iperf 3.12 (cJSON 1.7.15)\nLinux...', stderr: '' },
      ]),
    ).toEqual({
      iperf3: 'iperf 3.12 (cJSON 1.7.15)',
    });
  });
});

describe('missing stacks', () => {
  it('names the module that failed at boot and why', async () => {
    const { missingStacksMessage } = await import('./runExperiment.js');
    const msg = missingStacksMessage(['fast', 'vegas'], {
      kernel: '6.1.0-56-amd64',
      stacksAvailable: ['reno', 'cubic'],
      boot: { modules: [{ name: 'tcp_fast', ok: false, error: 'Key was rejected by service' }] },
    });
    expect(msg).toBe(
      'the lab kernel has no fast (tcp_fast failed to load at boot: Key was rejected by service), vegas; it offers reno, cubic',
    );
  });
});

describe('run metrics on messy samples', () => {
  it('does not throw on duplicated or unordered sample times', async () => {
    const { goodputSeries } = await import('./runMetrics.js');
    const flow = { name: 'f' } as never;
    const g = (t: number, bps: number) => ({ kind: 'goodput' as const, t, flow: 'f', bps, bytesReceived: 0 });
    const s = goodputSeries(flow, [g(0.2, 2), g(0.1, 1), g(0.2, 3), g(0.3, Number.NaN), g(0.4, 4)]);
    expect(s).toEqual({ t: [0.1, 0.2, 0.4], v: [1, 3, 4] });
  });
});

describe('mergeIperf', () => {
  /** One single-stream iperf3's client report: socket 5 every time, as each process numbers its own. */
  const one = (port: number, bytes: number[], retransmits: number): IperfJson => ({
    start: { connected: [{ socket: 5, local_port: port, remote_port: 5201 }], tcp_mss_default: 1448 },
    intervals: bytes.map((b, i) => ({
      streams: [
        { socket: 5, start: i, end: i + 1, bytes: b, bits_per_second: b * 8, retransmits, snd_cwnd: 1e5 },
      ],
      sum: { start: i, end: i + 1, bytes: b, bits_per_second: b * 8, retransmits },
    })),
    end: {
      streams: [{ sender: { bytes: bytes.reduce((a, b) => a + b, 0), seconds: bytes.length, socket: 5 } }],
      sum_sent: { bytes: 3e6, seconds: 2, bits_per_second: 12e6, retransmits },
      sum_received: { bytes: 3e6, seconds: 2.02, bits_per_second: 11.9e6 },
      cpu_utilization_percent: { host_total: 1.5, remote_total: 0.5 },
      sender_tcp_congestion: 'reno',
    },
  });

  it("reads a flow's single-stream iperf3s as one iperf3 -P: streams side by side, sums added", () => {
    const m = mergeIperf([one(40000, [1e6, 2e6], 1), null, one(40002, [3e6, 4e6], 2)]) as IperfJson;
    expect(m.start?.connected).toEqual([
      { socket: 1, local_port: 40000, remote_port: 5201 },
      { socket: 2, local_port: 40002, remote_port: 5201 },
    ]);
    expect(
      m.intervals?.map((iv) => [iv.streams.map((s) => s.socket), iv.sum.bytes, iv.sum.retransmits]),
    ).toEqual([
      [[1, 2], 4e6, 3],
      [[1, 2], 6e6, 3],
    ]);
    expect(m.end?.sum_sent).toEqual({ bytes: 6e6, seconds: 2, bits_per_second: 24e6, retransmits: 3 });
    expect(m.end?.sum_received?.bits_per_second).toBeCloseTo(23.8e6);
    expect(m.end?.cpu_utilization_percent).toEqual({ host_total: 3, remote_total: 1 });
    expect(m.end?.streams?.map((s) => s.sender?.socket)).toEqual([1, 2]);
    // And the merged report reads like any other: two streams per interval, the cwnds summed.
    expect(flowIntervals('many', 0, m, null).map((x) => [x.sendBps, x.cwndBytes])).toEqual([
      [32e6, 2e5],
      [48e6, 2e5],
    ]);
  });

  it("keeps a process's error, and a report that came alone as it is", () => {
    const failed: IperfJson = { error: 'unable to connect to server: Connection timed out' };
    expect(mergeIperf([one(40000, [1e6], 0), failed])?.error).toBe(failed.error);
    const alone = one(40000, [1e6], 0);
    expect(mergeIperf([null, alone])).toBe(alone);
  });
});
