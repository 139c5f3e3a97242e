import { type PktTimingWindow, validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { checkDelayJitter, checkPacketSpacing, rateAt, timingStats } from './timingChecks.js';

const spec = (() => {
  const v = validateSpec({
    name: 't',
    duration: '10s',
    paths: {
      main: { rtt: '20ms', rate: '20Mbit', changes: [{ at: '5s', rate: '40Mbit' }] },
    },
    flows: [{ stack: 'reno' }],
  });
  if (!v.ok) throw new Error('bad spec');
  return v.spec;
})();

/** The bin whose range holds `nsPerByte`. */
const binOf = (nsPerByte: number) => Math.floor(Math.log(nsPerByte / 0.01) / Math.log(1.01));

const T0 = 1_000_000;
function win(t: number, bins: [number, number][], extra: Partial<PktTimingWindow> = {}): PktTimingWindow {
  const busy = bins.reduce((a, [, c]) => a + c, 0);
  return {
    type: 'window',
    tick: t,
    timeMs: T0 + t * 1000,
    monoMs: 0,
    dir: 'main.forward',
    departures: busy,
    matched: busy,
    busy,
    egressed: busy,
    delay: { n: busy, minMs: 9.99, p1Ms: 10, p50Ms: 10.01, p99Ms: 10.05, maxMs: 10.1 },
    captureDrops: 0,
    bins: new Map(bins),
    ...extra,
  };
}

describe('packet timing', () => {
  it('judges each window against the rate in force: exact gaps before and after a rate change pass', () => {
    expect(rateAt(spec, 'main', 'forward', 4.9)).toBe(20e6);
    expect(rateAt(spec, 'main', 'forward', 5.1)).toBe(40e6);
    // 400 ns/byte at 20 Mbit/s for windows ending at 1..5 s; 200 ns/byte at 40 Mbit/s after.
    const ws = [1, 2, 3, 4, 5].map((t) => win(t, [[binOf(400), 300]]));
    ws.push(...[6, 7, 8].map((t) => win(t, [[binOf(200), 300]])));
    const [fwd] = timingStats(spec, ws, T0, 10, 1);
    expect(fwd?.gaps.busy).toBe(2400);
    expect(fwd?.gaps.within10).toBe(1);
    expect(fwd?.gaps.p50).toBeCloseTo(1, 1);
    // 1500 gaps at 400 ns/byte and 900 at 200: both the served and the configured rate are 24.6 Mbit/s.
    expect((fwd?.gaps.configuredBps ?? 0) / 1e6).toBeCloseTo(24.62, 1);
    expect((fwd?.gaps.servedBps ?? 0) / (fwd?.gaps.configuredBps ?? 1)).toBeCloseTo(1, 2);
    expect(checkPacketSpacing(fwd as never).status).toBe('pass');
  });

  it('fails bunched releases (gaps near zero and long gaps), warns in between, skips too few gaps', () => {
    const bunched = [1, 2, 3].map((t) =>
      win(t, [
        [binOf(400), 100],
        [binOf(5), 150],
        [binOf(2000), 50],
      ]),
    );
    const [b] = timingStats(spec, bunched, T0, 10, 1);
    expect(b?.gaps.within10).toBeCloseTo(1 / 3, 2);
    // Half the gaps near zero: by its median gap the link served 80 times its rate while busy,
    // which the rate check fails as it should.
    expect((b?.gaps.servedBps ?? 0) / (b?.gaps.configuredBps ?? 1)).toBeGreaterThan(50);
    const c = checkPacketSpacing(b as never);
    expect(c.status).toBe('fail');
    expect(c.message).toMatch(/bunches/);
    const [w] = timingStats(
      spec,
      [1, 2, 3].map((t) =>
        win(t, [
          [binOf(400), 80],
          [binOf(5), 20],
        ]),
      ),
      T0,
      10,
      1,
    );
    expect(checkPacketSpacing(w as never).status).toBe('warn');
    const [few] = timingStats(spec, [win(1, [[binOf(400), 50]])], T0, 10, 1);
    expect(checkPacketSpacing(few as never).status).toBe('skip');
  });

  it('says how the gaps outside ±10 % fall: bunches, a slow link, or single packets jittered by turns', () => {
    const judged = (bins: [number, number][]) =>
      checkPacketSpacing(
        timingStats(
          spec,
          [1, 2, 3].map((t) => win(t, bins)),
          T0,
          10,
          1,
        )[0] as never,
      );
    // Measured in a dilated lab at 100 Mbit/s: 8.9 % short and 7.8 % long, the rate kept.
    const jitter = judged([
      [binOf(400), 83],
      [binOf(340), 9],
      [binOf(470), 8],
    ]);
    expect(jitter.status).toBe('warn');
    expect(jitter.message).toMatch(/9\.0 % of gaps short and 8\.0 % long, by turns: .*not in bunches/);
    const slow = judged([
      [binOf(400), 80],
      [binOf(500), 20],
    ]);
    expect(slow.message).toMatch(/gaps ran long \(20\.0 %, 0\.0 % short\): the link released packets slower/);
  });

  it('leaves out windows where the capture lost frames, and windows outside the traffic phase', () => {
    const ws = [
      win(1, [[binOf(5), 500]], { captureDrops: 3 }),
      win(2, [[binOf(400), 300]]),
      win(30, [[binOf(5), 900]]),
    ];
    const [d] = timingStats(spec, ws, T0, 10, 1);
    expect(d?.windows).toBe(2);
    expect(d?.windowsExcluded).toBe(1);
    expect(d?.gaps.within10).toBe(1);
  });

  it('judges the delay stage by the spread it adds beyond its configured jitter', () => {
    const tight = timingStats(
      spec,
      [1, 2].map((t) => win(t, [[binOf(400), 300]])),
      T0,
      10,
      1,
    )[0];
    expect(checkDelayJitter(tight as never, 0).status).toBe('pass');
    const late = [1, 2].map((t) =>
      win(t, [[binOf(400), 300]], {
        delay: { n: 300, minMs: 10, p1Ms: 10, p50Ms: 11, p99Ms: 14, maxMs: 15 },
      }),
    );
    const d = timingStats(spec, late, T0, 10, 1)[0];
    expect(checkDelayJitter(d as never, 0).status).toBe('fail');
    expect(checkDelayJitter(d as never, 2).status).toBe('pass'); // ±2 ms configured: 4 ms of spread allowed
  });
});

describe('packet spacing on a lightly used link', () => {
  it("is not judged below 5 % of the rate (a forward flow's ACKs), and judged above", () => {
    const ws = [1, 2, 3].map((t) => win(t, [[binOf(5), 300]]));
    const [d] = timingStats(spec, ws, T0, 10, 1);
    expect(checkPacketSpacing(d as never, 0.014).status).toBe('skip');
    expect(checkPacketSpacing(d as never, 0.08).status).toBe('fail');
  });
});

describe("the lab tests' allowance for delay-stage jitter", () => {
  it('accepts the check’s own warning and nothing else', async () => {
    const { expectValidButForDelayJitter } = await import('../../test/support/verdict.js');
    const spread = (ms: number) =>
      checkDelayJitter(
        { path: 'main', direction: 'reverse', delay: { n: 300, medianMs: 19.956, spreadMs: ms } } as never,
        0,
      );
    const warned = spread(0.754);
    expect(warned.status).toBe('warn');
    expectValidButForDelayJitter('suspect', [warned.message], 'warned');
    expectValidButForDelayJitter('valid', [], 'valid');
    expect(() => expectValidButForDelayJitter('invalid', [spread(1.5).message], 'failed')).toThrow();
    expect(() =>
      expectValidButForDelayJitter('suspect', [warned.message, 'main forward: 88 % of the rate'], 'rate'),
    ).toThrow();
  });
});
