import { describe, expect, it } from 'vitest';
import {
  FLOWMETER_COLUMNS,
  FlowmeterParseError,
  parseFlowmeterLine,
  parseFlowmeterOutput,
} from './flowmeter.js';

const HEADER = `# lfn-flowmeter v1 hz=10 duration_s=0 a=ma b=mb\n#${FLOWMETER_COLUMNS.join('\t')}\n`;
const row = (...f: (string | number)[]) => f.join('\t');
const DATA = row(
  12,
  '1795676266845869625',
  '49953314015163',
  'a',
  '10.77.0.1:60252>10.77.0.2:5201',
  246197,
  173,
  217237,
  153,
  217237,
  2,
  28960,
  45,
  5,
  10017,
  12764,
);
const ACKS = row(
  12,
  '1795676266845869625',
  '49953314015163',
  'b',
  '10.77.0.2:5201>10.77.0.1:60252',
  0,
  95,
  0,
  95,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
);
const END =
  '#end\treason=signal\tticks=47\tlate=1\tskipped=2\trecords=70\terrors=0\tmax_work_ns=63725\telapsed_ns=4665290169' +
  '\tcpu_ns=57760509\tframes=17191\tignored=3\tdrops=0\tflows=4\toverflows=0\tts_full=55\tholes_full=1\trestamped=7';

describe('lfn-flowmeter output', () => {
  it('gives one typed record per half-flow and tick, and the closing counters', () => {
    const out = parseFlowmeterOutput(`${HEADER}${DATA}\n${ACKS}\n${END}\n`);
    expect(out.malformed).toEqual([]);
    expect(out.truncated).toBe(false);
    expect(out.records).toHaveLength(2);
    expect(out.records[0]).toEqual({
      type: 'flow',
      tick: 12,
      t: 1795676266845 + 0.869625,
      monoMs: 49953314.015163,
      side: 'a',
      flow: '10.77.0.1:60252>10.77.0.2:5201',
      src: '10.77.0.1',
      srcPort: 60252,
      dst: '10.77.0.2',
      dstPort: 5201,
      inBytes: 246197,
      inPackets: 173,
      outBytes: 217237,
      outPackets: 153,
      newBytes: 217237,
      retransIn: 2,
      flightBytes: 28960,
      rttN: 45,
      rttMinUs: 5,
      rttMeanUs: 10017,
      rttMaxUs: 12764,
    });
    // No samples: no RTT, rather than an RTT of 0.
    expect(out.records[1]).toMatchObject({
      side: 'b',
      rttN: 0,
      rttMinUs: null,
      rttMeanUs: null,
      rttMaxUs: null,
    });
    expect(out.end).toEqual({
      type: 'end',
      reason: 'signal',
      ticks: 47,
      late: 1,
      skipped: 2,
      records: 70,
      errors: 0,
      maxWorkMs: 0.063725,
      elapsedMs: 4665.290169,
      cpuMs: 57.760509,
      frames: 17191,
      ignored: 3,
      drops: 0,
      flows: 4,
      overflows: 0,
      tsFull: 55,
      holesFull: 1,
      restamped: 7,
    });
  });

  it('keeps the µs of ns since the epoch and counters past 32 bits', () => {
    // A wrapped sequence space shows up as ordinary counts; the parser must not cap them at 2^32.
    const big = row(
      3,
      '1795676266845869625',
      '1',
      'b',
      '192.168.0.2:443>10.0.0.1:1',
      4294967296 + 1448,
      1,
      0,
      0,
      0,
      0,
      4294965000,
      1,
      1,
      1,
      1,
    );
    const r = parseFlowmeterLine(big);
    expect(r).toMatchObject({ inBytes: 4294968744, flightBytes: 4294965000, monoMs: 0.000001 });
    expect(r?.type === 'flow' && r.t - 1795676266845).toBeCloseTo(0.8696, 3);
  });

  it('leaves out a last line cut mid-write (it could parse as a smaller number) and says so', () => {
    const cut = `${HEADER}${DATA}\n${ACKS.slice(0, -3)}`;
    const out = parseFlowmeterOutput(cut);
    expect(out.truncated).toBe(true);
    expect(out.records.map((r) => r.side)).toEqual(['a']);
    expect(out.end).toBeNull();
    expect(out.malformed).toEqual([]);
  });

  it('collects malformed lines with the field named and reads on', () => {
    const bad = [
      row(1, '1', '1', 'a', '10.0.0.1:1>10.0.0.2:2', 1, 1, 1, 1, 1, 0, 0, 0, 0, 0), // 15 fields
      DATA.replace('\ta\t', '\tc\t'),
      DATA.replace('10.77.0.1:60252', '10.77.0.300:60252'),
      DATA.replace('10.77.0.2:5201', '10.77.0.2:0'),
      DATA.replace('\t246197\t', '\t-5\t'),
      '#end\treason=crash\tticks=1',
    ];
    const out = parseFlowmeterOutput(`${HEADER}${bad.join('\n')}\n${DATA}\n`);
    expect(out.records).toHaveLength(1);
    expect(out.malformed.map((m) => m.error.split(':')[0])).toEqual([
      'expected 16 tab-separated fields, got 15',
      "side must be a or b (got 'c')",
      'flow source must be an IPv4 address',
      'flow destination port must be 1..65535 (got 0)',
      'in_bytes is not a non-negative integer (-5)',
      'unknown end reason',
    ]);
    expect(() => parseFlowmeterLine(bad[4] as string)).toThrow(FlowmeterParseError);
  });

  it('refuses another format version and skips comments and blank lines', () => {
    expect(() => parseFlowmeterLine('# lfn-flowmeter v2 hz=10')).toThrow(/v1 \(got v2\)/);
    expect(parseFlowmeterLine('# a comment')).toBeNull();
    expect(parseFlowmeterLine('\r\n')).toBeNull();
    expect(parseFlowmeterLine(`${DATA}\r\n`)).toMatchObject({ rttMaxUs: 12764 });
  });
});
