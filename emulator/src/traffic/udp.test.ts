import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inNs, isRoot, LineProcess, make, runs, sh, VethPair } from '../../test/support/testFixtures.js';
import {
  parseUdpGenLine,
  parseUdpHeader,
  parseUdpSinkLine,
  type SinePattern,
  UDP_GEN_COLUMNS,
  UDP_SINK_COLUMNS,
  type UdpGenEnd,
  type UdpGenInterval,
  type UdpHeader,
  UdpParseError,
  type UdpPattern,
  type UdpSinkEnd,
  type UdpSinkInterval,
} from './udp.js';
import { udpGenArgv, udpSinkArgv } from './udpArgv.js';
import { intendedMeanRate, intendedRate } from './udpRate.js';

const TRAFFIC_DIR = fileURLToPath(new URL('../../traffic/', import.meta.url));
const GEN_BIN = `${TRAFFIC_DIR}lfn-udpgen`;
const SINK_BIN = `${TRAFFIC_DIR}lfn-udpsink`;

const genHeader =
  '# lfn-udpgen v1 dest=192.0.2.2:5001 pattern=sine mean_bps=20000000 amplitude_bps=10000000 period_s=2 size=1472 ip_bytes=1500 report_hz=10 duration_s=4 burst=4 max_lag_s=0.01 dry_run=0 start_mono_ns=4091034518223 start_ts_ns=1795281276902786048';
const genInterval = '3\t1795281277202786048\t4091334518223\t100000000\t249\t373500\t29836316\t2\t0\t1';
const genEnd =
  '#end\treason=duration\tsent=3334\tip_bytes=5001000\tlate=12\tskipped=1\terrors=0\tintended_bps=20000000\tmax_late_ns=1250000\telapsed_ns=4000061234\tcpu_ns=52500000';
const sinkInterval =
  '7\t1795281277502786048\t4091634518223\t100000000\t170\t255000\t2\t1\t0\t552\t1217\t11428\t3';
const sinkEnd =
  '#end\treason=signal\treceived=3319\tip_bytes=4978500\tlost=1\treordered=1\tduplicate=0\tignored=2\tsock_drops=0\tfirst_seq=0\tmax_seq=3319\towd_min_ns=552\towd_mean_ns=2491\towd_max_ns=36940\telapsed_ns=3000000000\tcpu_ns=29216356';

describe('parseUdpGenLine', () => {
  it('parses an interval, deriving the rate from bytes and length', () => {
    expect(parseUdpGenLine(`${genInterval}\n`)).toEqual<UdpGenInterval>({
      type: 'interval',
      tick: 3,
      // ns → ms keeps sub-µs digits even though the ns value exceeds 2^53.
      timeMs: expect.closeTo(1795281277202.786, 3),
      monoMs: 4091334.518223,
      intervalMs: 100,
      datagrams: 249,
      ipBytes: 373500,
      rateBps: 29880000,
      intendedBps: 29836316,
      late: 2,
      skipped: 0,
      errors: 1,
    });
  });

  it('parses the end record', () => {
    expect(parseUdpGenLine(genEnd)).toEqual<UdpGenEnd>({
      type: 'end',
      reason: 'duration',
      sent: 3334,
      ipBytes: 5001000,
      late: 12,
      skipped: 1,
      errors: 0,
      intendedBps: 20000000,
      maxLateMs: 1.25,
      elapsedMs: 4000.061234,
      cpuMs: 52.5,
    });
  });

  it('returns null for header, column, comment and blank lines', () => {
    expect(parseUdpGenLine(genHeader)).toBeNull();
    expect(parseUdpGenLine(`#${UDP_GEN_COLUMNS.join('\t')}`)).toBeNull();
    expect(parseUdpGenLine('# a note')).toBeNull();
    expect(parseUdpGenLine('')).toBeNull();
    expect(parseUdpGenLine('\r\n')).toBeNull();
  });

  it('throws on malformed lines and unknown versions instead of dropping them', () => {
    expect(() => parseUdpGenLine('# lfn-udpgen v2 dest=x')).toThrow(/version/);
    expect(() => parseUdpGenLine('1\t2\t3')).toThrow(UdpParseError);
    expect(() => parseUdpGenLine(`${genInterval}\t9`)).toThrow(/fields/);
    expect(() => parseUdpGenLine(genInterval.replace('249', '-249'))).toThrow(/datagrams/);
    expect(() => parseUdpGenLine(genInterval.replace('29836316', '2.9e7'))).toThrow(/intended_bps/);
    expect(() => parseUdpGenLine(genEnd.replace('reason=duration', 'reason=crashed'))).toThrow(/reason/);
    expect(() => parseUdpGenLine(genEnd.replace('\tcpu_ns=52500000', ''))).toThrow(/cpu_ns/);
    expect(() => parseUdpGenLine('#end\treason=signal\tsent')).toThrow(/end field/);
  });
});

describe('parseUdpSinkLine', () => {
  it('parses an interval with one-way delays in µs', () => {
    expect(parseUdpSinkLine(sinkInterval)).toEqual<UdpSinkInterval>({
      type: 'interval',
      tick: 7,
      timeMs: expect.closeTo(1795281277502.786, 3),
      monoMs: 4091634.518223,
      intervalMs: 100,
      datagrams: 170,
      ipBytes: 255000,
      rateBps: 20400000,
      lost: 2,
      reordered: 1,
      duplicate: 0,
      owdMinUs: 0.552,
      owdMeanUs: 1.217,
      owdMaxUs: 11.428,
      sockDrops: 3,
    });
  });

  it("maps '-' delays to null and keeps negative delays (clocks not shared)", () => {
    const empty = '8\t1\t2\t50000000\t0\t0\t0\t0\t0\t-\t-\t-\t0';
    expect(parseUdpSinkLine(empty)).toMatchObject({
      intervalMs: 50,
      rateBps: 0,
      owdMinUs: null,
      owdMeanUs: null,
      owdMaxUs: null,
    });
    const skewed = '9\t1\t2\t100000000\t1\t1500\t0\t0\t0\t-2000\t-1500\t-1000\t0';
    expect(parseUdpSinkLine(skewed)).toMatchObject({ owdMinUs: -2, owdMeanUs: -1.5, owdMaxUs: -1 });
  });

  it('parses the end record, with and without anything received', () => {
    expect(parseUdpSinkLine(sinkEnd)).toEqual<UdpSinkEnd>({
      type: 'end',
      reason: 'signal',
      received: 3319,
      ipBytes: 4978500,
      lost: 1,
      reordered: 1,
      duplicate: 0,
      ignored: 2,
      sockDrops: 0,
      firstSeq: 0,
      maxSeq: 3319,
      owdMinUs: 0.552,
      owdMeanUs: 2.491,
      owdMaxUs: 36.94,
      elapsedMs: 3000,
      cpuMs: 29.216356,
    });
    const none = parseUdpSinkLine(
      '#end\treason=duration\treceived=0\tip_bytes=0\tlost=0\treordered=0\tduplicate=0\tignored=0\tsock_drops=0\tfirst_seq=-\tmax_seq=-\towd_min_ns=-\towd_mean_ns=-\towd_max_ns=-\telapsed_ns=1\tcpu_ns=1',
    );
    expect(none).toMatchObject({ firstSeq: null, maxSeq: null, owdMinUs: null, owdMaxUs: null });
  });

  it('returns null for header and comments, throws on malformed lines', () => {
    expect(
      parseUdpSinkLine(
        '# lfn-udpsink v1 bind=0.0.0.0:5001 report_hz=10 duration_s=0 rcvbuf=8388608 ip_overhead=28 start_mono_ns=1 start_ts_ns=2',
      ),
    ).toBeNull();
    expect(parseUdpSinkLine(`#${UDP_SINK_COLUMNS.join('\t')}`)).toBeNull();
    expect(() => parseUdpSinkLine('# lfn-udpsink v9 bind=x')).toThrow(/version/);
    expect(() => parseUdpSinkLine(sinkInterval.replace('\t552\t', '\tfast\t'))).toThrow(/owd_min_ns/);
    expect(() => parseUdpSinkLine(sinkInterval.replace(/\t3$/, '\t-'))).toThrow(/sock_drops/);
    expect(() => parseUdpSinkLine(genInterval)).toThrow(/fields/);
    expect(() => parseUdpSinkLine(sinkEnd.replace('first_seq=0', 'first_seq=x'))).toThrow(/first_seq/);
  });
});

describe('parseUdpHeader', () => {
  it('returns the parameters and the start time of either program', () => {
    const h = parseUdpHeader(genHeader);
    expect(h).toMatchObject<Partial<UdpHeader>>({ program: 'lfn-udpgen', version: 1 });
    expect(h?.params).toMatchObject({
      pattern: 'sine',
      mean_bps: '20000000',
      period_s: '2',
      dest: '192.0.2.2:5001',
    });
    expect(h?.startMonoMs).toBeCloseTo(4091034.518223, 6);
    expect(h?.startTimeMs).toBeCloseTo(1795281276902.786, 3);
    expect(parseUdpHeader('# lfn-udpsink v1 bind=0.0.0.0:9 start_mono_ns=5 start_ts_ns=6')).toMatchObject({
      program: 'lfn-udpsink',
      params: { bind: '0.0.0.0:9' },
      startMonoMs: 0.000005,
    });
  });

  it('ignores other lines and rejects broken headers', () => {
    expect(parseUdpHeader(genInterval)).toBeNull();
    expect(parseUdpHeader('# lfn-tcpsampler v1 hz=10')).toBeNull();
    expect(() => parseUdpHeader('# lfn-udpgen v2 a=1')).toThrow(/version/);
    expect(() => parseUdpHeader('# lfn-udpgen v1 pattern=cbr')).toThrow(/start_mono_ns/);
    expect(() => parseUdpHeader('# lfn-udpgen v1 junk start_mono_ns=1 start_ts_ns=1')).toThrow(
      /header field/,
    );
  });
});

describe('intendedRate and intendedMeanRate', () => {
  const sine: SinePattern = { kind: 'sine', meanBps: 20e6, amplitudeBps: 10e6, periodS: 2 };

  it('follows mean + amplitude · sin(2πt/period) and is 0 before the start', () => {
    expect(intendedRate(sine, 0)).toBe(20e6);
    expect(intendedRate(sine, 0.5)).toBeCloseTo(30e6, 3);
    expect(intendedRate(sine, 1)).toBeCloseTo(20e6, 3);
    expect(intendedRate(sine, 1.5)).toBeCloseTo(10e6, 3);
    expect(intendedRate(sine, 2.25)).toBeCloseTo(20e6 + 10e6 * Math.SQRT1_2, 3);
    expect(intendedRate(sine, -0.1)).toBe(0);
    expect(intendedRate({ kind: 'cbr', rateBps: 5e6 }, 123.4)).toBe(5e6);
  });

  it('averages the rate over an interval, as the generator does', () => {
    // ∫ over a whole period is the mean; over the first 0.2 s: mean + A·(1 − cos(0.2π))/(0.2π).
    expect(intendedMeanRate(sine, 3, 5)).toBeCloseTo(20e6, 3);
    expect(intendedMeanRate(sine, 0, 0.2)).toBeCloseTo(
      20e6 + (10e6 * (1 - Math.cos(0.2 * Math.PI))) / (0.2 * Math.PI),
      3,
    );
    // Nothing before the start: half of [-1, 1] is silent, the other half is the sine's first crest.
    expect(intendedMeanRate(sine, -1, 1)).toBeCloseTo((20e6 + 20e6 / Math.PI) / 2, 3);
    expect(intendedMeanRate({ kind: 'cbr', rateBps: 5e6 }, 1, 1.1)).toBeCloseTo(5e6, 3);
    expect(() => intendedMeanRate(sine, 1, 1)).toThrow(/fromS/);
  });

  it('refuses the self-similar pattern, whose rate depends on the random draws', () => {
    const ss = { kind: 'selfsimilar', meanBps: 1e6, hurst: 0.8 } as unknown as SinePattern;
    expect(() => intendedRate(ss, 1)).toThrow(/intendedBps/);
  });
});

describe('udpGenArgv and udpSinkArgv', () => {
  it('builds argv arrays with argv[0] = program', () => {
    expect(
      udpGenArgv({ host: '10.1.2.3', port: 5001, pattern: { kind: 'cbr', rateBps: 20e6 }, durationS: 2 }),
    ).toEqual([
      'lfn-udpgen',
      '--host',
      '10.1.2.3',
      '--port',
      '5001',
      '--pattern',
      'cbr',
      '--rate',
      '20000000',
      '--size',
      '1472',
      '--duration',
      '2',
      '--report',
      '10',
    ]);
    expect(
      udpGenArgv({
        host: 'fd00::2',
        port: 9,
        pattern: { kind: 'sine', meanBps: 20e6, amplitudeBps: 2e6, periodS: 30 },
        sizeBytes: 1452,
        durationS: 0,
        reportHz: 100,
        burst: 8,
        maxLagS: 0.05,
        binary: '/opt/lfn/bin/lfn-udpgen',
      }),
    ).toEqual([
      '/opt/lfn/bin/lfn-udpgen',
      '--host',
      'fd00::2',
      '--port',
      '9',
      '--pattern',
      'sine',
      '--mean',
      '20000000',
      '--amplitude',
      '2000000',
      '--period',
      '30',
      '--size',
      '1452',
      '--duration',
      '0',
      '--report',
      '100',
      '--burst',
      '8',
      '--max-lag',
      '0.05',
    ]);
    const ss = udpGenArgv({
      host: '10.0.0.2',
      port: 5001,
      pattern: {
        kind: 'selfsimilar',
        meanBps: 1e8,
        hurst: 0.9,
        sources: 32,
        onOffMeanS: 0.5,
        seed: 2n ** 64n - 1n,
      },
      durationS: 60,
      dryRun: true,
    });
    expect(ss.slice(5, 17)).toEqual([
      '--pattern',
      'selfsimilar',
      '--mean',
      '100000000',
      '--hurst',
      '0.9',
      '--sources',
      '32',
      '--onoff-mean',
      '0.5',
      '--seed',
      '18446744073709551615',
    ]);
    expect(ss.at(-1)).toBe('--dry-run');

    expect(udpSinkArgv({ port: 5001, durationS: 0 })).toEqual([
      'lfn-udpsink',
      '--port',
      '5001',
      '--duration',
      '0',
      '--report',
      '10',
    ]);
    expect(
      udpSinkArgv({ port: 7, bind: '192.0.2.2', durationS: 1.5, reportHz: 5, binary: '/x/sink' }),
    ).toEqual(['/x/sink', '--port', '7', '--bind', '192.0.2.2', '--duration', '1.5', '--report', '5']);
  });

  it('rejects values the programs would refuse', () => {
    const base = { host: '10.0.0.2', port: 5001, durationS: 1 };
    const gen =
      (pattern: UdpPattern, extra: object = {}) =>
      () =>
        udpGenArgv({ ...base, pattern, ...extra });
    const cbr: UdpPattern = { kind: 'cbr', rateBps: 1e6 };
    expect(gen(cbr, { host: 'receiver.lab' })).toThrow(/host/);
    expect(gen(cbr, { port: 0 })).toThrow(/port/);
    expect(gen(cbr, { sizeBytes: 15 })).toThrow(/sizeBytes/);
    expect(gen(cbr, { sizeBytes: 65508 })).toThrow(/sizeBytes/);
    expect(gen(cbr, { durationS: -1 })).toThrow(/durationS/);
    expect(gen(cbr, { reportHz: 101 })).toThrow(/reportHz/);
    expect(gen(cbr, { reportHz: 2.5 })).toThrow(/reportHz/);
    expect(gen(cbr, { burst: 0 })).toThrow(/burst/);
    expect(gen(cbr, { maxLagS: 2 })).toThrow(/maxLagS/);
    expect(gen(cbr, { dryRun: true, durationS: 0 })).toThrow(/dryRun/);
    expect(gen({ kind: 'cbr', rateBps: 0 })).toThrow(/rateBps/);
    expect(gen({ kind: 'cbr', rateBps: Number.NaN })).toThrow(/rateBps/);
    expect(gen({ kind: 'sine', meanBps: 1e6, amplitudeBps: 2e6, periodS: 1 })).toThrow(/amplitudeBps/);
    expect(gen({ kind: 'sine', meanBps: 1e6, amplitudeBps: 1e5, periodS: 0 })).toThrow(/periodS/);
    expect(gen({ kind: 'selfsimilar', meanBps: 1e6, hurst: 1 })).toThrow(/hurst/);
    expect(gen({ kind: 'selfsimilar', meanBps: 1e6, hurst: 0.4 })).toThrow(/hurst/);
    expect(gen({ kind: 'selfsimilar', meanBps: 1e6, hurst: 0.8, sources: 0 })).toThrow(/sources/);
    expect(gen({ kind: 'selfsimilar', meanBps: 1e6, hurst: 0.8, onOffMeanS: 1e-4 })).toThrow(/onOffMeanS/);
    expect(gen({ kind: 'selfsimilar', meanBps: 1e6, hurst: 0.8, sources: 1024, onOffMeanS: 0.005 })).toThrow(
      /on\/off changes/,
    );
    expect(gen({ kind: 'selfsimilar', meanBps: 1e6, hurst: 0.8, seed: -1 })).toThrow(/seed/);
    expect(gen({ kind: 'selfsimilar', meanBps: 1e6, hurst: 0.8, seed: 0.5 })).toThrow(/seed/);
    expect(gen({ kind: 'selfsimilar', meanBps: 1e6, hurst: 0.8, seed: 2n ** 64n })).toThrow(/seed/);
    expect(() => udpSinkArgv({ port: 65536, durationS: 0 })).toThrow(/port/);
    expect(() => udpSinkArgv({ port: 1, bind: '0.0.0.0:1', durationS: 0 })).toThrow(/bind/);
    expect(() => udpSinkArgv({ port: 1, durationS: Number.POSITIVE_INFINITY })).toThrow(/durationS/);
  });
});

// ---- integration: the real programs between two network namespaces ----

const gccAvailable = runs('gcc');
const canRun = isRoot && gccAvailable;
const SKIP_REASON = !isRoot
  ? 'needs root: creates two network namespaces joined by a veth pair'
  : 'gcc not found on PATH: cannot build emulator/traffic (lfn-udpgen, lfn-udpsink)';

const NET = new VethPair({ prefix: 'lfnu-', devA: 'lfnu-a', devB: 'lfnu-b' });
const { nsA: NS_A, nsB: NS_B, addrB: ADDR_B } = NET;

// The generator runs at real-time priority, as in the lab: this host is shared with other test runs, and
// at normal priority a wake-up can come 10 ms late, which the generator reports as skipped datagrams.
const hasChrt = runs('chrt');
const realtime = (argv: string[]) => (hasChrt ? ['chrt', '--fifo', '20', ...argv] : argv);

const running = new Set<LineProcess>();
function start(argv: string[]): LineProcess {
  const p = new LineProcess(argv);
  running.add(p);
  void p.done.then(() => running.delete(p));
  return p;
}

function parseGen(lines: string[]) {
  let header: UdpHeader | null = null;
  const intervals: UdpGenInterval[] = [];
  const ends: UdpGenEnd[] = [];
  for (const l of lines) {
    header ??= parseUdpHeader(l);
    const r = parseUdpGenLine(l);
    if (r?.type === 'interval') intervals.push(r);
    else if (r?.type === 'end') ends.push(r);
  }
  if (!header) throw new Error('generator printed no header');
  const end = ends[0];
  if (ends.length !== 1 || !end) throw new Error(`expected one #end record, got ${ends.length}`);
  return { header, intervals, end };
}

function parseSink(lines: string[]) {
  const intervals: UdpSinkInterval[] = [];
  const ends: UdpSinkEnd[] = [];
  for (const l of lines) {
    const r = parseUdpSinkLine(l);
    if (r?.type === 'interval') intervals.push(r);
    else if (r?.type === 'end') ends.push(r);
  }
  const end = ends[0];
  if (ends.length !== 1 || !end) throw new Error(`expected one #end record, got ${ends.length}`);
  return { intervals, end };
}

let nextPort = 5001;

/** Sink in NS_B (until SIGTERM), generator in NS_A towards it; resolves once both have ended. */
async function transfer(
  pattern: UdpPattern,
  durationS: number,
  reportHz: number,
): Promise<{ gen: ReturnType<typeof parseGen>; sink: ReturnType<typeof parseSink> }> {
  const port = nextPort++;
  const sink = start(inNs(NS_B, udpSinkArgv({ port, durationS: 0, reportHz, binary: SINK_BIN })));
  try {
    // The header is written once the port is bound: the generator may start.
    expect(await sink.line((l) => l.startsWith('# lfn-udpsink '))).not.toBe('');
    const genRun = await start(
      inNs(NS_A, realtime(udpGenArgv({ host: ADDR_B, port, pattern, durationS, reportHz, binary: GEN_BIN }))),
    ).done;
    expect(genRun.stderr).toBe('');
    expect(genRun.code).toBe(0);
    const sinkRun = await sink.stop();
    expect(sinkRun.stderr).toBe('');
    expect(sinkRun.code).toBe(0);
    return { gen: parseGen(genRun.lines), sink: parseSink(sinkRun.lines) };
  } finally {
    await sink.stop();
  }
}

function pearson(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] as number) - mx;
    const dy = (ys[i] as number) - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxy / Math.sqrt(sxx * syy);
}

describe('lfn-udpgen → lfn-udpsink between two namespaces', () => {
  beforeAll(async () => {
    if (!canRun) return;
    await make(TRAFFIC_DIR);
    NET.create();
  }, 150_000);

  afterAll(async () => {
    if (!canRun) return;
    try {
      for (const p of running) p.child.kill('SIGKILL');
      await Promise.all([...running].map((p) => p.done));
    } finally {
      NET.delete();
    }
  });

  it('documents units in --help and rejects bad usage with exit status 2', (ctx) => {
    ctx.skip(!canRun, SKIP_REASON);
    const help = spawnSync(GEN_BIN, ['--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/bits per second at the IP layer/);
    for (const c of UDP_GEN_COLUMNS) expect(help.stdout).toContain(`  ${c} `);
    const sinkHelp = spawnSync(SINK_BIN, ['--help'], { encoding: 'utf8' });
    expect(sinkHelp.status).toBe(0);
    for (const c of UDP_SINK_COLUMNS) expect(sinkHelp.stdout).toContain(`  ${c} `);
    for (const args of [
      ['--host', ADDR_B, '--port', '9', '--pattern', 'cbr'],
      ['--host', ADDR_B, '--port', '9', '--pattern', 'cbr', '--rate', '1M', '--hurst', '0.8'],
      [
        '--host',
        ADDR_B,
        '--port',
        '9',
        '--pattern',
        'sine',
        '--mean',
        '1M',
        '--amplitude',
        '2M',
        '--period',
        '1',
      ],
      ['--host', 'localhost', '--port', '9', '--pattern', 'cbr', '--rate', '1M'],
      ['--host', ADDR_B, '--port', '9', '--pattern', 'cbr', '--rate', '1M', '--report', '0'],
    ]) {
      const r = spawnSync(GEN_BIN, args, { encoding: 'utf8' });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/lfn-udpgen: /);
    }
    expect(spawnSync(SINK_BIN, ['--duration', '1'], { encoding: 'utf8' }).status).toBe(2);
  });

  it('reports the same intended rates as intendedMeanRate (dry run)', (ctx) => {
    ctx.skip(!canRun, SKIP_REASON);
    const sine: SinePattern = { kind: 'sine', meanBps: 20e6, amplitudeBps: 10e6, periodS: 2 };
    const argv = udpGenArgv({
      host: ADDR_B,
      port: 9,
      pattern: sine,
      durationS: 4.05,
      reportHz: 10,
      dryRun: true,
      binary: GEN_BIN,
    });
    const { intervals, end } = parseGen(sh(argv).split('\n'));
    expect(intervals).toHaveLength(41);
    expect(intervals.at(-1)?.intervalMs).toBeCloseTo(50, 6);
    let t = 0;
    for (const iv of intervals) {
      const expected = intendedMeanRate(sine, t, t + iv.intervalMs / 1000);
      expect(Math.abs(iv.intendedBps - expected)).toBeLessThanOrEqual(1);
      t += iv.intervalMs / 1000;
    }
    // Datagrams due in [0, 4.05 s): floor(bits / 12000 per datagram) + the one at t = 0.
    expect(end.sent).toBe(
      Math.floor((20e6 * 4.05 + (10e6 / Math.PI) * (1 - Math.cos(4.05 * Math.PI))) / 12000) + 1,
    );
    expect(end.sent).toBe(intervals.reduce((a, b) => a + b.datagrams, 0));
  });

  it('(a) CBR 20 Mbit/s for 2 s: the sink sees the rate within ±3 % and nothing lost', async (ctx) => {
    ctx.skip(!canRun, SKIP_REASON);
    const { gen, sink } = await transfer({ kind: 'cbr', rateBps: 20e6 }, 2, 10);
    expect(gen.end.reason).toBe('duration');
    expect(gen.intervals).toHaveLength(20);
    expect(gen.end.sent).toBe(gen.intervals.reduce((a, b) => a + b.datagrams, 0));
    // Every scheduled datagram is accounted for: sent, skipped (far behind) or refused.
    expect(gen.end.sent + gen.end.skipped + gen.end.errors).toBe(Math.ceil((20e6 * 2) / 12000));
    expect(sink.end).toMatchObject({
      received: gen.end.sent,
      lost: 0,
      duplicate: 0,
      ignored: 0,
      sockDrops: 0,
    });
    expect(sink.end.firstSeq).toBe(0);
    expect(sink.end.maxSeq).toBe(gen.end.sent - 1);
    const rateBps = (sink.end.ipBytes * 8) / 2;
    expect(Math.abs(rateBps / 20e6 - 1)).toBeLessThan(0.03);
    expect(sink.end.owdMinUs).toBeGreaterThan(0);
    expect(sink.end.owdMeanUs).toBeLessThan(100_000);
    expect(gen.end.cpuMs).toBeGreaterThan(0);
  }, 30_000);

  it('(b) sine 20 ± 10 Mbit/s, period 2 s: the sink intervals follow intendedRate', async (ctx) => {
    ctx.skip(!canRun, SKIP_REASON);
    const sine: SinePattern = { kind: 'sine', meanBps: 20e6, amplitudeBps: 10e6, periodS: 2 };
    const { gen, sink } = await transfer(sine, 4, 10);
    expect(gen.end.reason).toBe('duration');
    // The C rate function and the TS one agree on every generator interval.
    for (const iv of gen.intervals) {
      const from = (iv.monoMs - gen.header.startMonoMs) / 1000;
      expect(
        Math.abs(iv.intendedBps - intendedMeanRate(sine, from, from + iv.intervalMs / 1000)),
      ).toBeLessThanOrEqual(1);
    }
    // Sink intervals that lie wholly inside the generator's run, on the generator's time axis.
    const measured: number[] = [];
    const intended: number[] = [];
    for (const iv of sink.intervals) {
      const from = (iv.monoMs - gen.header.startMonoMs) / 1000;
      const to = from + iv.intervalMs / 1000;
      if (from < 0 || to > 4) continue;
      measured.push(iv.rateBps);
      intended.push(intendedMeanRate(sine, from, to));
    }
    expect(measured.length).toBeGreaterThanOrEqual(38);
    const r = pearson(measured, intended);
    const rms = Math.sqrt(
      measured.reduce((a, m, i) => a + (m - (intended[i] as number)) ** 2, 0) / measured.length,
    );
    expect(r).toBeGreaterThan(0.95);
    expect(rms / sine.meanBps).toBeLessThan(0.1);
    expect(sink.end.lost).toBe(0);
  }, 30_000);

  it('(c) self-similar with a fixed seed: the same schedule twice, mean within ±15 % over 5 s', async (ctx) => {
    ctx.skip(!canRun, SKIP_REASON);
    const pattern: UdpPattern = { kind: 'selfsimilar', meanBps: 20e6, hurst: 0.8, sources: 32, seed: 7 };
    const first = await transfer(pattern, 5, 10);
    const second = await transfer(pattern, 5, 10);
    const dry = parseGen(
      sh(
        udpGenArgv({
          host: ADDR_B,
          port: 9,
          pattern,
          durationS: 5,
          reportHz: 10,
          dryRun: true,
          binary: GEN_BIN,
        }),
      ).split('\n'),
    );
    const intendedOf = (g: { intervals: UdpGenInterval[] }) => g.intervals.map((iv) => iv.intendedBps);
    expect(intendedOf(first.gen)).toHaveLength(50);
    expect(intendedOf(first.gen)).toEqual(intendedOf(second.gen));
    expect(intendedOf(first.gen)).toEqual(intendedOf(dry));
    expect(first.gen.end.intendedBps).toBe(dry.end.intendedBps);
    for (const run of [first, second]) {
      // The schedule is the dry run's: every datagram in it was sent, skipped or refused.
      expect(run.gen.end.sent + run.gen.end.skipped + run.gen.end.errors).toBe(dry.end.sent);
      // Sent on schedule: by the end of every interval the live count never runs ahead of the dry
      // run's and trails it by no more than the datagrams skipped or refused plus what the largest
      // lateness could hold back (the peak rate, twice the mean, over max-late).
      const heldBack = Math.ceil(((run.gen.end.maxLateMs / 1000) * 2 * 20e6) / 12000) + 1;
      const dropped = run.gen.end.skipped + run.gen.end.errors;
      let live = 0;
      let planned = 0;
      run.gen.intervals.forEach((iv, i) => {
        live += iv.datagrams;
        planned += dry.intervals[i]?.datagrams ?? 0;
        expect(live).toBeLessThanOrEqual(planned);
        expect(planned - live).toBeLessThanOrEqual(dropped + heldBack);
      });
      expect(run.sink.end.received).toBe(run.gen.end.sent);
      const meanBps = (run.sink.end.ipBytes * 8) / 5;
      expect(Math.abs(meanBps / 20e6 - 1)).toBeLessThan(0.15);
    }
    // The pattern really varies, and another seed gives another schedule.
    const rates = intendedOf(dry);
    expect(Math.max(...rates) - Math.min(...rates)).toBeGreaterThan(0.2 * 20e6);
    const other = parseGen(
      sh(
        udpGenArgv({
          host: ADDR_B,
          port: 9,
          pattern: { ...pattern, seed: 8 },
          durationS: 5,
          reportHz: 10,
          dryRun: true,
          binary: GEN_BIN,
        }),
      ).split('\n'),
    );
    expect(intendedOf(other)).not.toEqual(rates);
  }, 60_000);

  it('stops on SIGTERM with an end record that adds up', async (ctx) => {
    ctx.skip(!canRun, SKIP_REASON);
    const port = nextPort++;
    const sink = start(inNs(NS_B, udpSinkArgv({ port, durationS: 0, reportHz: 100, binary: SINK_BIN })));
    expect(await sink.line((l) => l.startsWith('# lfn-udpsink '))).not.toBe('');
    const gen = start(
      inNs(
        NS_A,
        udpGenArgv({
          host: ADDR_B,
          port,
          pattern: { kind: 'cbr', rateBps: 5e6 },
          durationS: 0,
          reportHz: 100,
          binary: GEN_BIN,
        }),
      ),
    );
    // Wait for real output, not a timer: stop once three intervals have been reported.
    expect(await gen.line((l) => l.startsWith('2\t'))).not.toBe('');
    const genRun = await gen.stop();
    const sinkRun = await sink.stop();
    expect(genRun.code).toBe(0);
    expect(sinkRun.code).toBe(0);
    const g = parseGen(genRun.lines);
    const s = parseSink(sinkRun.lines);
    expect(g.end.reason).toBe('signal');
    expect(g.intervals.length).toBeGreaterThanOrEqual(3);
    expect(g.end.sent).toBe(g.intervals.reduce((a, b) => a + b.datagrams, 0));
    expect(s.end.reason).toBe('signal');
    expect(s.end.received).toBe(g.end.sent);
    expect(s.end.received).toBe(s.intervals.reduce((a, b) => a + b.datagrams, 0));
  }, 30_000);

  it('counts gaps, late arrivals, duplicates and stray datagrams', async (ctx) => {
    ctx.skip(!canRun, SKIP_REASON);
    const port = nextPort++;
    const sink = start(inNs(NS_B, udpSinkArgv({ port, durationS: 0, reportHz: 1, binary: SINK_BIN })));
    expect(await sink.line((l) => l.startsWith('# lfn-udpsink '))).not.toBe('');
    // Hand-made datagrams from one socket: 0 1 3 2 2 5 (4 never comes), then a short one and one
    // from a second socket. Each waits for the previous send to complete, so the order is kept.
    const script = `
      const dgram = require('node:dgram');
      const [host, port] = process.argv.slice(1);
      const a = dgram.createSocket('udp4');
      const b = dgram.createSocket('udp4');
      const dg = (seq) => {
        const buf = Buffer.alloc(100, 0x5a);
        buf.writeBigUInt64BE(BigInt(seq), 0);
        buf.writeBigUInt64BE(BigInt(Date.now()) * 1000000n, 8);
        return buf;
      };
      const send = (sock, buf) => new Promise((ok, ko) => sock.send(buf, Number(port), host, (e) => (e ? ko(e) : ok())));
      (async () => {
        for (const seq of [0, 1, 3, 2, 2, 5]) await send(a, dg(seq));
        await send(a, Buffer.alloc(8));
        await send(b, dg(6));
        a.close();
        b.close();
      })().catch((e) => { console.error(e.message); process.exit(1); });
    `;
    const sender = await start(inNs(NS_A, [process.execPath, '-e', script, ADDR_B, String(port)])).done;
    expect(sender.stderr).toBe('');
    expect(sender.code).toBe(0);
    const { intervals, end } = parseSink((await sink.stop()).lines);
    expect(end).toMatchObject({
      received: 6,
      ipBytes: 6 * 128,
      lost: 1,
      reordered: 1,
      duplicate: 1,
      ignored: 2,
      firstSeq: 0,
      maxSeq: 5,
    });
    const sum = (k: 'lost' | 'reordered' | 'duplicate') => intervals.reduce((a, iv) => a + iv[k], 0);
    expect([sum('lost'), sum('reordered'), sum('duplicate')]).toEqual([2, 1, 1]);
    // Same machine, same clock: a small positive delay (the sender stamped in ms, so allow 1 ms).
    expect(end.owdMinUs).toBeGreaterThan(-1000);
    expect(end.owdMaxUs).toBeLessThan(5_000_000);
  }, 30_000);
});
