// Findings decided by a test: one run per cell is never enough, clear separation over five runs
// holds, the opposite fails, overlapping runs stay inconclusive; closed-form values need one run.
import { kendallTau, normalUpperQuantile } from '@lfnlab/metrics';
import { describe, expect, it } from 'vitest';
import { toyCampaignOf } from '../../test/support/toyPreset.js';
import type { RunSummary } from '../run/summary.js';
import { comparePreset, formatComparison } from './compare.js';
import { parsePreset } from './load.js';
import type { PresetRow } from './measure.js';
import { verdictOf } from './verdict.js';

const campaign = toyCampaignOf(`  flows[0].stack: [reno, cubic, bic]
`);

const goodput = (stack: string) =>
  `{ label: ${stack}, where: { 'flows[0].stack': ${stack.toLowerCase()} }, measure: { kind: goodput, flows: test } }`;

const meta = `
paper: { id: '000', short: Toy, title: A toy paper }
experiment: Three stacks on one path.
finding: BIC is fastest, then CUBIC, then Reno; CUBIC gets more than 15 Mbit/s.
scaling: { rule: 'Nothing is scaled in this toy preset at all, rates are kept.', rateFactor: 1, timeFactor: 1 }
ci: { seconds: 5 }
claims:
  - id: cubic.fast
    kind: threshold
    text: CUBIC gets more than 15 Mbit/s.
    ref: { table: Table 9 }
    item: ${goodput('CUBIC')}
    op: '>'
    value: 15
  - id: order
    kind: ordering
    subject: Stacks by goodput
    text: BIC above CUBIC above Reno.
    ref: { table: Table 9 }
    paperOrder: [[BIC], [CUBIC], [Reno]]
    items: [${goodput('BIC')}, ${goodput('CUBIC')}, ${goodput('Reno')}]
  - id: cubic.twenty
    kind: close
    text: CUBIC gets about 20 Mbit/s.
    ref: { table: Table 9 }
    item: ${goodput('CUBIC')}
    value: 20
    tolerance: { abs: 2 }
`;

const toy = () => parsePreset('toy', meta, () => campaign);

function runs(values: Record<string, number[]>): PresetRow[] {
  return Object.entries(values).flatMap(([stack, xs]) =>
    xs.map((v, i) => ({
      id: `${stack}-${i + 1}`,
      repetition: i + 1,
      params: { 'flows[0].stack': stack },
      status: 'completed' as const,
      verdict: 'valid' as const,
      goodputMbps: { test: v, other: v },
      jainForward: 1,
      utilisationForward: 0.9,
    })),
  );
}

const finding = (rows: PresetRow[], id: string) => {
  const f = comparePreset(toy(), rows).findings.find((x) => x.id === id);
  if (!f) throw new Error(`no finding ${id}`);
  return f;
};

const inOrder = {
  bic: [30, 31, 29, 30.5, 29.5],
  cubic: [20, 20.4, 19.6, 20.2, 19.8],
  reno: [10, 11, 9, 10.5, 9.5],
};
const reversed = { bic: inOrder.reno, cubic: inOrder.cubic, reno: inOrder.bic };
const slow = { cubic: [5, 6, 5.5, 4.5, 5] };
const overlapping = {
  bic: [10, 20, 15, 12, 18],
  cubic: [10, 20, 12, 19, 16],
  reno: [12, 17, 15, 10, 20],
};

describe('threshold by interval', () => {
  it('is inconclusive with one run per cell, however clear the value', () => {
    const f = finding(runs({ cubic: [30] }), 'cubic.fast');
    expect(f.verdict).toBe('inconclusive');
    expect(f.holds).toBeNull();
    expect(f.test).toMatchObject({ n: 1, nMax: 1, measured: 1 });
    expect(f.sentence).toMatch(/fewer than 3 runs \(n = 1\)/);
  });

  it('holds when five runs sit clearly above the bound', () => {
    const f = finding(runs(inOrder), 'cubic.fast');
    expect(f.verdict).toBe('holds');
    expect(f.test.n).toBe(5);
    expect(f.test.ci?.low).toBeGreaterThan(15);
    expect(f.test.ci).toMatchObject({ level: 0.95, resamples: 10_000 });
    expect(f.sentence).toMatch(/95 % CI 19\.\d+ to 20\.\d+, t on 4 df\): holds/);
  });

  // Three runs at 15.6, 16.6 and 17.6: the percentile bootstrap cannot leave [15.6, 17.6] and would
  // hold, with about 75 % coverage; the t interval on 2 df (16.6 ± 4.303 · 1/√3) reaches below 15.
  it('is inconclusive on three runs near the bound, where the bootstrap alone would hold', () => {
    const f = finding(runs({ cubic: [15.6, 16.6, 17.6] }), 'cubic.fast');
    expect(f.test.ci?.bootstrap?.low).toBeGreaterThan(15);
    expect(f.test.ci?.t?.df).toBe(2);
    expect(f.test.ci?.low).toBeCloseTo(16.6 - 4.3027 / Math.sqrt(3), 3);
    expect(f.verdict).toBe('inconclusive');
    expect(f.sentence).toMatch(/t on 2 df\): inconclusive/);
    // Mean 16.6, sd 1, 1.6 above the bound: at 4 runs the t interval is 16.6 ± 3.182 · 1/√4 = ± 1.59.
    expect(f.test.repetitionsToDecide).toBe(4);
    expect(f.sentence).toMatch(/straddles 15; about 4 repetitions would decide it at this mean and spread\)/);
  });

  it('fails when five runs sit clearly below it', () => {
    const f = finding(runs(slow), 'cubic.fast');
    expect(f.verdict).toBe('fails');
    expect(f.holds).toBe(false);
    expect(f.test.ci?.high).toBeLessThan(15);
  });

  it('is inconclusive when the runs straddle it', () => {
    const f = finding(runs(overlapping), 'cubic.fast');
    expect(f.verdict).toBe('inconclusive');
    expect(f.test.ci?.low).toBeLessThan(15);
    expect(f.test.ci?.high).toBeGreaterThan(15);
    // Mean 15.4, sd 4.3: 0.4 from the bound would take about 460 runs.
    expect(f.sentence).toMatch(
      /inconclusive \(the interval straddles 15; at this mean and spread not even 100 repetitions would decide it\)/,
    );
    expect(f.test.repetitionsToDecide).toBeNull();
  });

  it('says nothing of repetitions once a finding is decided', () => {
    const f = finding(runs(inOrder), 'cubic.fast');
    expect(f.test).not.toHaveProperty('repetitionsToDecide');
    expect(f.test).not.toHaveProperty('runsToDecide');
    expect(f.sentence).not.toMatch(/repetitions/);
  });
});

describe('runs are counted per variant', () => {
  it('never takes one run of each of three variants for three repetitions', () => {
    // The threshold claim, over every stack's runs instead of CUBIC's.
    const any = '{ label: any stack, measure: { kind: goodput, flows: test } }';
    const p = parsePreset(
      'toy',
      meta.replace(`item: ${goodput('CUBIC')}\n    op`, `item: ${any}\n    op`),
      () => campaign,
    );
    const once = comparePreset(p, runs({ bic: [30], cubic: [20], reno: [10] })).findings[0];
    expect(once?.verdict).toBe('inconclusive');
    expect(once?.test).toMatchObject({ n: 1, nMax: 1 });
    const thrice = comparePreset(p, runs({ bic: [30, 31, 29], cubic: [20, 21, 19], reno: [10, 11, 9] }));
    expect(thrice.findings[0]?.verdict).toBe('holds');
    expect(thrice.findings[0]?.test).toMatchObject({ n: 3, nMax: 3 });
  });
});

describe('ordering by Kendall τ-b and pair agreement', () => {
  it('holds for a clear order over five runs each, with an exact p-value', () => {
    const f = finding(runs(inOrder), 'order');
    expect(f.verdict).toBe('holds');
    expect(f.test).toMatchObject({ n: 5, pMethod: 'exact', alpha: 0.05 });
    expect(f.test.p).toBeLessThan(0.001);
    expect(f.tau).toBeGreaterThan(0.8);
    // A p-value below the printed precision reads as a bound, not "p = < 0.001".
    expect(f.sentence).toContain('p < 0.001');
    expect(f.sentence).not.toContain('p = <');
  });

  it('fails when our runs reverse the paper’s order', () => {
    const f = finding(runs(reversed), 'order');
    expect(f.verdict).toBe('fails');
    expect(f.tau).toBeLessThan(-0.8);
    expect(f.sentence).toMatch(/does not hold \(reversed, p (=|<) /);
    expect(f.sentence).not.toContain('p = <');
  });

  it('is inconclusive when the runs overlap', () => {
    const f = finding(runs(overlapping), 'order');
    expect(f.verdict).toBe('inconclusive');
    expect(f.test.p).toBeGreaterThan(0.05);
    expect(f.sentence).toContain('τ-b is not significant at 0.05');
  });

  it('says how many repetitions would make a positive but weak τ-b significant', () => {
    // Each seed moves every stack alike: the pairs, compared seed by seed, are decided, but the
    // pooled runs overlap, so τ-b is positive and not significant at 3 runs each.
    const weak = { bic: [30, 20, 10], cubic: [28.8, 19.1, 9], reno: [27.9, 18, 8.2] };
    const f = finding(runs(weak), 'order');
    expect(f.verdict).toBe('inconclusive');
    expect(f.tau).toBeGreaterThan(0);
    const p = f.test.p as number;
    expect(p).toBeGreaterThan(0.05);
    expect(f.test.ci?.undecided).toBe(0);
    const n = f.test.repetitionsToDecide as number;
    // The z of S grows as √r: at n it clears the one-sided 5 % point, one repetition fewer it does not.
    const z = normalUpperQuantile(p);
    expect(z * Math.sqrt(n / 3)).toBeGreaterThan(normalUpperQuantile(0.05));
    expect(z * Math.sqrt((n - 1) / 3)).toBeLessThanOrEqual(normalUpperQuantile(0.05));
    expect(f.sentence).toContain(`τ-b is not significant at 0.05; about ${n} repetitions would decide it`);
    // Three variants of three runs each, every one brought up to n.
    expect(f.test).toMatchObject({ variants: 3, runs: 9, runsToDecide: 3 * n - 9 });
  });

  it('says how many repetitions would decide the pairs that leave a significant ordering inconclusive', () => {
    const close = { bic: [20, 22, 18, 21, 19], cubic: [19, 21, 17.5, 20, 19.5], reno: inOrder.reno };
    const f = finding(runs(close), 'order');
    expect(f.verdict).toBe('inconclusive');
    expect(f.test.p).toBeLessThan(0.05);
    expect(f.test.ci?.undecided).toBe(1);
    const n = f.test.repetitionsToDecide;
    expect(n).toBeGreaterThan(5);
    expect(n).toBeLessThanOrEqual(100);
    expect(f.sentence).toContain(
      `the agreement range straddles 75 %; about ${n} repetitions would decide it at these means and spreads)`,
    );
  });

  it('is inconclusive with one run per item, even in the paper’s order', () => {
    const f = finding(runs({ bic: [30], cubic: [20], reno: [10] }), 'order');
    expect(f.verdict).toBe('inconclusive');
    expect(f.sentence).toMatch(/3 of 3 items have fewer than 3 runs/);
  });
});

describe('close by bootstrap interval inside the tolerance band', () => {
  it('holds inside, is inconclusive across an edge', () => {
    expect(finding(runs(inOrder), 'cubic.twenty').verdict).toBe('holds');
    const wide = finding(runs({ cubic: [20, 30, 10, 25, 15] }), 'cubic.twenty');
    expect(wide.verdict).toBe('inconclusive');
    expect(wide.sentence).toMatch(/the band ±2 runs 18 to 22/);
    // Mean 20, sd 7.9 over 5 runs, 2 from either edge: t(62) · 7.9/√63 = 1.99.
    expect(wide.test.repetitionsToDecide).toBe(63);
    expect(wide.test).toMatchObject({ variants: 1, runs: 5, runsToDecide: 58 });
    expect(wide.sentence).toMatch(/an edge of the band; about 63 repetitions would decide it/);
    expect(finding(runs(slow), 'cubic.twenty').verdict).toBe('fails');
  });
});

describe('decisions are reproducible and carried everywhere', () => {
  it('gives the same comparison for the same runs', () => {
    const rows = runs(overlapping);
    expect(JSON.stringify(comparePreset(toy(), rows))).toBe(JSON.stringify(comparePreset(toy(), rows)));
  });

  it('prints each verdict with its test and n, and counts inconclusive ones', () => {
    const c = comparePreset(toy(), runs(overlapping));
    const text = formatComparison(c);
    expect(text).toMatch(/\[inconclusive\] CUBIC: the paper puts it above 15/);
    expect(text).toMatch(
      /test: 95 % CI \(bootstrap ∪ jackknife t\) of the mean against > 15; n = 5 runs per cell/,
    );
    expect(c.summary).toMatch(/of 3 findings, 0 hold, 0 do not, 3 inconclusive/);
  });

  it('reads comparison.json written before verdicts (holds only)', () => {
    expect(verdictOf({ holds: true })).toBe('holds');
    expect(verdictOf({ holds: false })).toBe('fails');
    expect(verdictOf({ holds: null })).toBe('inconclusive');
    expect(verdictOf({ holds: true, verdict: 'inconclusive' })).toBe('inconclusive');
  });
});

describe('closed-form values', () => {
  it('decide on one run: every run would give the same theory value', () => {
    const p = parsePreset(
      'theory',
      `
paper: { id: '003', short: Toy, title: Toy }
experiment: Responsiveness.
finding: Reno takes long to recover from one loss on a long fat path.
scaling: { rule: 'Nothing is scaled in this toy preset at all, rates are kept.', rateFactor: 1, timeFactor: 1 }
ci: { seconds: 5 }
claims:
  - id: slow
    kind: threshold
    text: Recovery by theory takes more than a second.
    ref: { slide: Summary }
    item: { label: responsiveness by theory, measure: { kind: metric, scope: theory, id: responsiveness } }
    op: '>'
    value: 1
`,
      () => campaign,
    );
    const summary = {
      metrics: { flows: [], groups: [], theory: [{ metrics: [{ id: 'responsiveness', value: 5 }] }] },
    } as unknown as RunSummary;
    const [row] = runs({ reno: [10] });
    const f = comparePreset(p, [{ ...(row as PresetRow), summary }]).findings[0];
    expect(f?.verdict).toBe('holds');
    expect(f?.test).toMatchObject({ n: 1, deterministic: true });
    expect(formatComparison(comparePreset(p, [{ ...(row as PresetRow), summary }]))).toMatch(
      /closed-form, one run decides/,
    );
  });
});

describe('ordering within shared settings', () => {
  // Three stacks at four path delays: the delay moves every stack's goodput by more than the stacks
  // differ, so pooled over all runs the order drowns in it; within each delay it is clear.
  const byDelay = campaign.replace(
    'vary:\n  flows[0].stack: [reno, cubic, bic]',
    'vary:\n  flows[0].stack: [reno, cubic, bic]\n  paths.main.rtt: [20ms, 50ms, 100ms, 200ms]',
  );
  const base: Record<string, number> = { '20ms': 80, '50ms': 60, '100ms': 40, '200ms': 20 };
  const offset: Record<string, number> = { bic: 6, cubic: 3, reno: 0 };
  const rows: PresetRow[] = Object.keys(offset).flatMap((stack) =>
    Object.keys(base).flatMap((rtt) =>
      [-1, 0, 1].map((noise, i) => ({
        id: `${stack}-${rtt}-${i + 1}`,
        repetition: i + 1,
        params: { 'flows[0].stack': stack, 'paths.main.rtt': rtt },
        status: 'completed' as const,
        verdict: 'valid' as const,
        goodputMbps: { test: (base[rtt] as number) + (offset[stack] as number) + noise, other: 1 },
        jainForward: 1,
        utilisationForward: 0.9,
      })),
    ),
  );

  it('tests the order within each setting every stack ran in, so the setting does not count against it', () => {
    const f = comparePreset(
      parsePreset('toy', meta, () => byDelay),
      rows,
    ).findings.find((x) => x.id === 'order');
    expect(f?.sentence).toMatch(/over 36 runs, compared within 12 blocks of one setting and seed/);
    expect(f?.test.p).toBeLessThan(0.001);
    expect(f?.verdict).toBe('holds');
  });
});

describe('ordering over items that share runs', () => {
  // Both flows of every run are items, as when each run pairs two stacks: 3 runs give 6 values.
  const pairMeta = `
paper: { id: '000', short: Toy, title: A toy paper }
experiment: Two flows on one path.
finding: The test flow outruns the other.
scaling: { rule: 'Nothing is scaled in this toy preset at all, rates are kept.', rateFactor: 1, timeFactor: 1 }
ci: { seconds: 5 }
claims:
  - id: pair
    kind: ordering
    subject: Flows by goodput
    text: The test flow above the other.
    ref: { table: Table 9 }
    paperOrder: [[test], [other]]
    items:
      - { label: test, where: { 'flows[0].stack': reno }, measure: { kind: goodput, flows: test } }
      - { label: other, where: { 'flows[0].stack': reno }, measure: { kind: goodput, flows: other } }
`;
  const rows = runs({ reno: [30, 31, 29] }).map((r) => {
    const test = r.goodputMbps.test as number;
    return { ...r, goodputMbps: { test, other: test - 10 } };
  });

  it('says how many runs the values came from instead of counting each value as a run', () => {
    const f = comparePreset(
      parsePreset('toy', pairMeta, () => campaign),
      rows,
    ).findings.find((x) => x.id === 'pair');
    expect(f?.sentence).toMatch(
      /Kendall τ-b [0-9.]+ over 6 values from 3 runs \(S's variance × 2\.00: values of one run are not independent\), /,
    );
    // Two values per run: the normal law with twice S's variance, no exact tail claimed.
    expect(f?.test).toMatchObject({ pMethod: 'normal', designEffect: 2 });
    const alone = kendallTau([1, 1, 1, 0, 0, 0], [30, 31, 29, 20, 21, 19]);
    expect(f?.test?.p).toBeGreaterThan(alone.pGreater);
  });

  it('keeps "N runs" where every value is its own run', () => {
    expect(finding(runs(inOrder), 'order').sentence).toMatch(/over 15 runs, /);
  });
});
