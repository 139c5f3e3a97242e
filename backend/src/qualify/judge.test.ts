import { describe, expect, it } from 'vitest';
import { exitCodeOf, judgeCase, judgeSuite, meanInterval } from './judge.js';
import type { RunMeasurement } from './measure.js';
import type { ResolvedBound } from './suite.js';

const run = (i: number, over: Partial<RunMeasurement> = {}): RunMeasurement => ({
  id: `001-cubic-r${i}`,
  condition: 'plain',
  stack: 'cubic',
  repetition: i,
  status: 'completed',
  verdict: 'valid',
  reasons: [],
  seconds: 20,
  metrics: { goodput_share: 0.9, recovery_time: 4 },
  ...over,
});

const SHARE: ResolvedBound = { metric: 'goodput_share', min: 0.8 };
const RECOVERY: ResolvedBound = { metric: 'recovery_time', max: 10 };

describe('judgeCase', () => {
  it('passes when every mean is within its bound, with n and a 95 % interval', () => {
    const c = judgeCase(
      'plain',
      'cubic',
      [run(1), run(2), run(3, { metrics: { goodput_share: 0.93, recovery_time: 5 } })],
      [SHARE, RECOVERY],
    );
    expect(c.outcome).toBe('pass');
    expect(c.message).toBe('');
    expect(c.seconds).toBe(60);
    const share = c.metrics[0];
    expect(share?.mean).toBeCloseTo(0.91, 12);
    expect(share?.n).toBe(3);
    // Three runs: the t interval on 2 df, 0.91 ± 4.303 · s/√3 with s = 0.0173.
    expect(share?.ci?.low).toBeCloseTo(0.91 - 4.3027 * 0.01, 3);
    expect(share?.ci?.high).toBeCloseTo(0.91 + 4.3027 * 0.01, 3);
  });

  it('fails on a missed bound, naming value, bound, unit, n and interval', () => {
    const runs = [0.58, 0.62, 0.66].map((g, i) =>
      run(i + 1, { metrics: { goodput_share: g, recovery_time: 12 } }),
    );
    const c = judgeCase('plain', 'cubic', runs, [SHARE, RECOVERY]);
    expect(c.outcome).toBe('failure');
    const [share, recovery] = c.message.split('; ');
    expect(share).toMatch(/^goodput share of the link 0\.62 < min 0\.80 \(n=3, 95 % CI 0\.\d\d–0\.\d\d\)$/);
    expect(recovery).toBe('loss recovery time 12.0 s > max 10.0 s (n=3, 95 % CI 12.0–12.0 s)');
  });

  it('gives no interval for one run', () => {
    const c = judgeCase('plain', 'cubic', [run(1, { metrics: { goodput_share: 0.5 } })], [SHARE]);
    expect(c.message).toBe('goodput share of the link 0.50 < min 0.80 (n=1)');
    expect(c.metrics[0]?.ci).toBeNull();
  });

  it('is an error, never a pass, when a run’s verdict is not valid, with the verdict’s reason', () => {
    for (const verdict of ['invalid', 'suspect'] as const) {
      const c = judgeCase(
        'plain',
        'cubic',
        [run(1), run(2, { verdict, reasons: ['rate off by 12 %'], metrics: { goodput_share: 0.1 } })],
        [SHARE],
      );
      expect(c.outcome).toBe('error');
      expect(c.message).toBe(`run 001-cubic-r2 verdict ${verdict}: rate off by 12 %`);
      // Values stay visible, but no bound is judged on runs the lab cannot vouch for.
      expect(c.metrics[0]?.pass).toBeNull();
    }
  });

  it('is an error when a run failed or is missing', () => {
    const c = judgeCase(
      'plain',
      'cubic',
      [
        run(1, { status: 'failed', verdict: null, reasons: ['lab did not boot'] }),
        run(2, { status: 'missing', verdict: null, reasons: [] }),
      ],
      [SHARE],
    );
    expect(c.outcome).toBe('error');
    expect(c.message).toBe('run 001-cubic-r1 failed: lab did not boot; run 001-cubic-r2 missing');
  });

  it('is an error when a bounded metric was not measured, even if others fail', () => {
    const c = judgeCase(
      'plain',
      'cubic',
      [run(1, { metrics: { goodput_share: 0.1 } }), run(2)],
      [SHARE, RECOVERY],
    );
    expect(c.outcome).toBe('error');
    expect(c.message).toBe(
      'loss recovery time not measured in run 001-cubic-r1; goodput share of the link 0.50 < min 0.80 (n=2, 95 % CI -4.58–5.58)',
    );
  });

  it('is an error when the cell has no runs', () => {
    expect(judgeCase('plain', 'cubic', [], [SHARE]).outcome).toBe('error');
  });
});

describe('judgeSuite', () => {
  it('judges every condition × stack and counts outcomes', () => {
    const runs = [
      run(1),
      run(1, { id: 'r-reno', stack: 'reno', metrics: { goodput_share: 0.3, recovery_time: 1 } }),
      run(1, { id: 'x-cubic', condition: 'lossy', verdict: 'invalid', reasons: ['loss'] }),
    ];
    const r = judgeSuite({
      conditions: ['plain', 'lossy'],
      stacks: ['cubic', 'reno'],
      runs,
      bounds: () => [SHARE],
    });
    expect(r.cases.map((c) => `${c.condition}/${c.stack}:${c.outcome}`)).toEqual([
      'plain/cubic:pass',
      'plain/reno:failure',
      'lossy/cubic:error',
      'lossy/reno:error',
    ]);
    expect(r.counts).toEqual({ tests: 4, passed: 1, failures: 1, errors: 2 });
    expect(exitCodeOf(r.counts)).toBe(1);
    expect(exitCodeOf({ tests: 1, passed: 1, failures: 0, errors: 0 })).toBe(0);
  });
});

describe('meanInterval', () => {
  it('is seeded: the same runs always give the same interval', () => {
    expect(meanInterval([1, 2, 3], 'a')).toEqual(meanInterval([1, 2, 3], 'a'));
    expect(meanInterval([1], 'a')).toBeNull();
  });
});
