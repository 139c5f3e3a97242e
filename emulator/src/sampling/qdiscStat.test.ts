import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTbf, inNs, isRoot, make, runLines, runs, sh, VethPair } from '../../test/support/testFixtures.js';
import {
  CPU_TIME_FIELDS,
  type CpuTimes,
  cpuPercent,
  parseQdiscStatLine,
  QDISC_STAT_CPU_COLUMNS,
  QDISC_STAT_QDISC_COLUMNS,
  type QdiscCpuRecord,
  type QdiscRecord,
  type QdiscStatEnd,
  QdiscStatParseError,
  qdiscStatArgv,
} from './qdiscStat.js';

const SAMPLER_DIR = fileURLToPath(new URL('../../sampler/', import.meta.url));
const POLLER_BIN = `${SAMPLER_DIR}lfn-qdiscstat`;

// A tbf bottleneck with a standing queue, as the poller prints it.
const qValues: Record<string, string> = {
  q: 'q',
  tick: '12',
  ts_ns: '1795277572709673682',
  mono_ns: '386841405972',
  dev: 'ifb-fwd0',
  ifindex: '7',
  kind: 'tbf',
  handle: '1:',
  parent: 'root',
  bytes: '123456789012',
  packets: '4294967300',
  qlen: '21',
  backlog_bytes: '30030',
  drops: '17',
  requeues: '1',
  overlimits: '940',
};
const qLine = (over: Record<string, string> = {}) =>
  QDISC_STAT_QDISC_COLUMNS.map((c) => over[c] ?? qValues[c]).join('\t');

const times = (base: number): CpuTimes => ({
  user: base + 1,
  nice: base + 2,
  system: base + 3,
  irq: base + 4,
  softirq: base + 5,
  idle: base + 6,
  iowait: base + 7,
  steal: base + 8,
});
const timesTsv = (t: CpuTimes) => CPU_TIME_FIELDS.map((f) => String(t[f])).join('\t');

// Two online CPUs numbered 0 and 2 (1 offline), so a gap in the numbering must survive parsing.
const cLine = [
  'c\t3\t1795277572709673682\t386841405972\t100\t2',
  timesTsv(times(1000)),
  `0\t${timesTsv(times(500))}`,
  `2\t${timesTsv(times(400))}`,
].join('\t');

const endTsv =
  '#end\treason=signal\tticks=50\tlate=1\tskipped=2\trecords=400\tcpu_records=50\tvanished=3\terrors=0\tmax_work_ns=1500000\telapsed_ns=1000123456\tcpu_ns=2500000\tstartup_cpu_ns=700000';

describe('parseQdiscStatLine', () => {
  it('parses a TSV qdisc record, including counters beyond 32 bits', () => {
    const r = parseQdiscStatLine(`${qLine()}\n`);
    expect(r).toEqual<QdiscRecord>({
      type: 'qdisc',
      tick: 12,
      timeMs: expect.closeTo(1795277572709.6736, 3),
      monoMs: expect.closeTo(386841.405972, 6),
      dev: 'ifb-fwd0',
      ifindex: 7,
      kind: 'tbf',
      handle: '1:',
      parent: 'root',
      bytes: 123456789012,
      packets: 4294967300,
      qlen: 21,
      backlogBytes: 30030,
      drops: 17,
      requeues: 1,
      overlimits: 940,
    });
  });

  it('keeps tc handle notation as text', () => {
    expect(
      parseQdiscStatLine(qLine({ dev: 'lfn-r0', kind: 'ingress', handle: 'ffff:', parent: 'ffff:fff1' })),
    ).toMatchObject({ dev: 'lfn-r0', kind: 'ingress', handle: 'ffff:', parent: 'ffff:fff1' });
  });

  it('parses a TSV cpu record with its totals and per-CPU groups', () => {
    expect(parseQdiscStatLine(cLine)).toEqual<QdiscCpuRecord>({
      type: 'cpu',
      tick: 3,
      timeMs: expect.closeTo(1795277572709.6736, 3),
      monoMs: expect.closeTo(386841.405972, 6),
      userHz: 100,
      total: times(1000),
      cpus: [
        { cpu: 0, ...times(500) },
        { cpu: 2, ...times(400) },
      ],
    });
    expect(parseQdiscStatLine(`c\t0\t1\t2\t100\t0\t${timesTsv(times(0))}`)).toMatchObject({ cpus: [] });
  });

  it('returns null for header, column, comment and blank lines', () => {
    expect(parseQdiscStatLine('# lfn-qdiscstat v1 hz=50 duration_s=1 devs=all cpu=1 user_hz=100')).toBeNull();
    expect(parseQdiscStatLine(`#${QDISC_STAT_QDISC_COLUMNS.join('\t')}`)).toBeNull();
    expect(parseQdiscStatLine(`#${QDISC_STAT_CPU_COLUMNS.join('\t')}`)).toBeNull();
    expect(parseQdiscStatLine('')).toBeNull();
    expect(parseQdiscStatLine('\r\n')).toBeNull();
  });

  it('rejects a header of a format version it does not know', () => {
    expect(() => parseQdiscStatLine('# lfn-qdiscstat v2 hz=50')).toThrow(/version/);
    expect(() => parseQdiscStatLine('{"type":"start","version":2}')).toThrow(/version/);
  });

  it('parses the TSV end record', () => {
    expect(parseQdiscStatLine(endTsv)).toEqual<QdiscStatEnd>({
      type: 'end',
      reason: 'signal',
      ticks: 50,
      late: 1,
      skipped: 2,
      records: 400,
      cpuRecords: 50,
      vanished: 3,
      errors: 0,
      maxWorkMs: 1.5,
      elapsedMs: 1000.123456,
      cpuMs: 2.5,
      startupCpuMs: 0.7,
    });
  });

  it('parses JSONL start, qdisc, cpu and end records the same way as TSV', () => {
    expect(
      parseQdiscStatLine(
        '{"type":"start","version":1,"hz":50,"duration_s":1,"devs":null,"cpu":true,"user_hz":100}',
      ),
    ).toBeNull();

    const q: Record<string, string | number> = { type: 'qdisc' };
    for (const c of QDISC_STAT_QDISC_COLUMNS.slice(1)) {
      const v = qValues[c] ?? '';
      q[c] = /^\d+$/.test(v) ? Number(v) : v;
    }
    const fromTsv = parseQdiscStatLine(qLine());
    if (fromTsv?.type !== 'qdisc') throw new Error('expected a qdisc record');
    // JSON hands ns over as doubles, so the ms values may differ in the last bits.
    expect(parseQdiscStatLine(JSON.stringify(q))).toEqual({
      ...fromTsv,
      timeMs: expect.closeTo(fromTsv.timeMs, 3),
      monoMs: expect.closeTo(fromTsv.monoMs, 6),
    });
    expect(() => parseQdiscStatLine(JSON.stringify({ ...q, dev: null }))).toThrow(/dev is missing/);

    const cpu = {
      type: 'cpu',
      tick: 3,
      ts_ns: Number(qValues.ts_ns),
      mono_ns: Number(qValues.mono_ns),
      user_hz: 100,
      ncpu: 2,
      ...times(1000),
      cpus: [
        { cpu: 0, ...times(500) },
        { cpu: 2, ...times(400) },
      ],
    };
    const cpuTsv = parseQdiscStatLine(cLine);
    if (cpuTsv?.type !== 'cpu') throw new Error('expected a cpu record');
    expect(parseQdiscStatLine(JSON.stringify(cpu))).toEqual({
      ...cpuTsv,
      timeMs: expect.closeTo(cpuTsv.timeMs, 3),
    });

    expect(
      parseQdiscStatLine(
        '{"type":"end","reason":"duration","ticks":3,"late":0,"skipped":0,"records":6,"cpu_records":3,"vanished":0,"errors":0,"max_work_ns":10,"elapsed_ns":20,"cpu_ns":5,"startup_cpu_ns":1}',
      ),
    ).toMatchObject({ type: 'end', reason: 'duration', ticks: 3, records: 6, cpuRecords: 3 });
  });

  it('throws a clear error on malformed lines instead of dropping them', () => {
    expect(() => parseQdiscStatLine('q\t1\t2')).toThrow(QdiscStatParseError);
    expect(() => parseQdiscStatLine('q\t1\t2')).toThrow(/expected 16 tab-separated fields, got 3/);
    expect(() => parseQdiscStatLine(`${qLine()}\textra`)).toThrow(/fields/);
    expect(() => parseQdiscStatLine(qLine({ bytes: 'x' }))).toThrow(/bytes is not a non-negative integer/);
    expect(() => parseQdiscStatLine(cLine.replace('\t1001\t', '\t-1\t'))).toThrow(/total\.user/);
    expect(() => parseQdiscStatLine(cLine.replace('\t402\t', '\t4.5\t'))).toThrow(/cpus\[1\]\.nice/);
    expect(() => parseQdiscStatLine(qLine({ drops: '-1' }))).toThrow(/drops/);
    expect(() => parseQdiscStatLine(qLine({ kind: '' }))).toThrow(/kind is missing/);
    expect(() => parseQdiscStatLine(qLine({ q: 'x' }))).toThrow(/unknown record kind 'x'/);
    expect(() => parseQdiscStatLine(`${cLine}\t9`)).toThrow(
      /expected 32 tab-separated fields for ncpu=2, got 33/,
    );
    expect(() => parseQdiscStatLine(cLine.replace('\t100\t2\t', '\t100\t3\t'))).toThrow(/ncpu=3/);
    expect(() => parseQdiscStatLine(cLine.replace('\t100\t2\t', '\t0\t2\t'))).toThrow(/user_hz/);
    expect(() => parseQdiscStatLine(cLine.replace('\t2\t401\t', '\tx\t401\t'))).toThrow(/cpus\[1\]\.cpu/);
    expect(() => parseQdiscStatLine('#end\treason=duration\tticks=1')).toThrow(/late/);
    expect(() => parseQdiscStatLine('#end\treason=crashed\tticks=1')).toThrow(/reason/);
    expect(() => parseQdiscStatLine('#end\tticks')).toThrow(/malformed end field/);
    expect(() => parseQdiscStatLine('{"type":"qdisc","tick":1}')).toThrow(QdiscStatParseError);
    expect(() =>
      parseQdiscStatLine(
        '{"type":"cpu","tick":1,"ts_ns":1,"mono_ns":1,"user_hz":100,"ncpu":1,"user":1,"nice":1,"system":1,"irq":1,"softirq":1,"idle":1,"iowait":1,"steal":1,"cpus":[]}',
      ),
    ).toThrow(/ncpu=1 but cpus has 0 entries/);
    expect(() => parseQdiscStatLine('{"type":"cpu","cpus":7}')).toThrow(/cpus is not an array/);
    expect(() => parseQdiscStatLine('{"type":')).toThrow(/invalid JSON/);
    expect(() => parseQdiscStatLine('{"type":"bogus"}')).toThrow(/unknown record type/);
    expect(() => parseQdiscStatLine('[1]')).toThrow(/unknown record kind/);
  });
});

describe('qdiscStatArgv', () => {
  it('builds an argv array with argv[0] = program', () => {
    expect(qdiscStatArgv({ hz: 50, durationS: 1, devs: ['ifb-fwd0', 'veth1'], cpu: true })).toEqual([
      'lfn-qdiscstat',
      '--hz',
      '50',
      '--duration',
      '1',
      '--dev',
      'ifb-fwd0',
      '--dev',
      'veth1',
      '--cpu',
      '--format',
      'tsv',
    ]);
    expect(
      qdiscStatArgv({ hz: 100, durationS: 0, format: 'jsonl', binary: '/opt/lfn/bin/lfn-qdiscstat' }),
    ).toEqual(['/opt/lfn/bin/lfn-qdiscstat', '--hz', '100', '--duration', '0', '--format', 'jsonl']);
  });

  it('rejects values the poller would refuse', () => {
    expect(() => qdiscStatArgv({ hz: 0, durationS: 1 })).toThrow(/hz/);
    expect(() => qdiscStatArgv({ hz: 101, durationS: 1 })).toThrow(/hz/);
    expect(() => qdiscStatArgv({ hz: 2.5, durationS: 1 })).toThrow(/hz/);
    expect(() => qdiscStatArgv({ hz: 10, durationS: -1 })).toThrow(/durationS/);
    expect(() => qdiscStatArgv({ hz: 10, durationS: Number.POSITIVE_INFINITY })).toThrow(/durationS/);
    for (const dev of ['', 'a'.repeat(16), 'a b', 'a/b', 'a:1', '..', 'x"y']) {
      expect(() => qdiscStatArgv({ hz: 10, durationS: 1, devs: [dev] })).toThrow(/device name/);
    }
  });
});

describe('cpuPercent', () => {
  const rec = (tick: number, total: CpuTimes, cpus: (CpuTimes & { cpu: number })[] = []): QdiscCpuRecord => ({
    type: 'cpu',
    tick,
    timeMs: tick * 10,
    monoMs: tick * 10,
    userHz: 100,
    total,
    cpus,
  });
  const zero: CpuTimes = { user: 0, nice: 0, system: 0, irq: 0, softirq: 0, idle: 0, iowait: 0, steal: 0 };

  it('splits the elapsed jiffies into shares, busy = everything but idle and iowait', () => {
    const prev = rec(0, zero, [
      { cpu: 0, ...zero },
      { cpu: 1, ...zero },
    ]);
    const cur = rec(
      100,
      { user: 60, nice: 10, system: 20, irq: 5, softirq: 45, idle: 50, iowait: 10, steal: 0 },
      [
        { cpu: 0, ...zero, softirq: 45, irq: 5, idle: 50 },
        { cpu: 1, user: 60, nice: 10, system: 20, irq: 0, softirq: 0, idle: 0, iowait: 10, steal: 0 },
      ],
    );
    const p = cpuPercent(prev, cur);
    expect(p).toMatchObject({
      jiffies: 200,
      total: 70,
      user: 30,
      nice: 5,
      system: 10,
      irq: 2.5,
      softirq: 22.5,
      idle: 25,
      iowait: 5,
      steal: 0,
    });
    expect(p.perCpu).toEqual([
      {
        cpu: 0,
        jiffies: 100,
        total: 50,
        user: 0,
        nice: 0,
        system: 0,
        irq: 5,
        softirq: 45,
        idle: 50,
        iowait: 0,
        steal: 0,
      },
      {
        cpu: 1,
        jiffies: 100,
        total: 90,
        user: 60,
        nice: 10,
        system: 20,
        irq: 0,
        softirq: 0,
        idle: 0,
        iowait: 10,
        steal: 0,
      },
    ]);
  });

  it('gives zero shares when no jiffy elapsed and ignores a per-CPU iowait that went backwards', () => {
    const a = rec(1, times(10), [{ cpu: 3, ...times(10) }]);
    expect(cpuPercent(a, rec(2, times(10)))).toEqual({
      jiffies: 0,
      total: 0,
      ...zero,
      perCpu: [],
    });
    const b = rec(5, times(10), [{ cpu: 3, ...times(10), idle: 26, iowait: 12 }]);
    expect(cpuPercent(a, b).perCpu).toEqual([{ cpu: 3, ...zero, jiffies: 10, idle: 100, total: 0 }]);
  });

  it('only compares CPUs present in both records and refuses mismatched records', () => {
    const a = rec(0, zero, [
      { cpu: 0, ...zero },
      { cpu: 1, ...zero },
    ]);
    const b = rec(1, times(0), [
      { cpu: 1, ...times(0) },
      { cpu: 2, ...times(0) },
    ]);
    expect(cpuPercent(a, b).perCpu.map((c) => c.cpu)).toEqual([1]);
    expect(() => cpuPercent(b, a)).toThrow(/out of order/);
    expect(() => cpuPercent(a, { ...b, userHz: 250 })).toThrow(/user_hz/);
  });
});

// ---- integration: build the real binary and poll a real tbf bottleneck between two namespaces ----

const gccAvailable = runs('gcc');
const canRun = isRoot && gccAvailable;
const SKIP_REASON = !isRoot
  ? 'needs root: creates network namespaces, a veth pair and a tbf qdisc'
  : 'gcc not found on PATH: cannot build emulator/sampler (lfn-qdiscstat)';

const NET = new VethPair({ prefix: 'lfnq-test-', devA: 'lfnq-a', devB: 'lfnq-b' });
const { nsA: NS_A, nsB: NS_B, devA: DEV_A, devB: DEV_B, addrB: ADDR_B } = NET;

function parseAll(lines: string[]) {
  const qdiscs: QdiscRecord[] = [];
  const cpus: QdiscCpuRecord[] = [];
  const ends: QdiscStatEnd[] = [];
  for (const l of lines) {
    const r = parseQdiscStatLine(l);
    if (r?.type === 'qdisc') qdiscs.push(r);
    else if (r?.type === 'cpu') cpus.push(r);
    else if (r?.type === 'end') ends.push(r);
  }
  return { qdiscs, cpus, ends };
}

// Paced UDP blaster: 20 × 1400-byte datagrams every 5 ms (~45 Mbit/s), far over the 10 Mbit/s tbf, so
// the queue stands and drops. Prints "ready" once the first datagram has left the socket.
const SENDER = `
const s = require('node:dgram').createSocket('udp4');
const buf = Buffer.alloc(1400, 0x5a);
const [host, port] = process.argv.slice(1);
let ready = false;
setInterval(() => {
  for (let i = 0; i < 20; i++) s.send(buf, Number(port), host, (err) => {
    if (err) { console.error(err.message); process.exit(1); }
    if (!ready) { ready = true; process.stdout.write('ready\\n'); }
  });
}, 5);
process.on('SIGTERM', () => process.exit(0));
`;

describe('lfn-qdiscstat on a tbf bottleneck between two namespaces', () => {
  let sender: ChildProcess | undefined;

  async function stopSender(): Promise<void> {
    const child = sender;
    sender = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }

  function cleanup(): void {
    sender?.kill('SIGKILL');
    NET.delete();
  }

  beforeAll(async () => {
    if (!canRun) return;
    await make(SAMPLER_DIR);
    NET.create();
    try {
      addTbf(NS_A, DEV_A, { rate: '10mbit', burst: '3000', limit: '30000' });
    } catch (err) {
      cleanup();
      throw err;
    }
  }, 150_000);

  afterAll(async () => {
    if (!canRun) return;
    try {
      await stopSender();
    } finally {
      cleanup();
    }
  });

  it('prints the header and column lines the parser expects, and rejects bad usage', async (ctx) => {
    ctx.skip(!canRun, SKIP_REASON);
    const run = await runLines(
      inNs(NS_A, qdiscStatArgv({ hz: 1, durationS: 0.001, cpu: true, binary: POLLER_BIN })),
    );
    expect(run.code).toBe(0);
    expect(run.lines[0]).toMatch(/^# lfn-qdiscstat v1 hz=1 duration_s=0.001 devs=all cpu=1 user_hz=\d+$/);
    expect(run.lines[1]).toBe(`#${QDISC_STAT_QDISC_COLUMNS.join('\t')}`);
    expect(run.lines[2]).toBe(`#${QDISC_STAT_CPU_COLUMNS.join('\t')}`);

    const bad = spawnSync(POLLER_BIN, ['--hz', '101'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--hz must be an integer 1\.\.100/);
    const help = spawnSync(POLLER_BIN, ['--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    for (const c of QDISC_STAT_QDISC_COLUMNS) expect(help.stdout).toContain(`  ${c} `);
    for (const c of CPU_TIME_FIELDS) expect(help.stdout).toContain(`  ${c} `);
  });

  it('polls the tbf qdisc at 50 Hz for 1 s under load and accounts for every record', async (ctx) => {
    ctx.skip(!canRun, SKIP_REASON);
    const [program, ...args] = inNs(NS_A, [process.execPath, '-e', SENDER, ADDR_B, '9']);
    const child = spawn(program as string, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    sender = child;
    child.stdout?.setEncoding('utf8');
    // Traffic is flowing once the sender says so; if it dies first, fail instead of waiting forever.
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (d: string) => {
        if (d.includes('ready')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`UDP sender exited early (${code})`)));
      child.once('error', reject);
    });

    const run = await runLines(
      inNs(NS_A, qdiscStatArgv({ hz: 50, durationS: 1, devs: [DEV_A], cpu: true, binary: POLLER_BIN })),
    );
    await stopSender();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);

    const { qdiscs, cpus, ends } = parseAll(run.lines);
    expect(ends).toHaveLength(1);
    expect(run.lines.at(-1)).toMatch(/^#end\t/);
    const end = ends[0] as QdiscStatEnd;
    expect(end.reason).toBe('duration');
    expect(end.errors).toBe(0);
    expect(end.vanished).toBe(0);
    expect(end.records).toBe(qdiscs.length);
    expect(end.cpuRecords).toBe(cpus.length);
    // Every one of the 50 slots is either polled or counted as skipped.
    expect(end.ticks + end.skipped).toBe(50);
    expect(end.cpuMs).toBeGreaterThan(end.startupCpuMs);
    expect(end.startupCpuMs).toBeGreaterThan(0);

    // Only the one device asked for, and on it only the tbf root.
    const tbf = qdiscs.filter((q) => q.kind === 'tbf');
    expect(tbf).toHaveLength(qdiscs.length);
    expect(tbf.length).toBeGreaterThanOrEqual(45);
    expect(tbf.length).toBeLessThanOrEqual(55);
    expect(cpus).toHaveLength(tbf.length);
    for (const q of tbf) {
      expect(q).toMatchObject({ dev: DEV_A, kind: 'tbf', parent: 'root' });
      expect(q.handle).toMatch(/^[0-9a-f]+:$/);
      expect(Number.isInteger(q.qlen)).toBe(true);
      expect(Number.isInteger(q.backlogBytes)).toBe(true);
      expect(q.backlogBytes).toBeLessThanOrEqual(30000 + 1500);
    }
    for (let i = 1; i < tbf.length; i++) {
      const [a, b] = [tbf[i - 1] as QdiscRecord, tbf[i] as QdiscRecord];
      expect(b.tick).toBeGreaterThan(a.tick);
      expect(b.monoMs).toBeGreaterThan(a.monoMs);
      expect(b.bytes).toBeGreaterThanOrEqual(a.bytes);
      expect(b.packets).toBeGreaterThanOrEqual(a.packets);
      expect(b.drops).toBeGreaterThanOrEqual(a.drops);
    }
    const first = tbf[0] as QdiscRecord;
    const last = tbf.at(-1) as QdiscRecord;
    expect(last.bytes).toBeGreaterThan(first.bytes);
    expect(last.packets).toBeGreaterThan(first.packets);
    // ~1 s at 10 Mbit/s is ~1.25 MB; the sender offers several times that, so the queue stands and drops.
    expect(last.bytes - first.bytes).toBeGreaterThan(500_000);
    expect(last.bytes - first.bytes).toBeLessThan(2_500_000);
    expect(last.drops).toBeGreaterThan(first.drops);
    expect(Math.max(...tbf.map((q) => q.backlogBytes))).toBeGreaterThan(0);

    // CPU records: one per tick, every online CPU, counters that only move forward in total.
    for (const c of cpus) expect(c.cpus).toHaveLength(os.cpus().length);
    const c0 = cpus[0] as QdiscCpuRecord;
    const c1 = cpus.at(-1) as QdiscCpuRecord;
    expect(c1.total.idle + c1.total.user).toBeGreaterThan(c0.total.idle + c0.total.user);
    const pct = cpuPercent(c0, c1);
    expect(pct.jiffies).toBeGreaterThan(0);
    expect(pct.total).toBeGreaterThanOrEqual(0);
    expect(pct.total).toBeLessThanOrEqual(100);
  }, 60_000);

  it('stops on SIGTERM with a JSONL end record that matches what was written, all devices', async (ctx) => {
    ctx.skip(!canRun, SKIP_REASON);
    let signalled = false;
    const run = await runLines(
      inNs(NS_A, qdiscStatArgv({ hz: 100, durationS: 0, cpu: true, format: 'jsonl', binary: POLLER_BIN })),
      (line, child) => {
        // React to real output rather than a timer: terminate once a few ticks have been seen.
        const rec = parseQdiscStatLine(line);
        if (!signalled && rec?.type === 'cpu' && rec.tick >= 3) {
          signalled = true;
          child.kill('SIGTERM');
        }
      },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.signal).toBeNull();
    expect(run.lines[0]).toMatch(/^\{"type":"start","version":1,/);
    const { qdiscs, cpus, ends } = parseAll(run.lines);
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatchObject({
      reason: 'signal',
      records: qdiscs.length,
      cpuRecords: cpus.length,
      vanished: 0,
      errors: 0,
    });
    expect(ends[0]?.ticks).toBeGreaterThanOrEqual(4);
    // Without --dev: the namespace's loopback (noqueue) and the veth's tbf, every tick.
    const kinds = new Set(qdiscs.map((q) => `${q.dev}/${q.kind}/${q.parent}`));
    expect(kinds).toEqual(new Set(['lo/noqueue/root', `${DEV_A}/tbf/root`]));
    expect(qdiscs).toHaveLength(2 * (ends[0]?.ticks ?? 0));
  }, 30_000);

  it('follows a device rename while running', async (ctx) => {
    ctx.skip(!canRun, SKIP_REASON);
    const renamed = 'lfnq-b2';
    let state: 'before' | 'renamed' | 'done' = 'before';
    const run = await runLines(
      // The duration only bounds a failing run; a passing one ends on SIGTERM.
      inNs(NS_B, qdiscStatArgv({ hz: 50, durationS: 10, devs: [DEV_B, renamed], binary: POLLER_BIN })),
      (line, child) => {
        const rec = parseQdiscStatLine(line);
        if (rec?.type !== 'qdisc') return;
        if (state === 'before' && rec.tick >= 2) {
          state = 'renamed';
          for (const args of [
            ['set', DEV_B, 'down'],
            ['set', DEV_B, 'name', renamed],
            ['set', renamed, 'up'],
          ]) {
            sh(['ip', '-n', NS_B, 'link', ...args]);
          }
        } else if (state === 'renamed' && rec.dev === renamed) {
          state = 'done';
          child.kill('SIGTERM');
        }
      },
    );
    expect(state).toBe('done');
    expect(run.code).toBe(0);
    const { qdiscs, ends } = parseAll(run.lines);
    expect(ends[0]).toMatchObject({ reason: 'signal', records: qdiscs.length, vanished: 0, errors: 0 });
    const names = qdiscs.map((q) => q.dev);
    // Old name first, new name after, and never the old name again once the new one was seen.
    expect(names[0]).toBe(DEV_B);
    expect(names.at(-1)).toBe(renamed);
    expect(names.slice(names.indexOf(renamed))).not.toContain(DEV_B);
    expect(new Set(qdiscs.map((q) => q.ifindex)).size).toBe(1);
  }, 30_000);
});
