import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Check } from './fidelity.js';
import { diffChecks, diffMetrics, rejudgeRun, timingWindowsOf } from './rejudge.js';
import type { RunMetrics } from './runMetrics.js';

const check = (id: string, status: Check['status'], message = id): Check => ({
  id,
  status,
  measured: null,
  expected: '',
  message,
});

/** A run directory with a summary and events, as far as a test needs one. */
function runDir(summary: object, events: object[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'lfnlab-rejudge-'));
  mkdirSync(join(dir, 'samples'));
  writeFileSync(join(dir, 'summary.json'), JSON.stringify({ flows: [], paths: [], ...summary }));
  writeFileSync(join(dir, 'events.jsonl'), events.map((e) => JSON.stringify(e)).join('\n'));
  return dir;
}

describe('rejudge', () => {
  it('lists the checks whose status or message moved, and those on one side only', () => {
    const before = [check('a', 'pass'), check('b', 'fail', 'slow'), check('c', 'warn')];
    const after = [check('a', 'pass'), check('b', 'pass', 'fine'), check('d', 'pass')];
    expect(
      diffChecks(before, after).map((c) => [c.id, c.before?.status ?? null, c.after?.status ?? null]),
    ).toEqual([
      ['b', 'fail', 'pass'],
      ['c', 'warn', null],
      ['d', null, 'pass'],
    ]);
    expect(diffChecks(before, before)).toEqual([]);
  });

  it('lists the metric values that moved beyond rounding, appeared or went', () => {
    const v = (id: string, value: number) =>
      ({ id, value, unit: 'ratio' }) as RunMetrics['flows'][0]['metrics'][0];
    const before: RunMetrics = {
      flows: [
        { flow: 'test', recoveries: 0, metrics: [v('stability.sigma_over_mu', 0.06), v('rtt.mean', 100)] },
      ],
      groups: [{ path: 'main', direction: 'forward', flows: ['test'], metrics: [v('efficiency', 0.9)] }],
      theory: [{ path: 'main', metrics: [v('theory.per', 0)] }],
    };
    const after: RunMetrics = {
      flows: [
        {
          flow: 'test',
          recoveries: 0,
          metrics: [v('stability.sigma_over_mu', 0.06 + 1e-13), v('rtt.mean', 101)],
        },
      ],
      groups: [
        {
          path: 'main',
          direction: 'forward',
          flows: ['test'],
          metrics: [v('efficiency', 0.9), v('stability.aggregate', 0.002)],
        },
      ],
      theory: [],
    };
    expect(diffMetrics(before, after)).toEqual([
      'flow:test rtt.mean',
      'theory:main theory.per',
      'main.forward stability.aggregate',
    ]);
    expect(diffMetrics(before, before)).toEqual([]);
    expect(diffMetrics(null, after)).toHaveLength(4);
  });

  it('reads the capture windows from its raw output, past headers, end lines and a second header', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-timing-'));
    const w = (tick: number) =>
      ['w', tick, 1e18, 1e9, 'main.forward', 10, 10, 8, 10, 10, 1e6, 1e6, 1e6, 1e6, 1e6, 0, '500:8'].join(
        '\t',
      );
    writeFileSync(
      join(dir, 't.txt'),
      [
        '#lfn-pkttiming\tv1\tdirs=1',
        '#w\ttick\t...',
        w(0),
        w(1),
        '#end\treason=signal\twindows=2\trecords=2\tcaptured=1\tarrivals=1\tdrops=0',
        '',
        w(2),
      ].join('\n'),
    );
    const ws = timingWindowsOf(join(dir, 't.txt'));
    expect(ws.map((x) => x.tick)).toEqual([0, 1, 2]);
    expect(ws[0]?.bins.get(500)).toBe(8);
    expect(timingWindowsOf(join(dir, 'absent.txt'))).toEqual([]);
  });

  it('says why a record cannot be judged again instead of judging it wrongly', () => {
    const cut = runDir({ status: 'aborted', verdict: null, fidelity: null }, [{ type: 'created' }]);
    expect(rejudgeRun(cut).why).toBe('the run ended before its checks ran');
    const fidelity = { verdict: 'valid', checks: [check('a', 'pass')], reasons: [] };
    const mixed = runDir({ status: 'completed', verdict: 'valid', fidelity }, [
      { type: 'created' },
      { type: 'traffic' },
      { type: 'created' },
      { type: 'traffic' },
    ]);
    writeFileSync(join(mixed, 'spec.json'), '{}');
    writeFileSync(join(mixed, 'plan.json'), '{}');
    for (const f of ['qdisc-before.json', 'qdisc-after.json', 'links-before.json', 'links-after.json'])
      writeFileSync(join(mixed, f), '[]');
    expect(rejudgeRun(mixed).why).toBe("the record mixes 2 attempts' samples (resumed in place)");
    const noAfter = runDir({ status: 'completed', verdict: 'valid', fidelity }, [{ type: 'created' }]);
    writeFileSync(join(noAfter, 'spec.json'), '{}');
    writeFileSync(join(noAfter, 'plan.json'), '{}');
    expect(rejudgeRun(noAfter).why).toBe(
      'qdisc-before.json, qdisc-after.json, links-before.json, links-after.json missing',
    );
  });
});
