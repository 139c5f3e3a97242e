// Judging with variants the lab could not carry: every repetition ran and fewer than MIN_RUNS were
// usable (fidelity invalid). Averages leave them out and say so; shares count such cells every way.
import { describe, expect, it } from 'vitest';
import { toyCampaign } from '../../test/support/toyPreset.js';
import { comparePreset } from './compare.js';
import { parsePreset } from './load.js';
import type { PresetRow } from './measure.js';

const meta = `
paper: { id: '000', short: Carry, title: A toy paper }
experiment: Three stacks on two paths.
finding: The short path is fairer.
scaling: { rule: 'Nothing is scaled in this toy preset at all, rates are kept.', rateFactor: 1, timeFactor: 1 }
ci: { seconds: 5 }
tables:
  - id: t
    ref: { table: Table 9, section: '§9' }
    unit: ratio
    scale: 1
    measure: { kind: jain }
    columns:
      - { key: reno, label: Reno, where: { 'flows[0].stack': reno } }
      - { key: cubic, label: CUBIC, where: { 'flows[0].stack': cubic } }
      - { key: bic, label: BIC, where: { 'flows[0].stack': bic } }
    rows:
      - { key: short, label: 50 ms, where: { 'paths.main.rtt': 50ms }, values: [1, 1, 1] }
      - { key: long, label: 100 ms, where: { 'paths.main.rtt': 100ms }, values: [0.8, 0.8, 0.8] }
claims:
  - id: by.path
    kind: ordering
    subject: Jain's index by path
    text: The short path is fairer than the long one.
    ref: { table: Table 9 }
    paperOrder: [[short], [long]]
    tie: { abs: 0.005 }
    items:
      - { label: short, where: { 'paths.main.rtt': 50ms }, measure: { kind: jain } }
      - { label: long, where: { 'paths.main.rtt': 100ms }, measure: { kind: jain } }
  - id: mostly.fair
    kind: share
    text: Most cells are fair.
    ref: { table: Table 9 }
    items: ['t.*']
    op: '>='
    value: 0.7
    share: 0.6
  - id: bic.long
    kind: threshold
    text: BIC on the long path is fair enough.
    ref: { table: Table 9 }
    item: t.long.bic
    op: '>='
    value: 0.5
`;

const preset = () => parsePreset('carry', meta, () => toyCampaign);

/** Jain 0.99 on the short path and 0.85 on the long one, a little spread over repetitions. */
function runs(verdict: (stack: string, rtt: string, rep: number) => PresetRow['verdict']): PresetRow[] {
  return ['reno', 'cubic', 'bic'].flatMap((stack) =>
    ['50ms', '100ms'].flatMap((rtt) =>
      [1, 2, 3].map((rep) => ({
        id: `${stack}-${rtt}#${rep}`,
        label: `${stack} · ${rtt} · rep ${rep}`,
        repetition: rep,
        params: { 'flows[0].stack': stack, 'paths.main.rtt': rtt },
        status: 'completed' as const,
        verdict: verdict(stack, rtt, rep),
        goodputMbps: { test: 40, other: 40 },
        jainForward: (rtt === '50ms' ? 0.99 : 0.85) + 0.002 * rep,
        utilisationForward: 0.95,
      })),
    ),
  );
}

const finding = (rows: PresetRow[], id: string) => {
  const f = comparePreset(preset(), rows).findings.find((x) => x.id === id);
  if (!f) throw new Error(`no finding ${id}`);
  return f;
};

describe('variants the lab could not carry', () => {
  it('leaves them out of an average, decides on the rest and names them', () => {
    // BIC on the long path: all three repetitions ran, two were fidelity invalid.
    const rows = runs((s, rtt, rep) => (s === 'bic' && rtt === '100ms' && rep > 1 ? 'invalid' : 'valid'));
    const f = finding(rows, 'by.path');
    expect(f.verdict).toBe('holds');
    expect(f.test.leftOut).toEqual([{ label: 'bic · 100ms', usable: 1, tried: 3 }]);
    expect(f.sentence).toMatch(/Left out of the averages.*: bic · 100ms \(1 of 3 runs usable\)\./);
    // The long path's average stands on two stacks' runs, each with 3.
    expect(f.test).toMatchObject({ n: 3, nMax: 3 });
  });

  it('keeps a variant whose runs are not all made yet: the finding waits for them', () => {
    const rows = runs((s, rtt, rep) => (s === 'bic' && rtt === '100ms' && rep > 1 ? 'invalid' : 'valid')).map(
      (r) => (r.id === 'bic-100ms#3' ? { ...r, status: 'missing' as const, verdict: null } : r),
    );
    const f = finding(rows, 'by.path');
    expect(f.verdict).toBe('inconclusive');
    expect(f.test.leftOut).toBeUndefined();
    expect(f.sentence).toMatch(/fewer than 3 runs \(n = 1\); a test needs 3 or more to decide/);
  });

  it('keeps them when most of an average would go', () => {
    const rows = runs((s, rtt) => (s !== 'reno' && rtt === '100ms' ? 'invalid' : 'valid'));
    const f = finding(rows, 'by.path');
    expect(f.verdict).toBe('inconclusive');
    expect(f.test.leftOut).toBeUndefined();
  });

  it('counts a share’s cells short of usable runs every way they could go, and still decides', () => {
    const rows = runs((s, rtt, rep) =>
      s === 'bic' && rtt === '100ms'
        ? 'invalid'
        : s === 'cubic' && rtt === '100ms' && rep > 1
          ? 'invalid'
          : 'valid',
    );
    const f = finding(rows, 'mostly.fair');
    // 4 cells decided above 0.7, 2 undecided: at least 4 of 6 (67 %) against the needed 60 %.
    expect(f.verdict).toBe('holds');
    expect(f.test.ci).toMatchObject({ units: 6, undecided: 2, low: 4 / 6, high: 1 });
    expect(f.sentence).toMatch(
      /1 cell with none of its runs usable and 1 of 5 cells have fewer than 3 runs \(n = 1\) though every repetition ran \(the rest fidelity invalid\), counted every way they could go; share/,
    );
  });

  it('leaves a share inconclusive when the cells short of runs could move it past its bound', () => {
    const rows = runs((s, rtt) => (rtt === '100ms' && s !== 'reno' ? 'invalid' : 'valid'));
    const f = finding(rows, 'mostly.fair');
    // 4 decided, 2 open: 67 % to 100 % straddles nothing at 60 %; with 3 open it would.
    expect(f.verdict).toBe('holds');
    const worse = runs((_, rtt, rep) => (rtt === '100ms' || rep > 1 ? 'invalid' : 'valid'));
    const g = finding(worse, 'mostly.fair');
    expect(g.verdict).toBe('inconclusive');
    expect(g.test.ci).toMatchObject({ units: 6, undecided: 6 });
  });

  it('says a single cell the lab could not carry cannot be decided by more of the same runs', () => {
    const rows = runs((s, rtt, rep) => (s === 'bic' && rtt === '100ms' && rep > 1 ? 'invalid' : 'valid'));
    const f = finding(rows, 'bic.long');
    expect(f.verdict).toBe('inconclusive');
    expect(f.sentence).toMatch(
      /though every repetition ran \(the rest fidelity invalid\); the lab could not carry them, so a test cannot decide/,
    );
  });
});

const equivalenceCampaign = `
name: eq
base:
  name: eq
  duration: 60s
  paths: { main: { rtt: 50ms, rate: 100Mbit } }
  flows: [{ name: one, stack: highspeed }, { name: many, stack: reno, streams: 1 }]
vary:
  flows[1].streams: [1, 2, 4, 8]
`;

const equivalenceMeta = `
paper: { id: '000', short: Eq, title: A toy paper }
experiment: One flow against n streams.
finding: One flow is worth a few streams.
scaling: { rule: 'Nothing is scaled in this toy preset at all, rates are kept.', rateFactor: 1, timeFactor: 1 }
ci: { seconds: 5 }
published:
  - id: eq
    label: Streams one flow is worth
    value: 4
    unit: flows
    ref: { table: Table 1 }
    measure: { kind: equivalence, single: one, many: many, countParam: 'flows[1].streams' }
claims:
  - id: worth.two
    kind: threshold
    text: One flow is worth at least two streams.
    ref: { table: Table 1 }
    item: eq
    op: '>='
    value: 2
    missing: infinite
`;

/** One flow at 60 Mbit/s against n streams carrying `perStream` each; 8 streams fidelity invalid. */
function equivalenceRuns(perStream: number): PresetRow[] {
  return [1, 2, 4, 8].flatMap((n) =>
    [1, 2, 3].map((rep) => ({
      id: `s${n}#${rep}`,
      label: `${n} streams · rep ${rep}`,
      repetition: rep,
      params: { 'flows[1].streams': n },
      status: 'completed' as const,
      verdict: n === 8 ? ('invalid' as const) : ('valid' as const),
      goodputMbps: { one: 60 + rep * 0.1, many: perStream * n },
      jainForward: null,
      utilisationForward: null,
    })),
  );
}

describe('an equivalence count with the largest stream count the lab could not carry', () => {
  const equivalence = () => parsePreset('eq', equivalenceMeta, () => equivalenceCampaign);

  it('is still read where the crossing lies among the counts kept', () => {
    // 20 Mbit/s a stream: 40 at 2 streams, 80 at 4, so about 3 streams match the single flow.
    const f = comparePreset(equivalence(), equivalenceRuns(20)).findings[0];
    expect(f?.verdict).toBe('holds');
    expect(f?.test.leftOut).toEqual([{ label: '8 streams', usable: 0, tried: 3 }]);
  });

  it("gives the cell's n as runs per stream count (3), not the number of counts", () => {
    const cell = comparePreset(equivalence(), equivalenceRuns(20)).cells.find((c) => c.id === 'eq');
    // The 3 invalid runs at 8 streams are not rows a cell uses.
    expect(cell?.measured).toMatchObject({ n: 3, rows: 9 });
    expect(cell?.measured?.value).toBeCloseTo(3, 0);
  });

  it('is unknown, not infinite, when the crossing lies past them', () => {
    // 7.5 Mbit/s a stream meets 60 only at 8 streams: among 1, 2 and 4 it is never reached.
    const f = comparePreset(equivalence(), equivalenceRuns(7.5)).findings[0];
    expect(f?.verdict).toBe('inconclusive');
    expect(f?.sentence).toMatch(
      /^Streams one flow is worth: no value from the runs made \(the paper puts it at least 2\)\. Left out .*: 8 streams \(0 of 3 runs usable\)\.$/,
    );
  });
});
