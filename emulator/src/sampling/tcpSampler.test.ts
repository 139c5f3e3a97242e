import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { make, runLines, runs } from '../../test/support/testFixtures.js';
import {
  parseSamplerLine,
  type SamplerEnd,
  SamplerParseError,
  TCP_SAMPLER_COLUMNS,
  type TcpSample,
  tcpSamplerArgv,
} from './tcpSampler.js';

const SAMPLER_DIR = fileURLToPath(new URL('../../sampler/', import.meta.url));
const SAMPLER_BIN = `${SAMPLER_DIR}lfn-tcpsampler`;

// A realistic TSV record: BBR flow in slow start, unpaced counters left at their kernel sentinels.
const tsvValues: Record<string, string> = {
  tick: '7',
  ts_ns: '1795277572709673682',
  mono_ns: '386841405972',
  laddr: '10.0.0.1',
  lport: '40112',
  raddr: '10.0.0.2',
  rport: '5201',
  state: 'established',
  cc: 'bbr',
  cwnd: '13',
  ssthresh: '2147483647',
  srtt_us: '28',
  rttvar_us: '12',
  min_rtt_us: '6',
  mss: '1448',
  pacing_rate: '18446744073709551615',
  delivery_rate: '5461333333',
  app_limited: '1',
  bytes_acked: '186',
  bytes_sent: '185',
  bytes_retrans: '0',
  bytes_received: '4',
  total_retrans: '2',
  retransmits: '0',
  lost: '1',
  unacked: '3',
  sacked: '0',
  delivered: '4',
  delivered_ce: '0',
  data_segs_out: '3',
  notsent_bytes: '0',
  busy_us: '120',
  rwnd_limited_us: '0',
  sndbuf_limited_us: '5',
  snd_wnd: '65536',
  rto_us: '204000',
  ca_state: '0',
  info_len: '232',
  cookie: '4',
  vegas_len: '0',
  vegas_enabled: '0',
  vegas_rttcnt: '0',
  vegas_rtt: '0',
  vegas_minrtt: '0',
};
const tsvLine = (over: Record<string, string> = {}) =>
  TCP_SAMPLER_COLUMNS.map((c) => over[c] ?? tsvValues[c]).join('\t');

describe('parseSamplerLine', () => {
  it('parses a TSV sample, keeping kernel units and mapping sentinels to null', () => {
    const s = parseSamplerLine(`${tsvLine()}\n`);
    expect(s).toMatchObject({
      type: 'sample',
      tick: 7,
      localAddr: '10.0.0.1',
      localPort: 40112,
      remoteAddr: '10.0.0.2',
      remotePort: 5201,
      state: 'established',
      cc: 'bbr',
      cwndPackets: 13,
      ssthreshPackets: null,
      srttUs: 28,
      minRttUs: 6,
      mssBytes: 1448,
      pacingRateBytesPerS: null,
      deliveryRateBytesPerS: 5461333333,
      appLimited: true,
      totalRetrans: 2,
      lostPackets: 1,
      unackedPackets: 3,
      sndbufLimitedUs: 5,
      rtoUs: 204000,
      infoLen: 232,
      cookie: '4',
    });
    if (s?.type !== 'sample') throw new Error('expected a sample');
    // ns → ms keeps sub-microsecond digits even though the ns value exceeds 2^53.
    expect(s.timeMs).toBeCloseTo(1795277572709.6736, 3);
    expect(s.monoMs).toBeCloseTo(386841.405972, 6);
  });

  it('keeps real values where the sentinels are not set and maps a missing cc to null', () => {
    const s = parseSamplerLine(
      tsvLine({
        ssthresh: '40',
        pacing_rate: '12500000',
        min_rtt_us: '4294967295',
        cc: '-',
        state: 'time-wait',
      }),
    );
    expect(s).toMatchObject({
      ssthreshPackets: 40,
      pacingRateBytesPerS: 12500000,
      minRttUs: null,
      cc: null,
      state: 'time-wait',
    });
  });

  it("reads the stack's tcpvegas_info when it gave one, and v1 rows (without those columns) as giving none", () => {
    const lp = parseSamplerLine(
      tsvLine({
        cc: 'hstcplp',
        vegas_len: '16',
        vegas_enabled: '1',
        vegas_rttcnt: '23',
        vegas_rtt: '2',
        vegas_minrtt: '1',
      }),
    );
    expect(lp).toMatchObject({ cc: 'hstcplp', vegas: { enabled: 1, rttcnt: 23, rtt: 2, minrtt: 1 } });
    expect(parseSamplerLine(tsvLine())).toMatchObject({ cc: 'bbr', vegas: null });
    const v1 = tsvLine().split('\t').slice(0, -5).join('\t');
    expect(parseSamplerLine(v1)).toMatchObject({ cwndPackets: 13, cookie: '4', vegas: null });
    expect(parseSamplerLine('# lfn-tcpsampler v1 hz=50 duration_s=1 states=0x2 ports=5201')).toBeNull();
    expect(() => parseSamplerLine(tsvLine().split('\t').slice(0, -1).join('\t'))).toThrow(/fields/);
  });

  it('returns null for header, comment and blank lines', () => {
    expect(parseSamplerLine('# lfn-tcpsampler v2 hz=50 duration_s=1 states=0x2 ports=5201')).toBeNull();
    expect(parseSamplerLine(`#${TCP_SAMPLER_COLUMNS.join('\t')}`)).toBeNull();
    expect(parseSamplerLine('')).toBeNull();
    expect(parseSamplerLine('\r\n')).toBeNull();
  });

  it('rejects a header of a format version it does not know', () => {
    expect(() => parseSamplerLine('# lfn-tcpsampler v3 hz=50')).toThrow(/version/);
    expect(() => parseSamplerLine('{"type":"start","version":3}')).toThrow(/version/);
  });

  it('parses the TSV end record', () => {
    const end = parseSamplerLine(
      '#end\treason=signal\tticks=50\tlate=1\tskipped=2\trecords=800\terrors=0\tmax_work_ns=1500000\telapsed_ns=1000123456\tcpu_ns=2500000',
    );
    expect(end).toEqual<SamplerEnd>({
      type: 'end',
      reason: 'signal',
      ticks: 50,
      late: 1,
      skipped: 2,
      records: 800,
      errors: 0,
      maxWorkMs: 1.5,
      elapsedMs: 1000.123456,
      cpuMs: 2.5,
    });
  });

  it('parses JSONL start, sample and end records the same way as TSV', () => {
    expect(
      parseSamplerLine(
        '{"type":"start","version":1,"hz":50,"duration_s":1,"states":2,"ports":[[5201,5201]]}',
      ),
    ).toBeNull();
    const obj: Record<string, string | number | null> = { type: 'sample' };
    for (const c of TCP_SAMPLER_COLUMNS) {
      const v = tsvValues[c] ?? '';
      obj[c] = /^\d+$/.test(v) ? Number(v) : v;
    }
    obj.cc = null;
    const fromJson = parseSamplerLine(JSON.stringify(obj));
    const fromTsv = parseSamplerLine(tsvLine({ cc: '-' }));
    if (fromJson?.type !== 'sample' || fromTsv?.type !== 'sample') throw new Error('expected samples');
    // JSON hands ns over as doubles, so the ms values may differ in the last bits.
    expect(fromJson).toEqual({
      ...fromTsv,
      timeMs: expect.closeTo(fromTsv.timeMs, 3),
      monoMs: expect.closeTo(fromTsv.monoMs, 6),
    });
    expect(
      parseSamplerLine(
        '{"type":"end","reason":"duration","ticks":3,"late":0,"skipped":0,"records":6,"errors":0,"max_work_ns":10,"elapsed_ns":20,"cpu_ns":5}',
      ),
    ).toMatchObject({ type: 'end', reason: 'duration', ticks: 3, records: 6 });
  });

  it('throws on malformed lines instead of dropping them', () => {
    expect(() => parseSamplerLine('1\t2\t3')).toThrow(SamplerParseError);
    expect(() => parseSamplerLine(tsvLine({ cwnd: 'x' }))).toThrow(/cwnd/);
    expect(() => parseSamplerLine(tsvLine({ srtt_us: '-1' }))).toThrow(/srtt_us/);
    expect(() => parseSamplerLine(`${tsvLine()}\textra`)).toThrow(/fields/);
    expect(() => parseSamplerLine('#end\treason=duration\tticks=1')).toThrow(/late/);
    expect(() => parseSamplerLine('#end\treason=crashed\tticks=1')).toThrow(/reason/);
    expect(() => parseSamplerLine('{"type":"sample","tick":1}')).toThrow(SamplerParseError);
    expect(() => parseSamplerLine('{"type":')).toThrow(/JSON/);
    expect(() => parseSamplerLine('{"type":"bogus"}')).toThrow(/type/);
  });
});

describe('tcpSamplerArgv', () => {
  it('builds an argv array with argv[0] = program', () => {
    expect(tcpSamplerArgv({ hz: 50, durationS: 1, ports: [5201, 5202] })).toEqual([
      'lfn-tcpsampler',
      '--hz',
      '50',
      '--duration',
      '1',
      '--port',
      '5201',
      '--port',
      '5202',
      '--format',
      'tsv',
    ]);
    expect(
      tcpSamplerArgv({
        hz: 100,
        durationS: 0.5,
        portRanges: [{ lo: 5201, hi: 5264 }],
        states: ['established', 'fin-wait-1'],
        family: 'inet',
        format: 'jsonl',
        binary: '/opt/lfn/bin/lfn-tcpsampler',
      }),
    ).toEqual([
      '/opt/lfn/bin/lfn-tcpsampler',
      '--hz',
      '100',
      '--duration',
      '0.5',
      '--ports',
      '5201-5264',
      '--state',
      'established,fin-wait-1',
      '--family',
      'inet',
      '--format',
      'jsonl',
    ]);
    expect(tcpSamplerArgv({ hz: 1, durationS: 0, ports: [1], states: 'all' })).toContain('all');
  });

  it('rejects values the sampler would refuse', () => {
    expect(() => tcpSamplerArgv({ hz: 0, durationS: 1, ports: [1] })).toThrow(/hz/);
    expect(() => tcpSamplerArgv({ hz: 101, durationS: 1, ports: [1] })).toThrow(/hz/);
    expect(() => tcpSamplerArgv({ hz: 10.5, durationS: 1, ports: [1] })).toThrow(/hz/);
    expect(() => tcpSamplerArgv({ hz: 10, durationS: -1, ports: [1] })).toThrow(/durationS/);
    expect(() => tcpSamplerArgv({ hz: 10, durationS: Number.NaN, ports: [1] })).toThrow(/durationS/);
    expect(() => tcpSamplerArgv({ hz: 10, durationS: 1, ports: [0] })).toThrow(/port/);
    expect(() => tcpSamplerArgv({ hz: 10, durationS: 1, ports: [65536] })).toThrow(/port/);
    expect(() => tcpSamplerArgv({ hz: 10, durationS: 1, portRanges: [{ lo: 9, hi: 3 }] })).toThrow(
      /reversed/,
    );
    expect(() => tcpSamplerArgv({ hz: 10, durationS: 1 })).toThrow(/at least one port/);
    expect(() => tcpSamplerArgv({ hz: 10, durationS: 1, ports: [1], states: [] })).toThrow(/states/);
  });
});

// ---- integration: build the real binary and sample real loopback connections ----

const gccAvailable = runs('gcc');
const NO_GCC = 'gcc not found on PATH: cannot build emulator/sampler (lfn-tcpsampler)';

function parseAll(lines: string[]): { samples: TcpSample[]; ends: SamplerEnd[] } {
  const samples: TcpSample[] = [];
  const ends: SamplerEnd[] = [];
  for (const l of lines) {
    const r = parseSamplerLine(l);
    if (r?.type === 'sample') samples.push(r);
    else if (r?.type === 'end') ends.push(r);
  }
  return { samples, ends };
}

describe('lfn-tcpsampler on loopback', () => {
  const CONNECTIONS = 8;
  const PAYLOAD = 64 * 1024;
  let server: net.Server | undefined;
  const clients: net.Socket[] = [];
  let port = 0;

  beforeAll(async () => {
    if (!gccAvailable) return;
    await make(SAMPLER_DIR);

    // Echo server, so both ends of every connection carry data and get RTT samples.
    const srv = net.createServer((sock) => sock.pipe(sock));
    server = srv;
    srv.listen(0, '127.0.0.1');
    await once(srv, 'listening');
    port = (srv.address() as AddressInfo).port;

    let accepted = 0;
    const allAccepted = new Promise<void>((resolve) => {
      srv.on('connection', () => {
        accepted += 1;
        if (accepted === CONNECTIONS) resolve();
      });
    });
    for (let i = 0; i < CONNECTIONS; i++) {
      const c = net.connect(port, '127.0.0.1');
      clients.push(c);
    }
    await Promise.all(clients.map((c) => once(c, 'connect')));
    await allAccepted;

    await Promise.all(
      clients.map(
        (c) =>
          new Promise<void>((resolve, reject) => {
            let got = 0;
            c.on('data', (d: Buffer) => {
              got += d.length;
              if (got >= PAYLOAD) resolve();
            });
            c.once('error', reject);
            c.write(Buffer.alloc(PAYLOAD, 0x5a));
          }),
      ),
    );
  }, 150_000);

  afterAll(async () => {
    for (const c of clients) c.destroy();
    if (server) {
      server.close();
      await once(server, 'close');
    }
  });

  it('prints the column header the parser expects', async (ctx) => {
    ctx.skip(!gccAvailable, NO_GCC);
    const run = await runLines(
      tcpSamplerArgv({ hz: 1, durationS: 0.001, ports: [port], binary: SAMPLER_BIN }),
    );
    expect(run.code).toBe(0);
    expect(run.lines[0]).toMatch(/^# lfn-tcpsampler v2 /);
    expect(run.lines[1]).toBe(`#${TCP_SAMPLER_COLUMNS.join('\t')}`);
  });

  it('samples 8 connections at 50 Hz for 1 s and accounts for every record', async (ctx) => {
    ctx.skip(!gccAvailable, NO_GCC);
    const argv = tcpSamplerArgv({ hz: 50, durationS: 1, ports: [port], binary: SAMPLER_BIN });
    const run = await runLines(argv);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);

    const { samples, ends } = parseAll(run.lines);
    expect(ends).toHaveLength(1);
    const end = ends[0] as SamplerEnd;
    expect(run.lines.at(-1)).toMatch(/^#end\t/);
    expect(end.reason).toBe('duration');
    expect(end.records).toBe(samples.length);
    expect(end.errors).toBe(0);
    // Every one of the 50 slots is either sampled or counted as skipped.
    expect(end.ticks + end.skipped).toBe(50);
    expect(new Set(samples.map((s) => s.tick)).size).toBe(end.ticks);

    // Both ends of each connection live in this namespace and match the port: 16 sockets.
    const perSocket = new Map<string, TcpSample[]>();
    for (const s of samples) perSocket.set(s.cookie, [...(perSocket.get(s.cookie) ?? []), s]);
    expect(perSocket.size).toBe(2 * CONNECTIONS);
    // Each tick that ran saw every socket. How many ticks a loaded host lets run on time is the
    // verdict's business (its sampler check), not this test's: it skipped 6 of 50 beside two labs.
    for (const list of perSocket.values()) expect(list.length).toBe(end.ticks);
    expect(samples.filter((s) => s.remotePort === port)).toHaveLength(samples.length / 2);

    const defaultCc = readFileSync('/proc/sys/net/ipv4/tcp_congestion_control', 'utf8').trim();
    for (const s of samples) {
      expect(s.localPort === port || s.remotePort === port).toBe(true);
      expect(s.localAddr).toBe('127.0.0.1');
      expect(s.state).toBe('established');
      expect(s.cc).toBe(defaultCc);
      expect(s.cwndPackets).toBeGreaterThan(0);
      expect(s.srttUs).toBeGreaterThan(0);
      expect(s.infoLen).toBeGreaterThan(0);
    }
    for (const list of perSocket.values()) {
      // Each end sent PAYLOAD bytes before sampling; the last ACKs may still be on their way at tick 0.
      expect(list.at(-1)?.bytesAcked).toBeGreaterThanOrEqual(PAYLOAD);
    }
  }, 30_000);

  it('dumps only the requested socket family', async (ctx) => {
    ctx.skip(!gccAvailable, NO_GCC);
    const run = (family: 'inet' | 'inet6') =>
      runLines(tcpSamplerArgv({ hz: 10, durationS: 0.1, ports: [port], family, binary: SAMPLER_BIN }));
    const [v4, v6] = await Promise.all([run('inet'), run('inet6')]);
    expect(parseAll(v4.lines).samples).toHaveLength(2 * CONNECTIONS);
    expect(parseAll(v6.lines).samples).toHaveLength(0);
    expect(parseAll(v6.lines).ends[0]).toMatchObject({ reason: 'duration', ticks: 1, records: 0 });
  });

  it('formats IPv6 sockets', async (ctx) => {
    ctx.skip(!gccAvailable, NO_GCC);
    const srv6 = net.createServer((sock) => sock.pipe(sock));
    // once() rejects on 'error', which is how a host without ::1 shows up.
    const listening = once(srv6, 'listening').then(
      () => true,
      () => false,
    );
    srv6.listen(0, '::1');
    if (!(await listening)) ctx.skip('IPv6 loopback (::1) is not available on this host');
    const port6 = (srv6.address() as AddressInfo).port;
    const accepted = once(srv6, 'connection');
    const c = net.connect(port6, '::1');
    try {
      await Promise.all([once(c, 'connect'), accepted]);
      const run = await runLines(
        tcpSamplerArgv({ hz: 10, durationS: 0.1, ports: [port6], family: 'inet6', binary: SAMPLER_BIN }),
      );
      const { samples } = parseAll(run.lines);
      expect(samples).toHaveLength(2);
      for (const s of samples) {
        expect(s.localAddr).toBe('::1');
        expect(s.remoteAddr).toBe('::1');
      }
    } finally {
      c.destroy();
      srv6.close();
    }
  });

  it('stops on SIGTERM with an end record (JSONL) that matches what was written', async (ctx) => {
    ctx.skip(!gccAvailable, NO_GCC);
    const argv = tcpSamplerArgv({
      hz: 100,
      durationS: 0,
      ports: [port],
      format: 'jsonl',
      binary: SAMPLER_BIN,
    });
    let signalled = false;
    const run = await runLines(argv, (line, child) => {
      // Wait for real output rather than a timer: terminate once a couple of ticks have been seen.
      const rec = parseSamplerLine(line);
      if (!signalled && rec?.type === 'sample' && rec.tick >= 2) {
        signalled = true;
        child.kill('SIGTERM');
      }
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.signal).toBeNull();
    const { samples, ends } = parseAll(run.lines);
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatchObject({ reason: 'signal', records: samples.length, errors: 0 });
    expect(ends[0]?.ticks).toBeGreaterThanOrEqual(3);
    expect(samples.length).toBeGreaterThanOrEqual(3 * 2 * CONNECTIONS);
  }, 30_000);
});
