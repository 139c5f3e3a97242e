import { SpecSchema } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { checkCrossTraffic, generatorEnd } from './crossCheck.js';
import { fidelity } from './fidelity.js';

/** lfn-udpgen's output as a run records it: header, columns, intervals, #end, then its stderr. */
function report(end: Record<string, string | number>): string {
  const fields = {
    reason: 'duration',
    sent: 46875,
    ip_bytes: 70312500,
    late: 26,
    skipped: 0,
    errors: 0,
    intended_bps: 9375000,
    max_late_ns: 5804602,
    elapsed_ns: 60000004020,
    cpu_ns: 849848851,
    ...end,
  };
  return [
    '# lfn-udpgen v1 dest=10.1.2.2:6001 pattern=sine mean_bps=9375000 amplitude_bps=5625000 period_s=60 size=1472 ip_bytes=1500 report_hz=10 duration_s=60 burst=4 max_lag_s=0.01 dry_run=0 start_mono_ns=199198158562 start_ts_ns=1796446745842159319',
    '#tick\tts_ns\tmono_ns\tinterval_ns\tdatagrams\tip_bytes\tintended_bps\tlate\tskipped\terrors',
    '0\t1796446745842159319\t199198158562\t100000000\t79\t118500\t9404452\t0\t0\t0',
    `#end\t${Object.entries(fields)
      .map(([k, v]) => `${k}=${v}`)
      .join('\t')}`,
    '',
    '# stderr',
    'lfn-udpgen: a line the program wrote to stderr',
  ].join('\n');
}

describe('cross-traffic check', () => {
  it("passes a generator that sent its pattern's rate, and says what it sent", () => {
    // A sinusoidal run of the seed000-sinusoidal reproduction: 46 875 datagrams of 1500 B in 60 s.
    const c = checkCrossTraffic('main-udp1', report({}));
    expect(c).toMatchObject({ id: 'cross-traffic:main-udp1', status: 'pass' });
    expect(c.measured).toBeCloseTo(1, 4);
    expect(c.message).toBe(
      'main-udp1: sent 9.375 Mbit/s of the 9.375 Mbit/s its pattern asked for over 60.0 s (100.00 %); 0 of 46875 datagrams skipped, 0 refused, 26 late by at most 5.8 ms',
    );
    // 8 skipped of 46 875 (a 16-stream run beside it): 0.02 %, still on schedule.
    expect(
      checkCrossTraffic('main-udp1', report({ sent: 46867, ip_bytes: 70300500, skipped: 8 })).status,
    ).toBe('pass');
  });

  it('makes a run suspect when the generator fell behind, invalid when the path lacked its traffic', () => {
    // 300 datagrams skipped (0.6 % of the schedule): the rate is within 1 %, the schedule is not.
    const behind = checkCrossTraffic('main-udp1', report({ sent: 46575, ip_bytes: 69862500, skipped: 300 }));
    expect(behind.status).toBe('warn');
    expect(behind.message).toContain('300 of 46875 datagrams skipped');
    // 15 % short: the path carried another load than the spec's.
    const short = checkCrossTraffic('main-udp1', report({ sent: 39844, ip_bytes: 59766000, skipped: 7031 }));
    expect(short.status).toBe('fail');
    expect(short.measured).toBeCloseTo(0.85, 2);
    // Sends the kernel refused count as missed, as skipped ones do.
    expect(
      checkCrossTraffic('main-udp1', report({ sent: 46375, ip_bytes: 69562500, errors: 500 })).status,
    ).toBe('fail');
  });

  it('fails a generator that stopped early or left no closing record', () => {
    const cut = checkCrossTraffic('main-udp1', report({ reason: 'signal', elapsed_ns: 12500000000 }));
    expect(cut).toMatchObject({ status: 'fail', measured: null });
    expect(cut.message).toBe('main-udp1: the UDP generator stopped early (signal) after 12.5 s');
    for (const none of [null, report({}).split('\n#end')[0] as string])
      expect(checkCrossTraffic('main-udp1', none)).toMatchObject({
        status: 'fail',
        message: 'main-udp1: the UDP generator left no closing record, so what it sent is unknown',
      });
    expect(generatorEnd('')).toBeNull();
    // A closing line cut off mid-way (the lab died while writing it) is no account either.
    expect(generatorEnd('#end\treason=duration\tsent=46875\tip_by')).toBeNull();
  });

  it("is one of the verdict's checks for each source the run was given, and absent without them", () => {
    const spec = SpecSchema.parse({
      name: 'x',
      duration: '10s',
      paths: { main: { rtt: '20ms', rate: '10Mbit' } },
      flows: [{ stack: 'reno' }],
    });
    const base = {
      spec,
      paths: [],
      idleRtt: {},
      qdiscBefore: [],
      qdiscAfter: [],
      linksBefore: {},
      linksAfter: {},
      queue: [],
      cpu: [],
      samplers: [],
      trafficS: [0, 10] as [number, number],
    };
    const judged = fidelity({ ...base, crossReports: { 'main-udp1': report({}), 'main-udp2': null } });
    expect(
      judged.checks.filter((c) => c.id.startsWith('cross-traffic:')).map((c) => [c.id, c.status]),
    ).toEqual([
      ['cross-traffic:main-udp1', 'pass'],
      ['cross-traffic:main-udp2', 'fail'],
    ]);
    expect(judged.verdict).toBe('invalid');
    expect(fidelity(base).checks.some((c) => c.id.startsWith('cross-traffic:'))).toBe(false);
  });
});
