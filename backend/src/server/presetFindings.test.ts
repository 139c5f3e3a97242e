// A preset's findings and the cost of "Run it" over HTTP, on the fake lab: nothing yet (said, not an
// error), committed results (a fixture comparison.json), the caller's own runs (compared now, and
// only theirs), and a pick's runs, wall time and quota fit with a pick that fits.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  type Client,
  runEnded,
  type TestServer,
  testServer,
  userClient,
} from '../../test/support/testkit.js';
import { expandCampaign } from '../campaign/expand.js';
import type { PresetFindingsView } from '../presets/findingsView.js';
import { comparePreset, loadPresets, presetForReproduction } from '../presets/index.js';
import type { PresetPlanView } from '../service/presetPlan.js';
import type { Run } from '../service/types.js';

const COMMITTED = 'seed000-table4';
const OWN = 'seed001-sst';
const UNDER_WAY = 'seed002-selfsimilar';

let s: TestServer;
let admin: Client;

const VALUE_CI = {
  low: 0.1,
  high: 0.13,
  level: 0.95,
  resamples: 10_000,
  seed: 9,
  paired: true,
  bootstrap: { low: 0.11, high: 0.12 },
  t: { low: 0.1, high: 0.13, se: 0.0035, df: 2 },
};

/** A committed comparison as `lfnlab preset compare` writes it, one finding decided, one cell measured. */
function writeFixture(dir: string) {
  const preset = loadPresets().find((p) => p.name === COMMITTED);
  if (!preset) throw new Error(`no preset ${COMMITTED}`);
  const c = comparePreset(preset, []);
  // An ordering over `t4.with.*`: the finding's cells are the published numbers the glob names.
  const finding = c.findings.find((f) => f.id === 'order.with');
  const cell = c.cells.find((x) => x.id === 't4.with.fast');
  if (!finding || !cell) throw new Error(`fixture: ${COMMITTED} has no order.with over t4.with.fast`);
  finding.verdict = 'holds';
  finding.holds = true;
  finding.test = {
    ...finding.test,
    n: 3,
    nMax: 5,
    measured: 1,
    ci: { low: 0.5, high: 1, level: 0.95, resamples: 10_000, seed: 7, paired: true, units: 11, undecided: 2 },
    // An ordering over values that share runs: the p-value's law and the variance it was widened by.
    tau: 0.48,
    p: 0.0004,
    pMethod: 'normal',
    designEffect: 1.71,
    // A variant its averages left out: the lab could not carry it.
    leftOut: [{ label: 'bic · window 1.2 BDP', usable: 1, tried: 3 }],
  };
  // A value judged by the bootstrap widened to the t interval (small n).
  const quarter = c.findings.find((f) => f.id === 'fast.quarter');
  if (!quarter) throw new Error(`fixture: ${COMMITTED} has no fast.quarter`);
  // Inconclusive at 3 repetitions: how many would decide it.
  quarter.test = { ...quarter.test, ci: VALUE_CI, repetitionsToDecide: 8 };
  cell.measured = { value: 0.3, sd: 0.05, rows: 3, n: 3 };
  mkdirSync(join(dir, COMMITTED), { recursive: true });
  writeFileSync(join(dir, COMMITTED, 'comparison.json'), JSON.stringify(c));
  // What the runs were, as `lfnlab preset publish` writes it: two suspect, and why.
  const runs = {
    preset: COMMITTED,
    length: { kind: 'reproduction', seconds: 120, repeat: 3 },
    runs: { planned: 21, completed: 21, valid: 19, suspect: 2, invalid: 0 },
    invalidTries: 0,
    clock: { dilated: 21 },
    wallS: 9000,
    labS: 2520,
    measuredAt: '2026-11-27T03:00:00.000Z',
    flagged: [
      {
        check: 'packet-spacing',
        expected: '>= 90 % of busy gaps on time',
        warn: 2,
        fail: 0,
        min: 0.85,
        max: 0.88,
      },
    ],
  };
  writeFileSync(join(dir, COMMITTED, 'runs.json'), JSON.stringify(runs));
  // Two targeted experiments written beside the results, as for a finding that failed there: the
  // second tests the next candidate once the first ruled its own out.
  writeFileSync(
    join(dir, COMMITTED, 'explanations.yaml'),
    [
      '- finding: fast.quarter\n  hypothesis: The reverse flow starts too late.\n  experiment: lfnlab campaign run x.yaml\n  answer: No, it does not.\n',
      '- finding: fast.quarter\n  hypothesis: Then the reverse flow is too large.\n  experiment: lfnlab campaign run y.yaml\n  answer: "Yes: halved, FAST holds its quarter."\n',
    ].join(''),
  );
  return {
    /** The test as comparison.json carries it. */
    test: JSON.parse(JSON.stringify(finding.test)) as unknown,
    finding: finding.id,
    cell: cell.id,
    scale: cell.published.scale,
    cells: c.cells.filter((x) => x.id.startsWith('t4.with.')).length,
  };
}

let fixture: ReturnType<typeof writeFixture>;

/** One finished run of a reproduction kept as `preset run --progress` keeps it. */
function keepOneRun(dir: string) {
  const preset = loadPresets().find((p) => p.name === UNDER_WAY);
  if (!preset) throw new Error(`no preset ${UNDER_WAY}`);
  const [first] = presetForReproduction(preset);
  const v = first ? expandCampaign(first.campaign)[0] : undefined;
  if (!first || !v) throw new Error(`${UNDER_WAY} has no reproduction runs`);
  const part = join(dir, UNDER_WAY, 'progress', first.part);
  const d = join(part, 'runs', v.id);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(part, 'campaign.json'), JSON.stringify({ variants: expandCampaign(first.campaign) }));
  writeFileSync(join(d, 'spec.json'), JSON.stringify(v.spec));
  writeFileSync(
    join(d, 'summary.json'),
    JSON.stringify({ status: 'completed', verdict: 'valid', flows: [], paths: [] }),
  );
}

beforeAll(async () => {
  const results = mkdtempSync(join(tmpdir(), 'lfnlab-results-'));
  fixture = writeFixture(results);
  keepOneRun(results);
  s = await testServer({ presetResultsDir: results });
  admin = await adminClient(s);
});
afterAll(async () => {
  await s.close();
});

describe('GET /api/presets/:id/findings', () => {
  it('says when there is nothing to compare yet, with what the lab cannot express', async () => {
    const r = await admin.req('GET', '/api/presets/seed003-ber/findings');
    expect(r.statusCode).toBe(200);
    const v = r.json<PresetFindingsView>();
    expect(v.source).toBeNull();
    expect(v.findings).toEqual([]);
    expect(v.message).toMatch(/^No results yet/);
    expect(v.message).not.toMatch(/under way/);
    const meta = loadPresets().find((p) => p.name === 'seed003-ber')?.meta;
    expect(v.notExpressed).toEqual(meta?.notExpressed);
  });

  it('judges a reproduction under way provisionally on the runs it kept, saying how far it is', async () => {
    const v = (await admin.req('GET', `/api/presets/${UNDER_WAY}/findings`)).json<PresetFindingsView>();
    expect(v.message).toBeNull();
    expect(v.source).toMatchObject({ kind: 'provisional', runs: 1, of: 36 });
    expect(v.source?.kind === 'provisional' && v.source.wallLeftS).toBeGreaterThan(0);
    const claims = loadPresets().find((p) => p.name === UNDER_WAY)?.meta.claims ?? [];
    expect(v.findings.map((f) => f.id)).toEqual(claims.map((c) => c.id));
    // One run cannot decide anything: every finding stays inconclusive until there are 3 per cell.
    expect(v.findings.every((f) => f.verdict === 'inconclusive')).toBe(true);
  });

  it('serves the committed comparison: verdict, test, n, ours beside the scaled published value', async () => {
    const v = await admin.json<PresetFindingsView>('GET', `/api/presets/${COMMITTED}/findings`);
    expect(v.source).toEqual({
      kind: 'committed',
      file: `presets/results/${COMMITTED}/comparison.json`,
      runs: 0,
      record:
        'reproduction length: 120 s runs × 3 repetitions · 21 of 21 runs (19 valid, 2 suspect, 0 invalid) · lab clock: dilated 21 · wall time 2.5 h. Not valid because of: packet spacing in 2 runs (measured 85 % to 88 %; expected >= 90 % of busy gaps on time)',
    });
    const f = v.findings.find((x) => x.id === fixture.finding);
    expect(f?.verdict).toBe('holds');
    expect(f?.test).toMatchObject({ n: 3, nMax: 5 });
    // The interval says how it was drawn: the web app prints "paired by seed", the undecided units
    // of a share and "t on 2 df" from it, so the API must pass every field through.
    expect(f?.test?.ci).toEqual({
      low: 0.5,
      high: 1,
      level: 0.95,
      resamples: 10_000,
      seed: 7,
      paired: true,
      units: 11,
      undecided: 2,
    });
    expect(v.findings.find((x) => x.id === 'fast.quarter')?.test?.ci).toEqual(VALUE_CI);
    expect(v.findings.find((x) => x.id === 'fast.quarter')?.test?.repetitionsToDecide).toBe(8);
    // Every field of the test, the design effect among them (the response schema once dropped it).
    expect(f?.test).toEqual(fixture.test);
    expect(f?.test?.designEffect).toBe(1.71);
    expect(f?.test?.leftOut).toEqual([{ label: 'bic · window 1.2 BDP', usable: 1, tried: 3 }]);
    expect(f?.cells).toHaveLength(fixture.cells);
    const cell = f?.cells.find((c) => c.id === fixture.cell);
    expect(cell?.ours).toEqual({ mean: 0.3, sd: 0.05, n: 3 });
    expect(cell?.published.scale).toBe(fixture.scale);
    expect(cell?.published.scaled).toBeCloseTo((cell?.published.value ?? 0) * fixture.scale);
    expect(f?.tested).toEqual([]);
    expect(v.findings.find((x) => x.id === 'fast.quarter')?.tested).toEqual([
      {
        hypothesis: 'The reverse flow starts too late.',
        experiment: 'lfnlab campaign run x.yaml',
        answer: 'No, it does not.',
      },
      {
        hypothesis: 'Then the reverse flow is too large.',
        experiment: 'lfnlab campaign run y.yaml',
        answer: 'Yes: halved, FAST holds its quarter.',
      },
    ]);
    // Every other claim is still there, undecided on no runs.
    expect(
      v.findings.filter((x) => x.id !== fixture.finding).every((x) => x.verdict === 'inconclusive'),
    ).toBe(true);
  });

  it("compares the caller's own completed runs, and only theirs", async () => {
    const ada = await userClient(s, admin, 'ada-findings', 'instructor');
    const check = await ada.req('POST', '/api/runs', { preset: OWN, shorten: 3, variant: 'nope' });
    const variant = (check.json().problems[0].message as string)
      .replace('must be one of ', '')
      .split(', ')[0];
    const run = await ada.json<Run>('POST', '/api/runs', { preset: OWN, shorten: 3, variant });
    expect((await runEnded(s, run.id)).status).toBe('completed');
    const mine = await ada.json<PresetFindingsView>('GET', `/api/presets/${OWN}/findings`);
    expect(mine.source).toMatchObject({ kind: 'runs', runs: 1, batches: 1, shortenedToS: 3 });
    expect(mine.findings.length).toBeGreaterThan(0);
    // One run per cell decides nothing: every finding is inconclusive, with n = 1 or 0 shown.
    for (const f of mine.findings) {
      expect(f.verdict).toBe('inconclusive');
      expect(f.test?.n).toBeLessThanOrEqual(1);
    }
    const other = await userClient(s, admin, 'bob-findings', 'instructor');
    const theirs = await other.json<PresetFindingsView>('GET', `/api/presets/${OWN}/findings`);
    expect(theirs.source).toBeNull();
  });

  it('404s an unknown preset', async () => {
    const r = await admin.req('GET', '/api/presets/nope/findings');
    expect(r.statusCode).toBe(404);
  });
});

describe('POST /api/presets/:id/plan', () => {
  it('prices the pick: runs, lab seconds and wall time with the per-run overhead', async () => {
    const p = await admin.json<PresetPlanView>('POST', `/api/presets/${OWN}/plan`, { shorten: 10 });
    expect(p.pick).toEqual({ part: 'main', variant: null, shorten: 10 });
    expect(p.cost.runs).toBe(p.variants.length);
    expect(p.cost.labS).toBe(10 * p.variants.length);
    expect(p.cost.wallS).toBeCloseTo(p.cost.labS / p.cost.pace + p.cost.overheadS * p.cost.runs, 0);
    // The fake lab reports no dilation, so its runs go at the pace its driver expects (50× here),
    // not at real time.
    expect(p.cost.pace).toBe(50);
    expect(p.parts).toEqual([{ name: 'main', runs: p.variants.length }]);
    expect(p.quota.fits).toBe(true);
    const one = await admin.json<PresetPlanView>('POST', `/api/presets/${OWN}/plan`, {
      variant: p.variants[1]?.id,
    });
    expect(one.cost.runs).toBe(1);
    expect(one.cost.labS).toBe(500);
  });

  it("marks what does not fit a student's quota, naming the field and limit, and offers what does", async () => {
    const st = await userClient(s, admin, 'cy-plan', 'student');
    const p = await st.json<PresetPlanView>('POST', `/api/presets/${OWN}/plan`, {});
    expect(p.quota.fits).toBe(false);
    expect(p.quota.limits).toMatchObject({ concurrentRuns: 1, maxDurationS: 120 });
    const paths = p.quota.problems.map((x) => x.path);
    expect(paths).toContain('concurrentRuns');
    expect(paths).toContain('duration');
    expect(p.quota.problems.find((x) => x.path === 'duration')?.message).toMatch(/500 s .* quota of 120 s/);
    const tooManyFlows = p.variants.filter((v) => v.problems.some((x) => x.path === 'flows'));
    expect(tooManyFlows.every((v) => !v.fits)).toBe(true);
    const hint = p.quota.suggestion;
    expect(hint?.pick).toMatchObject({ part: 'main', shorten: 120 });
    expect(hint?.text).toMatch(/^one variant at a time, shortened to 120 s: /);
    expect(hint?.cost.runs).toBe(1);
    // The suggestion is a pick the service really starts for this student.
    const run = await st.req('POST', '/api/runs', { preset: OWN, ...hint?.pick });
    expect(run.statusCode).toBe(202);
    await runEnded(s, run.json<Run>().id);
  });

  it('refuses a bad pick naming the field and what is allowed', async () => {
    const bad = await admin.req('POST', `/api/presets/${OWN}/plan`, { variant: 'nope' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().problems[0].path).toBe('variant');
    const short = await admin.req('POST', `/api/presets/${OWN}/plan`, { shorten: 1 });
    expect(short.json().problems).toEqual([{ path: 'shorten', message: 'must be 2 to 3600 seconds' }]);
    const part = await admin.req('POST', `/api/presets/${OWN}/plan`, { part: 'nope' });
    expect(part.json().problems[0]).toEqual({ path: 'part', message: 'must be one of main' });
    const extra = await admin.req('POST', `/api/presets/${OWN}/plan`, { lab: 'default' });
    expect(extra.statusCode).toBe(400);
    // Twelve flows 50 s apart cannot start inside 10 s at whole-second spacing: the shortest
    // length that works is named, not every variant's schedule.
    const tooShort = await admin.req('POST', '/api/presets/seed001-dst/plan', { shorten: 10 });
    expect(tooShort.statusCode).toBe(400);
    expect(tooShort.json().problems).toEqual([
      {
        path: 'shorten',
        message: expect.stringMatching(
          /^must be at least 1[2-9] s for part main \(its flows start whole seconds apart\)/,
        ),
      },
    ]);
  });
});
