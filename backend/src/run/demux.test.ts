import { buildPlan, TCP_SAMPLER_COLUMNS, validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { SampleDemux } from './demux.js';
import type { Sample } from './samples.js';

const v = validateSpec({
  name: 'd',
  duration: '10s',
  paths: { main: { rtt: '20ms', rate: '10Mbit' } },
  flows: [{ stack: 'htcp', streams: 2 }],
});
if (!v.ok) throw new Error('bad spec');
const plan = buildPlan(v.spec);
const T0 = 1_700_000_000_000; // lab CLOCK_REALTIME at traffic start, ms

/** One TSV line as lfn-tcpsampler writes it. */
function tcpLine(o: {
  tick: number;
  ms: number;
  lport: number;
  rport: number;
  cwnd: number;
  acked: number;
  received: number;
  cookie: string;
  cc?: string;
  /** busy, rwnd-limited and sndbuf-limited µs */
  chrono?: [number, number, number];
  /** the stack's tcpvegas_info: enabled, rttcnt, rtt, minrtt */
  vegas?: [number, number, number, number];
}) {
  const row: Record<string, string | number> = Object.fromEntries(TCP_SAMPLER_COLUMNS.map((c) => [c, 0]));
  Object.assign(row, {
    tick: o.tick,
    ts_ns: `${(T0 + o.ms) * 1e6}`,
    mono_ns: `${o.ms * 1e6}`,
    laddr: '10.1.1.2',
    lport: o.lport,
    raddr: '10.1.2.2',
    rport: o.rport,
    state: 'established',
    cc: o.cc ?? 'htcp',
    cwnd: o.cwnd,
    ssthresh: 2147483647,
    srtt_us: 21000,
    rttvar_us: 500,
    min_rtt_us: 20000,
    mss: 1448,
    pacing_rate: '18446744073709551615',
    delivery_rate: 1_000_000,
    bytes_acked: o.acked,
    bytes_sent: o.acked,
    bytes_received: o.received,
    data_segs_out: 100,
    info_len: 232,
    cookie: o.cookie,
    busy_us: o.chrono?.[0] ?? 0,
    rwnd_limited_us: o.chrono?.[1] ?? 0,
    sndbuf_limited_us: o.chrono?.[2] ?? 0,
    vegas_len: o.vegas ? 16 : 0,
    vegas_enabled: o.vegas?.[0] ?? 0,
    vegas_rttcnt: o.vegas?.[1] ?? 0,
    vegas_rtt: o.vegas?.[2] ?? 0,
    vegas_minrtt: o.vegas?.[3] ?? 0,
  });
  return `${TCP_SAMPLER_COLUMNS.map((c) => row[c]).join('\t')}\n`;
}

describe('SampleDemux', () => {
  it("sums a flow's data streams per tick and leaves out iperf3's control connection", () => {
    const out: Sample[] = [];
    const d = new SampleDemux(plan, T0, (s) => out.push(s));
    const name = 'tcp:lfn-p0-snd';
    // tick 1: control socket (little data) and two data streams; tick 2 arrives split in two chunks.
    const tick1 =
      tcpLine({
        tick: 1,
        ms: 100,
        lport: 40000,
        rport: 5201,
        cwnd: 10,
        acked: 900,
        received: 0,
        cookie: '3',
      }) +
      tcpLine({
        tick: 1,
        ms: 100,
        lport: 40002,
        rport: 5201,
        cwnd: 50,
        acked: 100_000,
        received: 0,
        cookie: '1',
        chrono: [90_000, 20_000, 1_000],
        vegas: [1, 4, 2, 1],
      }) +
      tcpLine({
        tick: 1,
        ms: 100,
        lport: 40004,
        rport: 5201,
        cwnd: 30,
        acked: 70_000,
        received: 0,
        cookie: '2',
        chrono: [80_000, 0, 4_000],
      });
    const tick2 = tcpLine({
      tick: 2,
      ms: 200,
      lport: 40002,
      rport: 5201,
      cwnd: 60,
      acked: 200_000,
      received: 0,
      cookie: '1',
      vegas: [1, 5, 3, 1],
    });
    d.feed(
      name,
      `# lfn-tcpsampler v2 hz=10\n#${TCP_SAMPLER_COLUMNS.join('\t')}\n${tick1}${tick2.slice(0, 20)}`,
    );
    expect(out).toHaveLength(0); // tick 1 is complete only once tick 2 begins
    d.feed(name, tick2.slice(20));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      kind: 'tcp',
      t: 0.1,
      flow: 'htcp-1',
      streams: 2,
      cc: 'htcp',
      cwndPackets: 80,
      bytesAcked: 170_000,
      pacingBps: null,
      // tcp_info's chrono counters, summed over the data streams (not the control connection).
      busyUs: 170_000,
      rwndLimitedUs: 20_000,
      sndbufLimitedUs: 5_000,
    });
    d.feed(
      name,
      '#end\treason=signal\tticks=2\tlate=0\tskipped=0\trecords=4\terrors=0\tmax_work_ns=1\telapsed_ns=2\tcpu_ns=3\n',
    );
    d.end(name);
    expect(out).toHaveLength(2);
    // Two streams have two stack states: none is kept; one stream's is.
    expect(out[0]).not.toHaveProperty('vegasRttcnt');
    expect(out[1]).toMatchObject({
      t: 0.2,
      streams: 1,
      cwndPackets: 60,
      vegasEnabled: 1,
      vegasRttcnt: 5,
      vegasRtt: 3,
      vegasMinrtt: 1,
    });
    expect(d.counters.get(name)).toMatchObject({ records: 4, samples: 2, end: { records: 4, ticks: 2 } });
  });

  it("dates a flow from its data stream's first sighting, not from when it had moved enough to tell", () => {
    const d = new SampleDemux(plan, T0, () => undefined);
    const name = 'tcp:lfn-p0-snd';
    const tx = (tick: number, cookie: string, lport: number, acked: number) =>
      tcpLine({ tick, ms: tick * 100, lport, rport: 5201, cwnd: 10, acked, received: 0, cookie });
    // The control connection is up from tick 1; the data stream (cookie 5) from tick 31, after a
    // lost SYN, and it crosses the data threshold only at tick 34.
    const ticks = [1, 2, 31, 32, 33, 34, 35].map(
      (k) => tx(k, '4', 40000, 900) + (k >= 31 ? tx(k, '5', 40002, k < 34 ? 20_000 : 90_000) : ''),
    );
    d.feed(name, ticks.slice(0, 5).join(''));
    expect(d.dataStarts.size).toBe(0); // nothing has crossed the threshold up to tick 33
    d.feed(name, ticks.slice(5).join(''));
    d.end(name);
    expect(d.dataStarts).toEqual(new Map([['htcp-1', 3.1]]));
  });

  it('dates a flow of several streams from its last stream, since iperf3 -P sends on none before then', () => {
    const d = new SampleDemux(plan, T0, () => undefined);
    const name = 'tcp:lfn-p0-snd';
    const tx = (tick: number, cookie: string, lport: number, acked: number) =>
      tcpLine({ tick, ms: tick * 100, lport, rport: 5201, cwnd: 10, acked, received: 0, cookie });
    // htcp-1's first stream is up at tick 3, its second (after queued SYNs) at tick 40; both
    // carry data from tick 41.
    const ticks = [3, 4, 40, 41, 42, 43].map(
      (k) =>
        tx(k, '7', 40002, k < 41 ? 0 : 100_000 * (k - 40)) +
        (k >= 40 ? tx(k, '8', 40004, k < 41 ? 0 : 100_000 * (k - 40)) : ''),
    );
    d.feed(name, ticks.join(''));
    d.end(name);
    expect(d.dataStarts).toEqual(new Map([['htcp-1', 4.0]]));
  });

  it('counts the streams of a flow that connects them together, one port each, as that flow', () => {
    const t = validateSpec({
      name: 'd',
      duration: '10s',
      paths: { main: { rtt: '20ms', rate: '10Mbit' } },
      flows: [{ stack: 'htcp', streams: 3, connect: 'together' }, { stack: 'reno' }],
    });
    if (!t.ok) throw new Error('bad spec');
    const out: Sample[] = [];
    const d = new SampleDemux(buildPlan(t.spec), T0, (s) => out.push(s));
    const name = 'tcp:lfn-p0-snd';
    // htcp-1's streams go to 5201, 5203 and 5204; reno-2's to 5202.
    const line = (tick: number, lport: number, rport: number, cookie: string, cc = 'htcp') =>
      tcpLine({ tick, ms: tick * 100, lport, rport, cwnd: 10, acked: 100_000, received: 0, cookie, cc });
    d.feed(
      name,
      line(1, 40000, 5201, '1') +
        line(1, 40002, 5203, '2') +
        line(1, 40004, 5204, '3') +
        line(1, 40006, 5202, '4', 'reno') +
        line(2, 40000, 5201, '1'),
    );
    expect(out.filter((x) => x.kind === 'tcp').map((x) => [x.flow, x.kind === 'tcp' && x.streams])).toEqual([
      ['htcp-1', 3],
      ['reno-2', 1],
    ]);
  });

  it("turns the receiver's byte counter into goodput", () => {
    const out: Sample[] = [];
    const d = new SampleDemux(plan, T0, (s) => out.push(s));
    const name = 'tcp:lfn-p0-rcv';
    const rx = (tick: number, ms: number, received: number) =>
      tcpLine({ tick, ms, lport: 5201, rport: 40002, cwnd: 10, acked: 0, received, cookie: '9' });
    d.feed(name, rx(1, 0, 100_000) + rx(2, 100, 225_000) + rx(3, 200, 350_000));
    d.end(name);
    const g = out.filter((s) => s.kind === 'goodput');
    expect(g).toEqual([
      { kind: 'goodput', t: 0.1, flow: 'htcp-1', bps: 10e6, bytesReceived: 225_000 },
      { kind: 'goodput', t: 0.2, flow: 'htcp-1', bps: 10e6, bytesReceived: 350_000 },
    ]);
  });

  it('reads ping replies as RTT samples on the lab clock', () => {
    const out: Sample[] = [];
    const d = new SampleDemux(plan, T0, (s) => out.push(s));
    d.feed('ping:main', `[${(T0 + 1500) / 1000}] 64 bytes from 10.1.2.2: icmp_seq=7 ttl=63 time=23.4 ms\n`);
    d.feed(
      'ping:main',
      '\n--- 10.1.2.2 ping statistics ---\n20 packets transmitted, 19 received, 5% packet loss, time 1900ms\n',
    );
    d.end('ping:main');
    expect(out).toEqual([{ kind: 'rtt', t: 1.5, path: 'main', rttMs: 23.4, seq: 7 }]);
    expect(d.counters.get('ping:main')?.end).toEqual({ sent: 20, received: 19 });
  });
});
