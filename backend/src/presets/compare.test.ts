// comparePreset on hand-made rows: orderings that hold and that do not, the other claim kinds, the
// `where` patterns, summary-backed measures and the equivalence estimate.
import { describe, expect, it } from 'vitest';
import { toyCampaign } from '../../test/support/toyPreset.js';
import type { RunSummary } from '../run/summary.js';
import { comparePreset, formatComparison } from './compare.js';
import { loadPresets, PresetError, parsePreset } from './load.js';
import { equivalentCount, type PresetRow } from './measure.js';

const meta = `
paper: { id: '000', short: Toy, title: A toy paper }
experiment: Three stacks on two paths.
finding: Bic is fastest, then cubic, then reno; everything is fair.
scaling: { rule: 'Nothing is scaled in this toy preset at all, rates are kept.', rateFactor: 1, timeFactor: 1 }
ci: { seconds: 5 }
tables:
  - id: t
    ref: { table: Table 9, section: '§9' }
    unit: Mbit/s
    scale: 0.5
    measure: { kind: goodput, flows: test }
    columns:
      - { key: reno, label: Reno, where: { 'flows[0].stack': reno } }
      - { key: cubic, label: CUBIC, where: { 'flows[0].stack': cubic } }
      - { key: bic, label: BIC, where: { 'flows[0].stack': bic } }
    rows:
      - { key: short, label: 50 ms, where: { 'paths.main.rtt': 50ms }, values: ['20±2', '40±4', '60±6'] }
      - { key: long, label: 100 ms, where: { 'paths.main.rtt': 100ms }, values: [10, 30, 50] }
published:
  - id: fair
    value: 0.95
    unit: ratio
    ref: { table: Table 8 }
    measure: { kind: jain }
  - id: sd.short.bic
    value: 3
    unit: Mbit/s
    ref: { table: Table 8 }
    where: { 'flows[0].stack': bic, 'paths.main.rtt': 50ms }
    measure: { kind: goodputSd, flows: test }
claims:
  - id: order.short
    kind: ordering
    subject: Stacks by goodput at 50 ms
    text: Bic is fastest, then CUBIC, then Reno.
    ref: { table: Table 9 }
    items: ['t.short.*']
  - id: order.long
    kind: ordering
    subject: Stacks by goodput at 100 ms
    text: Bic is fastest, then CUBIC, then Reno.
    ref: { table: Table 9 }
    items: ['t.long.*']
  - id: tiers
    kind: ordering
    subject: Stacks by goodput, both paths
    text: Bic is fastest, the others behind.
    ref: { table: Table 9 }
    paperOrder: [[BIC], [Reno, CUBIC]]
    items:
      - { label: BIC, where: { 'flows[0].stack': bic }, measure: { kind: goodput, flows: test } }
      - { label: CUBIC, where: { 'flows[0].stack': cubic }, measure: { kind: goodput, flows: test } }
      - { label: Reno, where: { 'flows[0].stack': { $not: { $any: [cubic, bic] } } }, measure: { kind: goodput, flows: test } }
  - id: fair.threshold
    kind: threshold
    text: Everything is fair, Jain at least 0.9.
    ref: { table: Table 8 }
    item: fair
    op: '>='
    value: 0.9
  - id: fair.close
    kind: close
    text: Fairness is 0.95.
    ref: { table: Table 8 }
    item: fair
    tolerance: { abs: 0.02 }
  - id: fast.share
    kind: share
    text: Most cells are above 15 Mbit/s.
    ref: { table: Table 9 }
    items: ['t.*']
    op: '>'
    value: 15
    share: 0.8
  - id: signs
    kind: signs
    subject: Asymmetry of test against other
    text: Signs of something.
    ref: { table: Table 9 }
    items: ['t.short.*']
    deadband: 25
  - id: alike
    kind: similar
    text: Reno gets about the same on both paths.
    ref: { table: Table 9 }
    items:
      - { label: Reno 50 ms, where: { 'flows[0].stack': reno, 'paths.main.rtt': 50ms }, measure: { kind: goodput, flows: test } }
      - { label: Reno 100 ms, where: { 'flows[0].stack': reno, 'paths.main.rtt': 100ms }, measure: { kind: goodput, flows: test } }
    tolerance: { rel: 0.5 }
`;

const toy = () => parsePreset('toy', meta, () => toyCampaign);

function row(
  stack: string,
  rtt: string,
  test: number,
  other: number,
  extra: Partial<PresetRow> = {},
): PresetRow {
  const jain = (test + other) ** 2 / (2 * (test ** 2 + other ** 2));
  return {
    id: `${stack}-${rtt}`,
    repetition: 1,
    params: { 'flows[0].stack': stack, 'paths.main.rtt': rtt },
    status: 'completed',
    verdict: 'valid',
    goodputMbps: { test, other },
    jainForward: jain,
    utilisationForward: 0.95,
    ...extra,
  };
}

/** k repetitions of each row, goodputs scaled by a small deterministic spread (±2 % at most). */
function repeat(rows: PresetRow[], k = 5, spread = 0.02): PresetRow[] {
  const f = [1, 1 + spread, 1 - spread, 1 + spread / 2, 1 - spread / 2];
  return rows.flatMap((r) =>
    Array.from({ length: k }, (_, i) => {
      const m = f[i % f.length] as number;
      const goodputMbps = Object.fromEntries(
        Object.entries(r.goodputMbps).map(([n, v]) => [n, (v ?? 0) * m]),
      );
      return { ...r, id: `${r.id}#${i + 1}`, repetition: i + 1, goodputMbps };
    }),
  );
}

// Published × 0.5: short 10, 20, 30; long 5, 15, 25.
const agreeing = [
  row('reno', '50ms', 11, 11),
  row('cubic', '50ms', 19, 20),
  row('bic', '50ms', 31, 30),
  row('reno', '100ms', 6, 6),
  row('cubic', '100ms', 14, 14),
  row('bic', '100ms', 24, 25),
];

describe('comparePreset', () => {
  it('puts published (scaled) and measured side by side per cell', () => {
    const c = comparePreset(toy(), agreeing);
    const cell = c.cells.find((x) => x.id === 't.short.bic');
    expect(cell?.published).toMatchObject({ value: 60, sd: 6, scaled: 30, scaledSd: 3 });
    expect(cell?.measured).toMatchObject({ value: 31, n: 1, rows: 1 });
    expect(cell?.ratio).toBeCloseTo(31 / 30);
    expect(cell?.ref).toBe('Table 9, §9');
    expect(cell?.field).toBe('CampaignRow.goodputMbps[test]');
    expect(c.rows).toEqual({ total: 6, used: 6, excluded: 0 });
  });

  it('finds an ordering that holds and one that does not', () => {
    const rows = repeat(agreeing).map((r) =>
      // At 100 ms, reno beats bic: the 100 ms ordering breaks (1 of 3 pairs left).
      r.id.startsWith('reno-100ms') ? { ...r, goodputMbps: { test: 40 + r.repetition, other: 6 } } : r,
    );
    const c = comparePreset(toy(), rows);
    const short = c.findings.find((f) => f.id === 'order.short');
    const long = c.findings.find((f) => f.id === 'order.long');
    expect(short?.verdict).toBe('holds');
    expect(short?.holds).toBe(true); // kept for readers of older comparison.json
    expect(short?.agreement).toBe(1);
    // τ-b over 15 runs whose items tie on the paper's rank: 75 / √(75 × 105).
    expect(short?.tau).toBeCloseTo(75 / Math.sqrt(75 * 105), 10);
    expect(short?.test).toMatchObject({ n: 5, nMax: 5, items: 3, measured: 3, pMethod: 'exact' });
    // Exact: only 1 of the 15! / (5!)³ = 756 756 arrangements of the ranks is in perfect order.
    expect(short?.test.p).toBeCloseTo(1 / 756_756, 15);
    expect(short?.sentence).toMatch(
      /paper BIC > CUBIC > Reno; here BIC 31 > CUBIC 19 > Reno 11 Mbit\/s — 3 of 3 ordered pairs agree/,
    );
    expect(short?.sentence).toMatch(/the ordering holds/);
    expect(long?.verdict).toBe('fails');
    expect(long?.agreement).toBeCloseTo(1 / 3);
    expect(long?.sentence).toMatch(
      /here Reno \d+ > BIC \d+ > CUBIC \d+ Mbit\/s — 1 of 3 ordered pairs agree \(33 %/,
    );
    expect(long?.sentence).toMatch(/does not hold/);
  });

  it('resamples whole repetitions when every cell has the same ones: a seed that moves all cells does not blur them', () => {
    // Each repetition's seed adds the same amount to every stack; the order within it never changes.
    const effect = [0, 25, -8, 40, 15];
    const rows = repeat(agreeing, 5, 0).map((r) => {
      const e = effect[r.repetition - 1] as number;
      const test = (r.goodputMbps.test ?? 0) + e;
      return { ...r, goodputMbps: { test, other: r.goodputMbps.other ?? 0 } };
    });
    const short = comparePreset(toy(), rows).findings.find((f) => f.id === 'order.short');
    expect(short?.test.ci).toMatchObject({ low: 1, high: 1, paired: true });
    expect(short?.sentence).toMatch(/agreement 1 to 1 \(0 of 3 pairs undecided, paired by seed\)/);
    // One cell short of a repetition (an invalid run left out): each cell is resampled on its own,
    // and the seed's spread now reaches the interval.
    const gappy = rows.filter((r) => r.id !== 'cubic-50ms#5');
    const apart = comparePreset(toy(), gappy).findings.find((f) => f.id === 'order.short');
    expect(apart?.test.ci?.paired).toBeUndefined();
    expect(apart?.test.ci?.low).toBeLessThan(1);
    expect(apart?.sentence).not.toMatch(/paired by seed/);
  });

  it('checks tiers, thresholds, closeness, shares, signs and similarity', () => {
    const c = comparePreset(toy(), repeat(agreeing));
    const by = Object.fromEntries(c.findings.map((f) => [f.id, f]));
    // Tiers: BIC above both others; Reno vs CUBIC is not ranked by the paper.
    expect(by.tiers?.verdict).toBe('holds');
    expect(by.tiers?.sentence).toMatch(/paper BIC > Reno ≈ CUBIC/);
    expect(by['fair.threshold']?.verdict).toBe('holds');
    expect(by['fair.threshold']?.test).toMatchObject({
      n: 5,
      nMax: 5,
      name: expect.stringMatching(/95 % CI \(bootstrap ∪ jackknife t\)/),
    });
    expect(by['fair.close']?.verdict).toBe('fails'); // Jain ≈ 1.0 here, 0.95 ± 0.02 in the paper
    expect(by['fast.share']?.verdict).toBe('fails'); // 3 of 6 cells above 15 against the paper's 80 %
    expect(by['fast.share']?.sentence).toMatch(/3 of 6 measured cells \(50 %\)/);
    expect(by.signs?.verdict).toBe('holds');
    expect(by.alike?.verdict).toBe('holds');
    expect(c.summary).toMatch(/of 8 findings, 6 hold, 2 do not, 0 inconclusive/);
  });

  it('says how many repetitions would decide a similarity that stays inconclusive', () => {
    const reps = (rtt: string, xs: number[]) =>
      xs.map((x, i) => ({ ...row('reno', rtt, x, x), id: `reno-${rtt}#${i + 1}`, repetition: i + 1 }));
    const rows = [...reps('50ms', [11, 14, 8, 12, 10]), ...reps('100ms', [7, 5, 8, 6, 9])];
    const alike = comparePreset(toy(), rows).findings.find((f) => f.id === 'alike');
    expect(alike?.verdict).toBe('inconclusive');
    const n = alike?.test.repetitionsToDecide;
    expect(n).toBeGreaterThan(5);
    expect(n).toBeLessThanOrEqual(100);
    expect(alike?.sentence).toContain(`; about ${n} repetitions would decide it at this mean and spread)`);
  });

  it("reads σ from the run's metrics and leaves out failed or invalid runs", () => {
    // The flow's own sd field as summaries before 2026-12-03 wrote it (iperf3's closing fraction of a
    // second counted as an interval): not what the comparison reads.
    const summary = {
      flows: [{ name: 'test', goodputMbps: { mean: 30, sd: 12, wholeRun: 31 }, stability: 0.4 }],
      metrics: {
        flows: [{ flow: 'test', metrics: [{ id: 'throughput.sd', value: 2.5e6, unit: 'bit/s' }] }],
        groups: [],
        theory: [],
      },
    } as unknown as RunSummary;
    const rows = agreeing.map((r) => (r.id === 'bic-50ms' ? { ...r, summary } : r));
    rows.push(row('bic', '50ms', 99, 1, { id: 'x', status: 'failed' }));
    rows.push(row('bic', '50ms', 99, 1, { id: 'y', verdict: 'invalid' }));
    const c = comparePreset(toy(), rows);
    expect(c.cells.find((x) => x.id === 'sd.short.bic')?.measured?.value).toBe(2.5);
    expect(c.cells.find((x) => x.id === 't.short.bic')?.measured?.value).toBe(31);
    expect(c.rows.excluded).toBe(2);
    // One run per cell: nothing can be decided.
    expect(formatComparison(c)).toMatch(/\[inconclusive\] Stacks by goodput at 50 ms.*fewer than 3 runs/);
    expect(formatComparison(c)).toMatch(/test: Kendall τ-b .*; n = 1 runs per cell/);
  });

  it('says "not measured" rather than guessing', () => {
    const c = comparePreset(toy(), agreeing.slice(0, 1));
    const f = c.findings.find((x) => x.id === 'order.short');
    expect(f?.holds).toBeNull();
    expect(f?.verdict).toBe('inconclusive');
    expect(f?.sentence).toMatch(/not enough of our runs/);
  });

  it('turns "never converged" into infinity only when asked to', () => {
    const p = parsePreset(
      'conv',
      `
paper: { id: '002', short: Toy, title: Toy }
experiment: Convergence.
finding: Two flows of one stack are slow to reach an even split.
scaling: { rule: 'Nothing is scaled in this toy preset at all, rates are kept.', rateFactor: 1, timeFactor: 1 }
ci: { seconds: 5 }
claims:
  - id: slow
    kind: threshold
    text: They take at least 100 s, or never converge.
    ref: { slide: Summary }
    item: { label: convergence, measure: { kind: metric, scope: group, id: convergence.time } }
    op: '>='
    value: 100
    missing: infinite
`,
      () => toyCampaign,
    );
    const summary = { metrics: { flows: [], groups: [{ direction: 'forward', metrics: [] }], theory: [] } };
    const r = { ...row('reno', '50ms', 10, 10), summary: summary as unknown as RunSummary };
    const three = [1, 2, 3].map((i) => ({ ...r, id: `r${i}`, repetition: i }));
    expect(comparePreset(p, three).findings[0]?.verdict).toBe('holds');
    expect(comparePreset(p, three).findings[0]?.sentence).toMatch(/never reached in a run/);
    expect(comparePreset(p, [r]).findings[0]?.verdict).toBe('inconclusive');
    expect(comparePreset(p, []).findings[0]?.verdict).toBe('inconclusive');
  });
});

describe('equivalence', () => {
  it('interpolates where n streams match the single flow', () => {
    // Single flow 60; many: 1 → 10, 4 → 40, 8 → 70: crossing between 4 and 8 at 4 + 20/30 × 4.
    expect(
      equivalentCount([
        { n: 8, single: 60, many: 70 },
        { n: 1, single: 60, many: 10 },
        { n: 4, single: 60, many: 40 },
      ]),
    ).toBeCloseTo(4 + (20 / 30) * 4);
    expect(equivalentCount([{ n: 2, single: 90, many: 10 }])).toBeNull();
  });
});

describe('presets against made-up results', () => {
  it('seed000-table4: rows that follow the paper make every claim hold; reversed ones do not', () => {
    const p = loadPresets().find((x) => x.name === 'seed000-table4');
    if (!p) throw new Error('seed000-table4 missing');
    const stacks = [
      ['bic', 1, 230, 400],
      ['fast', 1, 20, 260],
      ['highspeed', 1, 110, 380],
      ['hstcplp', 1, 220, 380],
      ['htcp', 1, 220, 380],
      ['reno', 16, 200, 380],
      ['scalable', 1, 280, 400],
    ] as const;
    const mk = (flip: boolean): PresetRow[] =>
      stacks.map(([stack, streams, withRev, without], i) => ({
        id: `r${i}`,
        repetition: 1,
        params: { 'flows[0]': { stack, streams, name: 'fwd', count: 2 } },
        status: 'completed',
        verdict: 'valid',
        goodputMbps: {
          'fwd-1': (flip ? without : withRev) * 0.0535,
          'fwd-2': (flip ? withRev : without) * 0.0535,
          rev: 50,
        },
        jainForward: null,
        utilisationForward: null,
      }));
    const good = comparePreset(p, repeat(mk(false), 3, 0.005));
    expect(good.findings.map((f) => [f.id, f.verdict])).toEqual([
      ['reverse.costs', 'holds'],
      ['order.with', 'holds'],
      ['fast.quarter', 'holds'],
    ]);
    expect(good.cells.find((c) => c.id === 't4.with.fast')?.ratio).toBeCloseTo(1);
    const bad = comparePreset(p, repeat(mk(true), 3, 0.005));
    expect(bad.findings.find((f) => f.id === 'reverse.costs')?.verdict).toBe('fails');
    // The same rows once each: every finding is inconclusive, whatever the means say.
    const once = comparePreset(p, mk(false));
    expect(once.findings.map((f) => f.verdict)).toEqual(['inconclusive', 'inconclusive', 'inconclusive']);
  });

  it('seed000-table3: asymmetry is read from both orders of a pair and skips excluded partners', () => {
    const p = loadPresets().find((x) => x.name === 'seed000-table3');
    if (!p) throw new Error('seed000-table3 missing');
    const f = (stack: string, name: string) => ({ stack, streams: stack === 'reno' ? 16 : 1, name });
    const rows: PresetRow[] = [
      // UFL: P-TCP (x1) takes 3/4 against S-TCP; S-TCP (x1) gets 1/4 against P-TCP.
      { a: 'reno', b: 'scalable', x1: 75, x2: 25 },
      { a: 'scalable', b: 'reno', x1: 25, x2: 75 },
      // HSTCP-LP is excluded as a partner on UFL.
      { a: 'reno', b: 'hstcplp', x1: 99, x2: 1 },
    ].map((r, i) => ({
      id: `u${i}`,
      repetition: 1,
      part: 'ufl',
      params: { 'flows[0]': f(r.a, 'x1'), 'flows[1]': f(r.b, 'x2') },
      status: 'completed',
      verdict: 'valid',
      goodputMbps: { x1: r.x1, x2: r.x2 },
      jainForward: null,
      utilisationForward: null,
    }));
    const c = comparePreset(p, rows);
    expect(c.cells.find((x) => x.id === 't3.ufl.ptcp')?.measured).toMatchObject({ value: 0.5, n: 2 });
    expect(c.cells.find((x) => x.id === 't3.ufl.stcp')?.measured).toMatchObject({ value: -0.5, n: 2 });
    expect(c.cells.find((x) => x.id === 't3.ufl.hstcplp')?.measured).toMatchObject({ value: -0.98, n: 1 });
    expect(c.cells.find((x) => x.id === 't3.caltech.ptcp')?.measured?.value).toBeNull();
  });
});

describe('parsePreset', () => {
  it('rejects references to numbers or parameters that do not exist', () => {
    const bad = meta
      .replace("items: ['t.short.*']", "items: ['t.nowhere.*']")
      .replace("'paths.main.rtt': 100ms", "'paths.main.rate': 100ms");
    try {
      parsePreset('toy', bad, () => toyCampaign);
      throw new Error('should have failed');
    } catch (err) {
      expect(err).toBeInstanceOf(PresetError);
      const msg = (err as PresetError).problems.join('\n');
      expect(msg).toMatch(/no published number matches 't.nowhere.\*'/);
      expect(msg).toMatch(/'paths.main.rate' is not a varied parameter/);
    }
  });
});
