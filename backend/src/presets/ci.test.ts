// shortenForCi on a hand-made campaign: every kind of time in the base and in varied values shrinks,
// flow times stay whole seconds, transfers shrink with the run, and fast schedules are thinned.
import { describe, expect, it } from 'vitest';
import { expandCampaign, parseCampaignText } from '../campaign/expand.js';
import { shortenForCi } from './ci.js';

const c = parseCampaignText(`
name: times
base:
  name: times
  duration: 600s
  sampleInterval: 5s
  paths:
    main:
      rtt: 100ms
      rate: 100Mbit
      changes: [{ at: 100s, rate: 50Mbit }, { at: 101s, rate: 60Mbit }, { at: 300s, rate: 70Mbit }]
  flows:
    - { name: a, stack: reno, count: 4, every: 50s }
    - { name: b, stack: cubic, start: 120s, duration: 240s }
    - { name: c, stack: bic, bytes: 1GB }
vary:
  flows[1]:
    - { name: b, stack: cubic, start: 120s, duration: 240s }
    - { name: b, stack: htcp, start: 60s, duration: 60s }
  flows[0].every: [50s, 100s]
  paths.main.changes: [[], [{ at: 30s, rtt: 200ms }]]
  flows[0].stack: [reno, cubic, bic, htcp, highspeed]
repeat: 3
`);

describe('shortenForCi', () => {
  it('shrinks every time by the same factor and keeps each spec valid', () => {
    const ci = shortenForCi(c, 12);
    expect(ci.name).toBe('times-ci');
    expect(ci.repeat).toBe(1);
    expect(ci.base).toMatchObject({ duration: '12s', sampleInterval: '1s' });
    const flows = ci.base.flows as Record<string, unknown>[];
    expect(flows[0]).toMatchObject({ every: '1s', count: 4 });
    expect(flows[1]).toMatchObject({ start: '2s', duration: '5s' });
    expect(flows[2]).toMatchObject({ bytes: '20000000B' });
    // 100 s and 101 s become 2000 ms and 2020 ms: too close, the second is dropped.
    expect((ci.base.paths as { main: { changes: unknown[] } }).main.changes).toEqual([
      { at: '2000ms', rate: '50Mbit' },
      { at: '6000ms', rate: '70Mbit' },
    ]);
    expect(ci.vary['flows[1]']).toEqual([
      { name: 'b', stack: 'cubic', start: '2s', duration: '5s' },
      { name: 'b', stack: 'htcp', start: '1s', duration: '1s' },
    ]);
    expect(ci.vary['flows[0].every']).toEqual(['1s', '2s']);
    expect(ci.vary['paths.main.changes']).toEqual([[], [{ at: '600ms', rtt: '200ms' }]]);
    const variants = expandCampaign(ci);
    expect(variants).toHaveLength(2 * 2 * 2 * 5);
  });

  it("keeps a flow's omit (slow start does not shrink with the run), up to half the shortened run", () => {
    const slow = parseCampaignText(`
name: omit
base:
  name: omit
  duration: 300s
  sampleInterval: 5s
  paths: { main: { rtt: 170ms, rate: 100Mbit } }
  flows: [{ name: test, stack: reno, omit: 5s }]
vary:
  flows[0]: [{ name: test, stack: reno, omit: 5s }, { name: test, stack: bic, omit: 5s }]
`);
    const repro = shortenForCi(slow, 40);
    expect(repro.base.flows).toEqual([{ name: 'test', stack: 'reno', omit: '5s' }]);
    expect(repro.vary['flows[0]']).toEqual([
      { name: 'test', stack: 'reno', omit: '5s' },
      { name: 'test', stack: 'bic', omit: '5s' },
    ]);
    // CI: 5 s runs with 1 s intervals keep 2 s of slow start out and 3 s in.
    const ci = shortenForCi(slow, 5);
    expect(ci.vary['flows[0]']).toEqual([
      { name: 'test', stack: 'reno', omit: '2s' },
      { name: 'test', stack: 'bic', omit: '2s' },
    ]);
    expect(expandCampaign(ci)).toHaveLength(2);
    expect(expandCampaign(repro)).toHaveLength(2);
  });

  it("keeps the campaign's iperf3 interval while the shortened run holds 8 of them", () => {
    expect(shortenForCi(c, 40).base.sampleInterval).toBe('5s');
    expect(shortenForCi(c, 39).base.sampleInterval).toBe('1s');
    expect(shortenForCi(c, 120).base.sampleInterval).toBe('5s');
  });

  it('shortens what an exclude names with the values, and drops an entry CI left nothing to fit', () => {
    const withExclude = parseCampaignText(`
name: ex
base: { name: ex, duration: 600s, paths: { main: { rtt: 100ms, rate: 100Mbit } }, flows: [{ stack: reno }] }
vary:
  flows[0].start: [0s, 60s, 120s]
  flows[0].stack: [reno, cubic, bic]
exclude:
  - { 'flows[0].start': 60s, 'flows[0].stack': cubic }
  - { 'flows[0].start': { $any: [120s] }, 'flows[0].stack': bic }
  - { 'flows[0].stack': cubic, 'flows[0].start': { $not: 0s } }
`);
    const ci = shortenForCi(withExclude, 10);
    expect(ci.vary['flows[0].start']).toEqual(['0s', '1s', '2s']);
    expect(ci.exclude).toEqual([
      { 'flows[0].start': '1s', 'flows[0].stack': 'cubic' },
      { 'flows[0].start': { $any: ['2s'] }, 'flows[0].stack': 'bic' },
      { 'flows[0].stack': 'cubic', 'flows[0].start': { $not: '0s' } },
    ]);
    const names = expandCampaign(ci).map(
      (v) => `${v.params['flows[0].stack']}@${v.params['flows[0].start']}`,
    );
    expect(names).toHaveLength(9 - 3);
    expect(names).not.toContain('cubic@1s');
    expect(names).not.toContain('cubic@2s');
    expect(names).not.toContain('bic@2s');
    // CI keeps the first and last start only: the 60 s entry fits nothing there and is dropped.
    const thinned = shortenForCi(withExclude, 10, { values: 2 });
    expect(thinned.vary['flows[0].stack']).toEqual(['reno', 'bic']);
    expect(thinned.exclude).toEqual([{ 'flows[0].start': { $any: ['2s'] }, 'flows[0].stack': 'bic' }]);
    expect(expandCampaign(thinned)).toHaveLength(4 - 1);
  });

  it('gives more repetitions where asked at reproduction length, naming values shortened, and none in CI', () => {
    const starts = parseCampaignText(`
name: more
base: { name: more, duration: 600s, paths: { main: { rtt: 100ms, rate: 100Mbit } }, flows: [{ stack: reno }] }
vary:
  flows[0].start: [0s, 60s, 120s]
repeat: 1
`);
    const repeatWhere = [
      { where: { 'flows[0].start': '60s' }, repeat: 5 },
      { where: { 'flows[0].start': { $any: ['120s'] } }, repeat: 4 },
    ];
    const repro = shortenForCi(starts, 60, { repeat: 3, repeatWhere });
    expect(repro.repeatWhere).toEqual([
      { where: { 'flows[0].start': '6s' }, repeat: 5 },
      { where: { 'flows[0].start': { $any: ['12s'] } }, repeat: 4 },
    ]);
    expect(
      expandCampaign(repro)
        .map((v) => v.id)
        .sort(),
    ).toEqual([
      '001-0s-r1',
      '001-0s-r2',
      '001-0s-r3',
      '002-6s-r1',
      '002-6s-r2',
      '002-6s-r3',
      '002-6s-r4',
      '002-6s-r5',
      '003-12s-r1',
      '003-12s-r2',
      '003-12s-r3',
      '003-12s-r4',
    ]);
    // CI runs each variant once; thinned to two values, an entry for a value left out goes.
    expect(shortenForCi({ ...starts, repeatWhere }, 10).repeatWhere).toBeUndefined();
    expect(shortenForCi(starts, 10, { values: 2, repeat: 3, repeatWhere }).repeatWhere).toEqual([
      { where: { 'flows[0].start': { $any: ['2s'] } }, repeat: 4 },
    ]);
  });

  it('keeps at most n values of each parameter when asked (first, last, evenly between)', () => {
    const ci = shortenForCi(c, 12, { values: 3 });
    expect(ci.vary['flows[0].stack']).toEqual(['reno', 'bic', 'highspeed']);
    expect(expandCampaign(ci)).toHaveLength(2 * 2 * 2 * 3);
  });

  it('fails at expansion, naming the problem, when the CI length cannot hold the schedule', () => {
    // Four flows one second apart need more than 3 s.
    expect(() => expandCampaign(shortenForCi(c, 3))).toThrow(/after the run ends/);
  });
});
