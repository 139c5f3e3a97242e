// Claims about values, decided with a 95 % interval (the bootstrap, widened to the jackknife t
// interval at a few runs): one value against a bound (threshold), against the paper's value with a
// tolerance (close), two values alike (similar); and shares judged cell by cell (decidedShare.ts):
// the cells past a bound (share), the signs of several values (signs). Each holds when its whole
// interval or range lies where the claim accepts, fails when none of it does, and is inconclusive
// when it straddles the edge or when a cell has fewer than MIN_RUNS runs.

import { seedFromText } from '@lfnlab/metrics';
import {
  bandEdges,
  creditRange,
  EACH_UNIT,
  outcomesOf,
  shareRange,
  shareRangeText,
  shareRecord,
  shareToDecide,
  type UnitCredit,
  valueCi,
} from './decidedShare.js';
import { type Estimate, type EstimateContext, estimate, estimates, jointCi, underRun } from './estimate.js';
import { fmt, pct } from './fmt.js';
import {
  CI_NAME,
  ciRecord,
  ciText,
  decide,
  type Judged,
  judged,
  opRegion,
  opText,
  passes,
  type Region,
  repetitionsText,
  repetitionsToDecide,
  testOf,
  underRunText,
  verdictText,
} from './judge.js';
import type { Claim } from './schema.js';
import type { Verdict } from './verdict.js';

type ClaimOf<K extends Claim['kind']> = Extract<Claim, { kind: K }>;

/** A cell a share cannot judge on its own: it counts every way it could go. */
const UNDECIDED: UnitCredit = { min: 0, max: 1 };

/**
 * A share's cells short of runs: those measured fewer than MIN_RUNS times, and those whose runs
 * were all made and none usable (the lab could not carry them). Both count every way they could go,
 * so the share can still be decided when they could not move it past its bound; cells never run,
 * or that the preset does not measure, stay out of the share. `text`: "…; " naming them, or "".
 */
function shortCells(items: readonly Estimate[]): { unmeasured: Estimate[]; text: string } {
  const measured = items.filter((e) => e.value !== null);
  const few = underRun(measured);
  const unmeasured = items.filter((e) => e.value === null && e.tried > 0);
  const parts = [
    ...(unmeasured.length
      ? [
          `${unmeasured.length} cell${unmeasured.length > 1 ? 's' : ''} with none of ${unmeasured.length > 1 ? 'their' : 'its'} runs usable`,
        ]
      : []),
    ...(few.length ? [underRunText(few, measured.length, 'cell', false)] : []),
  ];
  return {
    unmeasured,
    text: parts.length ? `${parts.join(' and ')}, counted every way they could go; ` : '',
  };
}

/** Why a value is missing: no runs yet, or runs that gave none (their counts left out, say). */
const unmeasured = (e: Estimate) => (e.tried > 0 ? 'no value from the runs made' : 'not measured yet');

const NO_CI = 'the bootstrap could not compute an interval';

interface Interval {
  ci: NonNullable<ReturnType<typeof jointCi>>;
  point: number;
  region: Region;
}

/**
 * How many repetitions would decide an inconclusive verdict: every interval that straddles an edge
 * must clear it, so the most any of them needs (null when one would need more than the lab runs).
 */
function toDecide(verdict: Verdict, open: readonly Interval[]) {
  // A value never reached in some run has no spread to scale.
  if (verdict !== 'inconclusive' || open.length === 0 || open.some((x) => !Number.isFinite(x.point)))
    return { text: '', record: {} };
  const each = open.map((x) => repetitionsToDecide(x.ci, x.point, x.region));
  const n = each.includes(null) ? null : Math.max(...(each as number[]));
  return { text: `; ${repetitionsText(n)}`, record: { repetitionsToDecide: n } };
}

export function threshold(c: ClaimOf<'threshold'>, ctx: EstimateContext): Judged {
  const e = estimate(c.item, ctx, c.missing === 'infinite');
  const name = `${CI_NAME} of the mean against ${c.op} ${fmt(c.value)}`;
  const test = testOf(name, [e]);
  const paper = `the paper puts it ${opText[c.op]} ${fmt(c.value)}`;
  if (e.value === null) return judged('inconclusive', `${e.label}: ${unmeasured(e)} (${paper}).`, test);
  const here = e.value === Number.POSITIVE_INFINITY ? 'never reached in a run' : fmt(e.value);
  if (underRun([e]).length)
    return judged(
      'inconclusive',
      `${e.label}: ${paper}; here ${here}: inconclusive, ${underRunText([e], 1)}.`,
      test,
    );
  const ci = valueCi(e, c.id);
  if (!ci) return judged('inconclusive', `${e.label}: ${paper}; here ${here}: inconclusive, ${NO_CI}.`, test);
  const region = opRegion(c.op, c.value);
  const verdict = decide(ci, region);
  const more = toDecide(verdict, [{ ci, point: e.value, region }]);
  return judged(
    verdict,
    `${e.label}: ${paper}; here ${here} (${ciText(ci)}): ${verdictText(verdict, `the interval straddles ${fmt(c.value)}${more.text}`)}.`,
    { ...test, ci: ciRecord(ci), ...more.record },
  );
}

/** The union of the tolerance bands around the paper's value (each contains it, so one interval). */
function toleranceBand(paper: number, t: ClaimOf<'close'>['tolerance']): Region {
  const bands: [number, number][] = [[paper, paper]];
  if (t.abs !== undefined) bands.push([paper - t.abs, paper + t.abs]);
  if (t.rel !== undefined) bands.push([paper - t.rel * Math.abs(paper), paper + t.rel * Math.abs(paper)]);
  if (t.factor !== undefined && paper > 0) bands.push([paper / t.factor, paper * t.factor]);
  return { lo: Math.min(...bands.map((b) => b[0])), hi: Math.max(...bands.map((b) => b[1])) };
}

function toleranceText(t: {
  abs?: number | undefined;
  rel?: number | undefined;
  factor?: number | undefined;
}) {
  return [
    t.abs !== undefined ? `±${fmt(t.abs)}` : null,
    t.rel !== undefined ? `±${pct(t.rel)}` : null,
    t.factor !== undefined ? `a factor ${fmt(t.factor)}` : null,
  ]
    .filter(Boolean)
    .join(' or ');
}

export function close(c: ClaimOf<'close'>, ctx: EstimateContext): Judged {
  const e = estimate(c.item, ctx);
  const paper = c.value ?? e.paper;
  const test = testOf(`${CI_NAME} of the mean inside the paper's tolerance`, [e]);
  if (paper === null) return judged('inconclusive', `${e.label}: no paper value to compare with.`, test);
  const unit = e.unit ? ` ${e.unit}` : '';
  const paperText = `paper ${fmt(paper)}${unit}${e.scaled && c.value === undefined ? ' (at our scale)' : ''}`;
  if (e.value === null) return judged('inconclusive', `${e.label}: ${paperText}; ${unmeasured(e)}.`, test);
  const band = toleranceBand(paper, c.tolerance);
  const head = `${e.label}: ${paperText}, here ${fmt(e.value)}`;
  const bandText = `the band ${toleranceText(c.tolerance)} runs ${fmt(band.lo)} to ${fmt(band.hi)}`;
  if (underRun([e]).length)
    return judged('inconclusive', `${head}: inconclusive, ${underRunText([e], 1)}.`, test);
  const ci = valueCi(e, c.id);
  if (!ci) return judged('inconclusive', `${head}: inconclusive, ${NO_CI}.`, test);
  const verdict = decide(ci, band);
  const more = toDecide(verdict, [{ ci, point: e.value, region: band }]);
  return judged(
    verdict,
    `${head} (${ciText(ci)}); ${bandText}: ${verdictText(verdict, `the interval crosses an edge of the band${more.text}`)}.`,
    { ...test, ci: ciRecord(ci), ...more.record },
  );
}

export function similar(c: ClaimOf<'similar'>, ctx: EstimateContext): Judged {
  const [a, b] = c.items.map((it) => estimate(it, ctx));
  if (!a || !b) throw new Error('a similar claim needs two items');
  const test = testOf(`${CI_NAME} of the difference inside the tolerance`, [a, b]);
  if (a.value === null || b.value === null)
    return judged('inconclusive', `${a.label} vs ${b.label}: not measured yet.`, test);
  const d = a.value - b.value;
  const rel = Math.abs(d) / Math.max(Math.abs(a.value), Math.abs(b.value), 1e-12);
  const head = `${a.label} ${fmt(a.value)} vs ${b.label} ${fmt(b.value)}: they differ by ${fmt(Math.abs(d))} (${pct(rel)}); the paper has them about the same`;
  const few = underRun([a, b]);
  if (few.length) return judged('inconclusive', `${head}: inconclusive, ${underRunText(few, 2)}.`, test);
  // One interval per tolerance given: the claim holds if either accepts, fails only if both reject.
  const checks: (Interval & { verdict: Verdict; text: string })[] = [];
  const t = c.tolerance;
  if (t.abs !== undefined) {
    const ci = jointCi([a, b], ([x, y]) => (x as number) - (y as number), `${c.id}:abs`);
    const region = { lo: -t.abs, hi: t.abs };
    if (ci)
      checks.push({
        verdict: decide(ci, region),
        text: `difference ${ciText(ci)} against ±${fmt(t.abs)}`,
        ci,
        point: d,
        region,
      });
  }
  if (t.rel !== undefined) {
    const relOf = ([x, y]: number[]) =>
      ((x as number) - (y as number)) / Math.max(Math.abs(x as number), Math.abs(y as number), 1e-12);
    const ci = jointCi([a, b], relOf, `${c.id}:rel`);
    const region = { lo: -t.rel, hi: t.rel };
    if (ci)
      checks.push({
        verdict: decide(ci, region),
        text: `relative difference ${ciText(ci)} against ±${pct(t.rel)}`,
        ci,
        point: relOf([a.value, b.value]),
        region,
      });
  }
  if (!checks.length) return judged('inconclusive', `${head}: inconclusive, ${NO_CI}.`, test);
  const verdict: Verdict = checks.some((x) => x.verdict === 'holds')
    ? 'holds'
    : checks.every((x) => x.verdict === 'fails')
      ? 'fails'
      : 'inconclusive';
  const shown = checks.find((x) => x.verdict === verdict) ?? (checks[0] as (typeof checks)[number]);
  const more = toDecide(
    verdict,
    checks.filter((x) => x.verdict === 'inconclusive'),
  );
  return judged(
    verdict,
    `${head}; ${checks.map((x) => x.text).join('; ')}: ${verdictText(verdict, `the interval crosses the tolerance${more.text}`)}.`,
    { ...test, ci: ciRecord(shown.ci), ...more.record },
  );
}

export function share(c: ClaimOf<'share'>, ctx: EstimateContext): Judged {
  const items = estimates(c.items, ctx);
  const measured = items.filter((e) => e.value !== null);
  const need = Math.max(0, c.share - c.slack);
  const test = testOf(`share of cells ${opText[c.op]} ${fmt(c.value)}, ${EACH_UNIT} its value`, items);
  const paper = `the paper had ${pct(c.share)} (the claim needs ${pct(need)})`;
  if (measured.length === 0)
    return judged(
      'inconclusive',
      `None of the ${items.length} cells measured yet (the paper: ${pct(c.share)} ${opText[c.op]} ${fmt(c.value)}).`,
      test,
    );
  const k = measured.filter((e) => passes(e.value as number, c.op, c.value)).length;
  const head = `${k} of ${measured.length} measured cells (${pct(k / measured.length)}) are ${opText[c.op]} ${fmt(c.value)} here; ${paper}`;
  const extra = { agreement: k / measured.length };
  const region = opRegion(c.op, c.value);
  const short = shortCells(items);
  const range = shareRange(
    measured
      .map((e, i) => {
        if (underRun([e]).length) return UNDECIDED;
        const ci = valueCi(e, `${c.id}:${i}`);
        const d = ci ? decide(ci, region) : 'inconclusive';
        const outcomes = new Set([passes(e.value as number, c.op, c.value) ? 1 : 0]);
        if (d !== 'fails') outcomes.add(1);
        if (d !== 'holds') outcomes.add(0);
        return creditRange(outcomes, (o) => o, ci, { observed: e.value as number, edges: region });
      })
      .concat(short.unmeasured.map(() => UNDECIDED)),
  );
  const verdict = decide(range, { lo: need, hi: 1 });
  const more = verdict === 'inconclusive' ? shareToDecide(range) : { text: '', record: {} };
  return judged(
    verdict,
    `${head}; ${short.text}share ${shareRangeText(range, 'cells')}: ${verdictText(verdict, `the range straddles ${pct(need)}${more.text}`)}.`,
    { ...test, ci: shareRecord(range, seedFromText(c.id)), ...more.record },
    extra,
  );
}

export function signs(c: ClaimOf<'signs'>, ctx: EstimateContext): Judged {
  const items = estimates(c.items, ctx).filter((e) => e.paper !== null);
  const measured = items.filter((e) => e.value !== null);
  const sign = (v: number) => (Math.abs(v) <= c.deadband ? 0 : v > 0 ? 1 : -1);
  const sym = (s: number) => (s > 0 ? '+' : s < 0 ? '−' : '0');
  const test = testOf(`share of matching signs, ${EACH_UNIT} its value`, items);
  if (measured.length === 0) return judged('inconclusive', `${c.subject}: not measured yet.`, test);
  const same = measured.filter((e) => sign(e.paper as number) === sign(e.value as number));
  const agreement = same.length / measured.length;
  const head =
    `${c.subject} (0 within ±${fmt(c.deadband)}): paper ${measured.map((e) => `${e.name} ${sym(sign(e.paper as number))}`).join(', ')}; ` +
    `here ${measured.map((e) => `${e.name} ${sym(sign(e.value as number))}`).join(', ')} — ${same.length} of ${measured.length} agree, the claim needs ${pct(c.minAgreement)}`;
  const short = shortCells(items);
  const range = shareRange(
    measured
      .map((e, i) => {
        if (underRun([e]).length) return UNDECIDED;
        const paperSign = sign(e.paper as number);
        const ci = valueCi(e, `${c.id}:${i}`);
        const outcomes = outcomesOf(ci, e.value as number, c.deadband);
        return creditRange(outcomes, (s) => (s === paperSign ? 1 : 0), ci, {
          observed: e.value as number,
          edges: bandEdges(c.deadband),
        });
      })
      .concat(short.unmeasured.map(() => UNDECIDED)),
  );
  const verdict = decide(range, { lo: c.minAgreement, hi: 1 });
  const more = verdict === 'inconclusive' ? shareToDecide(range) : { text: '', record: {} };
  return judged(
    verdict,
    `${head}; ${short.text}agreement ${shareRangeText(range, 'signs')}: ${verdictText(verdict, `the range straddles ${pct(c.minAgreement)}${more.text}`)}.`,
    { ...test, ci: shareRecord(range, seedFromText(c.id)), ...more.record },
    { agreement },
  );
}
