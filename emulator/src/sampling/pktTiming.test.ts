import { describe, expect, it } from 'vitest';
import { binRange, parsePktTimingLine, pktTimingArgv } from './pktTiming.js';

describe('lfn-pkttiming argv', () => {
  it('names each direction by its IFB and egress device, and checks the window', () => {
    expect(
      pktTimingArgv({
        dirs: [{ name: 'main.forward', ifb: 'p0-fwd', egress: 'p0-rcv' }],
        windowMs: 250,
        everyMs: 1000,
      }),
    ).toEqual([
      'lfn-pkttiming',
      '--dir',
      'main.forward,p0-fwd,p0-rcv',
      '--window-ms',
      '250',
      '--every-ms',
      '1000',
      '--duration',
      '0',
    ]);
    expect(() => pktTimingArgv({ dirs: [], windowMs: 1000, everyMs: 1000 })).toThrow(/1 to 32/);
    expect(() =>
      pktTimingArgv({ dirs: [{ name: 'a', ifb: 'x', egress: 'y' }], windowMs: 2000, everyMs: 1000 }),
    ).toThrow(/--window-ms must not exceed/);
    expect(() =>
      pktTimingArgv({ dirs: [{ name: 'a,b', ifb: 'x', egress: 'y' }], windowMs: 10, everyMs: 10 }),
    ).toThrow(/not plain/);
  });
});

describe('lfn-pkttiming output', () => {
  const rec =
    'w\t3\t1795558070328974484\t4653230190673\tmain.forward\t1649\t1649\t1647\t1649\t1649\t1692\t2680\t17442\t49217\t72734\t0\t1036:5,1064:1600,1070:42';
  it('parses a window record: counts, delay quantiles in ms, the sparse histogram', () => {
    const r = parsePktTimingLine(rec);
    expect(r).toMatchObject({
      type: 'window',
      tick: 3,
      dir: 'main.forward',
      departures: 1649,
      busy: 1647,
      captureDrops: 0,
      delay: { n: 1649, minMs: 0.001692, p50Ms: 0.017442, p99Ms: 0.049217 },
    });
    expect(r?.type === 'window' && [...r.bins.entries()]).toEqual([
      [1036, 5],
      [1064, 1600],
      [1070, 42],
    ]);
  });
  it('parses the end record, skips headers, refuses another format version and broken records', () => {
    expect(parsePktTimingLine('#w\ttick\tts_ns')).toBeNull();
    expect(parsePktTimingLine('#lfn-pkttiming\tv1\tdirs=2')).toBeNull();
    expect(() => parsePktTimingLine('#lfn-pkttiming\tv2\tdirs=2')).toThrow(/v2/);
    expect(
      parsePktTimingLine(
        '#end\treason=signal\twindows=5\trecords=10\tcaptured=100\tarrivals=40\tunkeyed=0\tdrops=0',
      ),
    ).toMatchObject({
      type: 'end',
      reason: 'signal',
      windows: 5,
      drops: 0,
    });
    expect(() => parsePktTimingLine('w\t1\t2')).toThrow();
    expect(() => parsePktTimingLine(rec.replace('1064:1600', '1064:x'))).toThrow(/bad bin/);
  });
  it('bins are 1 % wide on a log scale from 0.01 ns per byte', () => {
    const [lo, hi] = binRange(1064);
    expect(hi / lo).toBeCloseTo(1.01, 10);
    // One frame at 20 Mbit/s is 400 ns per byte: 0.01 · 1.01^b = 400 at b ≈ 1064.9.
    expect(lo).toBeLessThan(400);
    expect(binRange(1065)[1]).toBeGreaterThan(400);
  });
});
