// Claims about order. An ordering is tested two ways at once: Kendall's τ-b between the paper's
// rank of each item and our runs' values (every run a point, so run-to-run scatter counts against
// the order), with a one-sided p-value; and the bootstrap interval of the share of the paper's
// ordered pairs our means reproduce, against the claim's minAgreement. It holds when τ-b is
// significantly positive (p < ALPHA) and that interval lies at or above minAgreement; it fails when
// τ-b is significantly negative or the interval lies below minAgreement; otherwise inconclusive.
// A `pairs` claim is decided by the share interval alone.

import { kendallTau, seedFromText, stratifiedKendall } from '@lfnlab/metrics';
import {
  bandEdges,
  creditRange,
  differenceCi,
  EACH_UNIT,
  outcomesOf,
  type ShareRange,
  shareRange,
  shareRangeText,
  shareRecord,
  shareToDecide,
  toDecideNote,
} from './decidedShare.js';
import { type Estimate, type EstimateContext, estimates, underRun } from './estimate.js';
import { fmt, pct } from './fmt.js';
import { decide, type Judged, judged, testOf, underRunText } from './judge.js';
import { orderingToDecide } from './orderingToDecide.js';
import type { Claim } from './schema.js';
import { ALPHA, pText, type Verdict } from './verdict.js';

type ClaimOf<K extends Claim['kind']> = Extract<Claim, { kind: K }>;
type Tie = { rel?: number | undefined; abs?: number | undefined } | undefined;

/** −1, 0 or +1: a against b, with differences inside the tie tolerance counted as 0. */
export function cmp(a: number, b: number, tie: Tie): number {
  if (Math.abs(a - b) <= tolerance(a, b, tie)) return 0;
  return a > b ? 1 : -1;
}

/**
 * "A > B ≈ C" from values, highest first; with `shown`, each name carries its value and the unit
 * closes the chain ("A 81.2 > B 70.1 Mbit/s"), so a reader sees how far apart the items are.
 */
function orderText(xs: { name: string; v: number }[], tie: Tie, shown?: { unit: string | null }): string {
  const sorted = [...xs].sort((a, b) => b.v - a.v);
  let out = '';
  sorted.forEach((x, i) => {
    const prev = sorted[i - 1];
    if (prev) out += cmp(prev.v, x.v, tie) === 0 ? ' ≈ ' : ' > ';
    out += shown ? `${x.name} ${fmt(x.v)}` : x.name;
  });
  return shown?.unit ? `${out} ${shown.unit}` : out;
}

/** The unit every item shares, or null (none, or items in different units). */
function sharedUnit(items: readonly Estimate[]): string | null {
  const units = new Set(items.map((e) => e.unit));
  const [unit] = units;
  return units.size === 1 && unit ? unit : null;
}

/**
 * Paper ranks as numbers for τ-b (higher is ranked higher). Values within the tie tolerance of
 * their neighbour share a rank, so a chain A ≈ B ≈ C is one rank even when A and C differ by more.
 */
function paperRanks(values: number[], tie: Tie): number[] {
  const order = values.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  const rank = new Array<number>(values.length).fill(0);
  let r = 0;
  order.forEach((x, k) => {
    const prev = order[k - 1];
    if (prev && cmp(x.v, prev.v, tie) !== 0) r++;
    rank[x.i] = r;
  });
  return rank;
}

/** Half credit for a tie in ours, full credit for the paper's direction; NaN if a value is missing. */
function agreementOf(pairs: { i: number; j: number; p: number }[], tie: Tie) {
  return (vs: number[]) => {
    if (vs.some(Number.isNaN)) return Number.NaN;
    let credit = 0;
    for (const { i, j, p } of pairs) {
      const o = cmp(vs[i] as number, vs[j] as number, tie);
      credit += o === p ? 1 : o === 0 ? 0.5 : 0;
    }
    return credit / pairs.length;
  };
}

/** The tie tolerance `cmp` applies to two values. */
const tolerance = (a: number, b: number, tie: Tie) =>
  Math.max(tie?.abs ?? 0, (tie?.rel ?? 0) * Math.max(Math.abs(a), Math.abs(b)));

/**
 * The share of pairs in the paper's order, each pair decided by the interval of its difference
 * (decidedShare.ts): a pair whose interval crosses the tie band counts every way it could go.
 */
function pairRange(
  items: readonly Estimate[],
  pairs: readonly { i: number; j: number; p: number }[],
  tie: Tie,
  seedText: string,
): ShareRange {
  return shareRange(
    pairs.map(({ i, j, p }) => {
      const a = items[i] as Estimate;
      const b = items[j] as Estimate;
      const [va, vb] = [a.value as number, b.value as number];
      const ci = differenceCi(a, b, `${seedText}:${i}:${j}`);
      const outcomes = outcomesOf(ci, va - vb, tolerance(va, vb, tie));
      return creditRange(outcomes, (o) => (o === p ? 1 : o === 0 ? 0.5 : 0), ci, {
        observed: va - vb,
        edges: bandEdges(tolerance(va, vb, tie)),
      });
    }),
  );
}

const creditText = (credit: number) => (Number.isInteger(credit) ? String(credit) : credit.toFixed(1));

/**
 * The runs as blocks, one per setting and repetition (a background level and its seed), when every
 * item ran in the same blocks and in more than one setting: the order is then tested within each
 * block, so what moves all items together (the load, one seed's bursts) does not count as scatter
 * against it. Null otherwise: within a single setting the runs are pooled.
 */
function sharedBlocks(items: readonly Estimate[], ranks: readonly number[]) {
  const keyOf = (b: { setting: string; repetition: number }) => `${b.setting}#${b.repetition}`;
  const first = items[0]?.blocks;
  if (!first) return null;
  // Within one setting the repetitions are the only scatter, and pooling them keeps every pair.
  if (new Set(first.map((b) => b.setting)).size < 2) return null;
  const keys = [...new Set(first.map(keyOf))].sort();
  const setOf = (bs: Estimate['blocks']) => (bs ? JSON.stringify([...new Set(bs.map(keyOf))].sort()) : null);
  if (!items.every((e) => setOf(e.blocks) === JSON.stringify(keys))) return null;
  return keys.map((key) => {
    const x: number[] = [];
    const y: number[] = [];
    const units: string[] = [];
    items.forEach((e, i) => {
      (e.runs as number[]).forEach((v, k) => {
        const b = (e.blocks as NonNullable<Estimate['blocks']>)[k];
        if (!b || keyOf(b) !== key) return;
        x.push(ranks[i] as number);
        y.push(v);
        units.push(b.run);
      });
    });
    return { x, y, units };
  });
}

/** The run behind each value, in the order of the items' runs; undefined where not every value has one. */
function runsOf(items: readonly Estimate[]): string[] | undefined {
  const ids = items.flatMap((e) => (e.blocks ?? []).map((b) => b.run));
  return ids.length === items.reduce((a, e) => a + (e.runs?.length ?? 0), 0) ? ids : undefined;
}

/**
 * "N runs", or "N values from M runs" where a run gives a value to several items (a pair of
 * stacks), with the design effect the test then applied to S's variance.
 */
function runsText(
  ids: readonly string[] | undefined,
  values: number,
  designEffect: number | undefined,
): string {
  const distinct = ids ? new Set(ids).size : values;
  if (distinct >= values) return `${values} runs`;
  const deff = designEffect
    ? ` (S's variance × ${designEffect.toFixed(2)}: values of one run are not independent)`
    : '';
  return `${values} values from ${distinct} runs${deff}`;
}

export function ordering(c: ClaimOf<'ordering'>, ctx: EstimateContext): Judged {
  const items = estimates(c.items, ctx);
  const tierOf = (name: string) => c.paperOrder?.findIndex((t) => t.includes(name)) ?? -1;
  const paperV = (e: Estimate) => (c.paperOrder ? -tierOf(e.name) : (e.paper ?? Number.NaN));
  const paperTie = c.paperOrder ? undefined : c.tie;
  const paperText = c.paperOrder
    ? c.paperOrder.map((t) => t.join(' ≈ ')).join(' > ')
    : orderText(
        items.map((e) => ({ name: e.name, v: paperV(e) })),
        c.tie,
      );
  const measured = items.filter((e) => e.value !== null);
  const missing = items.length - measured.length;
  const name = `Kendall τ-b (one-sided, α = ${ALPHA}) and the share of pairs in the paper's order, ${EACH_UNIT} its difference`;
  const test = testOf(name, items, { alpha: ALPHA });
  if (measured.length < 2)
    return judged(
      'inconclusive',
      `${c.subject}: the paper has ${paperText}; not enough of our runs to compare (${measured.length} of ${items.length} items measured).`,
      test,
    );
  const ranks = paperRanks(measured.map(paperV), paperTie);
  const pairs: { i: number; j: number; p: number }[] = [];
  for (let i = 0; i < measured.length; i++)
    for (let j = i + 1; j < measured.length; j++) {
      const p = cmp(paperV(measured[i] as Estimate), paperV(measured[j] as Estimate), paperTie);
      if (p !== 0) pairs.push({ i, j, p });
    }
  if (pairs.length === 0)
    return judged('inconclusive', `${c.subject}: the paper ranks all items equal; nothing to compare.`, test);
  const means = measured.map((e) => e.value as number);
  const agreement = agreementOf(pairs, c.tie)(means);
  const credit = agreement * pairs.length;
  const ours = orderText(
    measured.map((e) => ({ name: e.name, v: e.value as number })),
    c.tie,
    { unit: sharedUnit(measured) },
  );
  // Over runs when every item is a mean of runs; over the items' values otherwise (cell-level items).
  const byRun = measured.every((e) => e.runs !== null);
  const blocks = byRun ? sharedBlocks(measured, ranks) : null;
  const x = byRun ? measured.flatMap((e, i) => (e.runs as number[]).map(() => ranks[i] as number)) : ranks;
  const y = byRun ? measured.flatMap((e) => e.runs as number[]) : means;
  const units = byRun ? runsOf(measured) : undefined;
  const k = blocks ? stratifiedKendall(blocks) : kendallTau(x, y, units ? { units } : {});
  const tau = Number.isNaN(k.tau) ? null : k.tau;
  const over = blocks
    ? `${runsText(units, y.length, k.designEffect)}, compared within ${blocks.length} blocks of one setting and seed`
    : byRun
      ? runsText(units, y.length, k.designEffect)
      : `${y.length} items`;
  const head =
    `${c.subject}: paper ${paperText}; here ${ours} — ${creditText(credit)} of ${pairs.length} ordered pairs agree ` +
    `(${pct(agreement)}, the claim needs ${pct(c.minAgreement)}); Kendall τ-b ${fmt(tau)} over ${over}, ` +
    `${pText(k.pGreater)}${missing ? `; ${missing} item${missing > 1 ? 's' : ''} not measured` : ''}`;
  const tested = {
    ...test,
    tau,
    p: k.pGreater,
    pMethod: k.method,
    ...(k.designEffect ? { designEffect: k.designEffect } : {}),
  };
  const few = underRun(measured);
  if (few.length)
    return judged(
      'inconclusive',
      `${head}: inconclusive, ${underRunText(few, measured.length, 'item')}.`,
      tested,
      {
        agreement,
        tau,
      },
    );
  const range = pairRange(measured, pairs, c.tie, c.id);
  const share = decide(range, { lo: c.minAgreement, hi: 1 });
  let verdict: Verdict = 'inconclusive';
  if (k.pLess < ALPHA || share === 'fails') verdict = 'fails';
  else if (k.pGreater < ALPHA && share === 'holds') verdict = 'holds';
  const more =
    verdict === 'inconclusive'
      ? toDecideNote(
          orderingToDecide({
            tau,
            pGreater: k.pGreater,
            pLess: k.pLess,
            byRun,
            repetitions: Math.max(...measured.map((e) => new Set(e.repetitions.flat()).size)),
            share: range,
            shareReaches: agreement >= c.minAgreement,
          }),
        )
      : { text: '', record: {} };
  const why =
    k.pGreater >= ALPHA
      ? `τ-b is not significant at ${ALPHA}${more.text}`
      : `the agreement range straddles ${pct(c.minAgreement)}${more.text}`;
  const result =
    verdict === 'holds'
      ? 'the ordering holds'
      : verdict === 'fails'
        ? `the ordering does not hold (${k.pLess < ALPHA ? `reversed, ${pText(k.pLess)}` : 'too few pairs agree'})`
        : `inconclusive (${why})`;
  return judged(
    verdict,
    `${head}; agreement ${shareRangeText(range, 'pairs')}: ${result}.`,
    { ...tested, ci: shareRecord(range, seedFromText(c.id)), ...more.record },
    { agreement, tau },
  );
}

export function pairsClaim(c: ClaimOf<'pairs'>, ctx: EstimateContext): Judged {
  const evals = c.pairs.map(([a, b]) => {
    const [ea, eb] = estimates([a, b], ctx);
    if (!ea || !eb) throw new Error('a pair resolved to fewer than two items');
    return { a: ea, b: eb };
  });
  const measured = evals.filter((e) => e.a.value !== null && e.b.value !== null);
  const flat = measured.flatMap((e) => [e.a, e.b]);
  const test = testOf(`share of pairs in the paper's order, ${EACH_UNIT} its difference`, flat);
  if (measured.length === 0)
    return judged('inconclusive', `${c.subject}: none of the ${evals.length} pairs measured yet.`, test);
  const pairs = measured.map((_, k) => ({ i: 2 * k, j: 2 * k + 1, p: 1 }));
  const agreementFn = agreementOf(pairs, c.tie);
  const agreement = agreementFn(flat.map((e) => e.value as number));
  const against = measured
    .map((e) => ({ e, o: cmp(e.a.value as number, e.b.value as number, c.tie) }))
    .filter((x) => x.o <= 0)
    .map(
      ({ e, o }) => `${e.a.label} ${fmt(e.a.value)} ${o === 0 ? '≈' : '<'} ${e.b.label} ${fmt(e.b.value)}`,
    );
  const head =
    `${c.subject}: the paper has the first above the second in ${evals.length} pair${evals.length > 1 ? 's' : ''}; ` +
    `here ${creditText(agreement * measured.length)} of ${measured.length} agree (${pct(agreement)}, the claim needs ${pct(c.minAgreement)})` +
    `${against.length ? `; against: ${against.slice(0, 4).join('; ')}${against.length > 4 ? '; …' : ''}` : ''}`;
  const few = underRun(flat);
  if (few.length)
    return judged('inconclusive', `${head}: inconclusive, ${underRunText(few, flat.length)}.`, test, {
      agreement,
    });
  const range = pairRange(flat, pairs, c.tie, c.id);
  const verdict = decide(range, { lo: c.minAgreement, hi: 1 });
  const more = verdict === 'inconclusive' ? shareToDecide(range) : { text: '', record: {} };
  return judged(
    verdict,
    `${head}; agreement ${shareRangeText(range, 'pairs')}: ${verdict === 'holds' ? 'holds' : verdict === 'fails' ? 'does not hold' : `inconclusive (the range straddles ${pct(c.minAgreement)}${more.text})`}.`,
    { ...test, ci: shareRecord(range, seedFromText(c.id)), ...more.record },
    { agreement },
  );
}
