// The checkpoint language: syntax errors point at the character, names and functions are checked
// when a sheet is published, and evaluation over a summary passes, fails, or says why it cannot.
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../run/summary.js';
import { compileCheck, evaluateCheck } from './checkEval.js';
import { shippedSheets } from './sheet.js';

const flow = (
  name: string,
  stack: string,
  mbps: number | null,
  direction: 'forward' | 'reverse' = 'forward',
) => ({
  name,
  stack,
  direction,
  goodputMbps: { mean: mbps, sd: null, wholeRun: mbps },
  retransmits: 3,
  rttMs: { mean: 50, min: 40, max: 60 },
});

const summary = {
  name: 'x',
  status: 'completed',
  verdict: 'valid',
  flows: [flow('a', 'cubic', 30), flow('b', 'reno', 10), flow('rev', 'reno', 5, 'reverse')],
  paths: [
    {
      name: 'main',
      configured: {
        rttMs: 40,
        rateMbps: 50,
        reverseRateMbps: 50,
        bufferPackets: { forward: 20, reverse: 20 },
        ber: 0,
      },
      utilisation: { forward: 0.8, reverse: 0.1 },
      jain: { forward: 0.8, reverse: null },
    },
  ],
  metrics: {
    flows: [{ flow: 'b', metrics: [{ id: 'recovery.time', value: 3.2, unit: 's' }], recoveries: 4 }],
    groups: [],
    theory: [{ path: 'main', metrics: [{ id: 'responsiveness', value: 3.45, unit: 's' }] }],
  },
} as unknown as RunSummary;

describe('checkpoint language', () => {
  it.each([
    ['jain() >=', 10, 'expected a number, a name or "(", found the end'],
    ['share("cubic) > 0', 7, 'the text starting with " is not closed'],
    ['1 + 2', 1, 'a checkpoint must compare'],
    ['jian() > 1', 1, 'unknown function jian()'],
    ['jain(1, 2, 3) > 1', 1, 'jain([path], [direction]) takes 0 to 2 arguments'],
    ['x > 1', 1, 'unknown name x'],
    ['goodput() within 5 of 3', 20, 'expected % after the number, found "of"'],
    ['goodput() $ 3', 11, 'unexpected "$"'],
  ])('%s is refused at character %i', (src, at, message) => {
    expect(() => compileCheck(src)).toThrow(`at character ${at}: ${message}`);
  });

  it('evaluates comparisons, shares, within and logic over the summary, with the numbers shown', () => {
    expect(evaluateCheck('jain() >= 0.9', summary)).toEqual({ passed: false, detail: '0.8 >= 0.9' });
    expect(evaluateCheck('share("cubic") > share("reno")', summary)).toEqual({
      passed: true,
      detail: '0.75 > 0.25',
    });
    expect(
      evaluateCheck(
        'metric("recovery.time", "reno") within 20% of rate() / 8 * rtt()^2 / (2 * mss)',
        summary,
      ),
    ).toEqual({ passed: true, detail: '3.2 is 7.328 % from 3.453 (allowed 20 %)' });
    expect(
      evaluateCheck('metric("recovery.time", "b") within 5% of theory("responsiveness")', summary).passed,
    ).toBe(false);
    expect(evaluateCheck('verdict == "valid" and not utilisation() < 0.5', summary).passed).toBe(true);
    expect(evaluateCheck('count("reno") == 2 or -goodput("rev") < -10', summary).passed).toBe(true);
  });

  it('says why a check cannot be judged instead of failing it silently', () => {
    expect(evaluateCheck('share("bbr") > 0.5', summary)).toEqual({
      passed: null,
      detail: 'not measurable: no flow named or of stack "bbr"',
    });
    expect(evaluateCheck('jain("main", "reverse") > 0.5', summary)).toEqual({
      passed: null,
      detail: 'not measurable: Jain’s index was not measured',
    });
  });

  it('every shipped sheet loads and its checkpoints compile', () => {
    const sheets = shippedSheets();
    expect(sheets.length).toBeGreaterThanOrEqual(3);
    for (const s of sheets)
      for (const c of s.checkpoints) expect(() => compileCheck(c.check), `${s.id}/${c.id}`).not.toThrow();
  });
});
