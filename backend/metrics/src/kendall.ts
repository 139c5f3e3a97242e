// Kendall's rank correlation τ-b between two paired lists, with one-sided p-values for "no
// association". Used to test whether our runs put items in the paper's order: x is the paper's
// rank of each run's item (runs of one item tie), y the run's measured value.
//
// p-values: exact when at most one of the two lists has ties and n ≤ EXACT_MAX_N (the null
// distribution of S is then the inversion count of a random arrangement of a multiset, whose
// generating function is a q-multinomial coefficient); otherwise the normal approximation to S
// with the tie-corrected variance (Kendall, Rank Correlation Methods, ch. 4) and a continuity
// correction of 1.
//
// Points that share a unit (one run giving values to two items, as a pair of stacks does) are not
// independent: their S terms move together. The normal approximation then takes Kish's design
// effect with each unit's points as one observation's worth, inflating S's variance by n over the
// number of units; no exact law is claimed for them.

import { fail } from './guard.js';

export interface KendallResult {
  /** τ-b in [−1, 1]; NaN when either list is constant. */
  tau: number;
  /** Concordant minus discordant pairs. */
  s: number;
  n: number;
  /** P(S ≥ s) under no association: small when the lists rise together. */
  pGreater: number;
  /** P(S ≤ s) under no association: small when one falls as the other rises. */
  pLess: number;
  method: 'exact' | 'normal';
  /** S's variance was multiplied by this (n over units, > 1) because points shared a unit. */
  designEffect?: number;
}

export interface KendallOptions {
  /** The unit each point came from, by index; points of one unit are not independent. */
  units?: readonly (string | number)[];
}

/** n over the number of distinct units (1 when every point is its own unit or none are given). */
export function designEffect(n: number, units: readonly (string | number)[] | undefined): number {
  if (!units) return 1;
  if (units.length !== n) fail(`units must name one unit per point (got ${units.length} for ${n} points)`);
  return n / new Set(units).size;
}

/** Largest n for the exact distribution (the counts stay well inside double precision). */
export const EXACT_MAX_N = 60;

const sign = (d: number) => (d > 0 ? 1 : d < 0 ? -1 : 0);

/** Sizes of the groups of equal values (only groups of 2 or more matter). */
function tieGroups(xs: readonly number[]): number[] {
  const counts = new Map<number, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  return [...counts.values()];
}

/** Standard normal upper tail P(Z ≥ z), via erfc (Numerical Recipes' Chebyshev fit, |error| < 1.2e-7). */
export function normalUpperTail(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const poly =
    -x * x -
    1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t *
                  (-0.18628806 +
                    t *
                      (0.27886807 +
                        t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const erfc = t * Math.exp(poly);
  return z >= 0 ? erfc / 2 : 1 - erfc / 2;
}

/** The z with P(Z ≥ z) = p, 0 < p < 1, by bisection on normalUpperTail (to its accuracy). */
export function normalUpperQuantile(p: number): number {
  if (!(p > 0 && p < 1)) fail(`p must be in (0, 1) (got ${p})`);
  let lo = -40;
  let hi = 40;
  for (let i = 0; i < 100 && hi - lo > 1e-10; i++) {
    const mid = (lo + hi) / 2;
    if (normalUpperTail(mid) > p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Coefficients of the Gaussian binomial [a choose b]_q: index k counts arrangements with k inversions. */
function qBinomial(a: number, b: number): number[] {
  // row[j] holds [i choose j]_q for the current i; [i choose j] = [i−1 choose j−1] + q^j [i−1 choose j].
  let row: number[][] = [[1]];
  for (let i = 1; i <= a; i++) {
    const next: number[][] = [];
    for (let j = 0; j <= Math.min(i, b); j++) {
      if (j === 0 || j === i) {
        next.push([1]);
        continue;
      }
      const left = row[j - 1] as number[];
      const up = row[j] ?? [];
      const out = new Array<number>(Math.max(left.length, up.length + j)).fill(0);
      left.forEach((c, k) => {
        out[k] = (out[k] as number) + c;
      });
      up.forEach((c, k) => {
        out[k + j] = (out[k + j] as number) + c;
      });
      next.push(out);
    }
    row = next;
  }
  return row[b] ?? [1];
}

function multiply(p: readonly number[], q: readonly number[]): number[] {
  const out = new Array<number>(p.length + q.length - 1).fill(0);
  p.forEach((a, i) => {
    q.forEach((b, j) => {
      out[i + j] = (out[i + j] as number) + a * b;
    });
  });
  return out;
}

/** Counts of inversions over all distinct arrangements of groups of these sizes (a q-multinomial). */
function inversionCounts(groups: readonly number[]): number[] {
  let poly = [1];
  let total = 0;
  for (const k of groups) {
    total += k;
    poly = multiply(poly, qBinomial(total, k));
  }
  return poly;
}

/** S (concordant minus discordant pairs), each list's tie groups, and the pairs untied in each. */
function concordance(x: readonly number[], y: readonly number[]) {
  const n = x.length;
  let s = 0;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++)
      s += sign((x[i] as number) - (x[j] as number)) * sign((y[i] as number) - (y[j] as number));
  const tx = tieGroups(x);
  const ty = tieGroups(y);
  const pairs = (n * (n - 1)) / 2;
  const sumPairs = (g: number[]) => g.reduce((a, t) => a + (t * (t - 1)) / 2, 0);
  return { s, tx, ty, untiedX: pairs - sumPairs(tx), untiedY: pairs - sumPairs(ty) };
}

/** The variance of S under no association, corrected for ties in either list. */
function nullVariance(n: number, tx: number[], ty: number[]): number {
  const v = (g: number[], f: (t: number) => number) => g.reduce((a, t) => a + f(t), 0);
  const v0 = n * (n - 1) * (2 * n + 5);
  const vt = v(tx, (t) => t * (t - 1) * (2 * t + 5));
  const vu = v(ty, (t) => t * (t - 1) * (2 * t + 5));
  const t2 = v(tx, (t) => t * (t - 1) * (t - 2));
  const u2 = v(ty, (t) => t * (t - 1) * (t - 2));
  const t1 = v(tx, (t) => t * (t - 1));
  const u1 = v(ty, (t) => t * (t - 1));
  return (
    (v0 - vt - vu) / 18 +
    (n > 2 ? (t2 * u2) / (9 * n * (n - 1) * (n - 2)) : 0) +
    (t1 * u1) / (2 * n * (n - 1))
  );
}

/**
 * τ-b of x against y with one-sided p-values. Both lists must have the same length ≥ 2 and no
 * NaN (±∞ rank like any other value).
 */
export function kendallTau(
  x: readonly number[],
  y: readonly number[],
  options: KendallOptions = {},
): KendallResult {
  if (x.length !== y.length) fail(`x and y must have the same length (got ${x.length} and ${y.length})`);
  const n = x.length;
  if (n < 2) fail(`x and y need at least 2 pairs (got ${n})`);
  [x, y].forEach((list, li) => {
    list.forEach((v, i) => {
      if (Number.isNaN(v)) fail(`${li ? 'y' : 'x'}[${i}] must be a number (got NaN)`);
    });
  });
  const deff = designEffect(n, options.units);
  const { s, tx, ty, untiedX, untiedY } = concordance(x, y);
  const tau = untiedX > 0 && untiedY > 0 ? s / Math.sqrt(untiedX * untiedY) : Number.NaN;
  if (!(untiedX > 0 && untiedY > 0)) return { tau, s, n, pGreater: 1, pLess: 1, method: 'exact' };

  const xTied = tx.some((t) => t > 1);
  const yTied = ty.some((t) => t > 1);
  if (!(xTied && yTied) && n <= EXACT_MAX_N && deff === 1) {
    // Order by the untied list; the tied one's groups are then a random multiset arrangement, and
    // S = (pairs across groups) − 2 × inversions.
    const groups = xTied ? tx : ty;
    const across = xTied ? untiedX : untiedY;
    const counts = inversionCounts(groups);
    const all = counts.reduce((a, c) => a + c, 0);
    const inv = Math.round((across - s) / 2);
    let atMost = 0;
    for (let k = 0; k <= Math.min(inv, counts.length - 1); k++) atMost += counts[k] as number;
    let atLeast = 0;
    for (let k = Math.max(0, inv); k < counts.length; k++) atLeast += counts[k] as number;
    // Few inversions means large S.
    return {
      tau,
      s,
      n,
      pGreater: Math.min(1, atMost / all),
      pLess: Math.min(1, atLeast / all),
      method: 'exact',
    };
  }

  const sd = Math.sqrt(nullVariance(n, tx, ty) * deff);
  return {
    tau,
    s,
    n,
    pGreater: normalUpperTail((s - 1) / sd),
    pLess: normalUpperTail((-s - 1) / sd),
    method: 'normal',
    ...(deff > 1 ? { designEffect: deff } : {}),
  };
}

/** One stratum's share of a stratified test: its S, its τ-b denominator, and S's null law. */
interface StratumS {
  s: number;
  n: number;
  denominator: number;
  variance: number;
  /** S → probability under no association, when exact (at most one list tied); null otherwise. */
  law: Map<number, number> | null;
}

function stratumS(x: readonly number[], y: readonly number[], deff: number): StratumS | null {
  const n = x.length;
  if (n < 2) return null;
  const { s, tx, ty, untiedX, untiedY } = concordance(x, y);
  // A stratum where either list is constant says nothing about the order.
  if (!(untiedX > 0 && untiedY > 0)) return null;
  const xTied = tx.some((t) => t > 1);
  const yTied = ty.some((t) => t > 1);
  let law: Map<number, number> | null = null;
  if (!(xTied && yTied) && n <= EXACT_MAX_N && deff === 1) {
    const counts = inversionCounts(xTied ? tx : ty);
    const across = xTied ? untiedX : untiedY;
    const all = counts.reduce((a, c) => a + c, 0);
    law = new Map(counts.map((c, k) => [across - 2 * k, c / all]));
  }
  return { s, n, denominator: Math.sqrt(untiedX * untiedY), variance: nullVariance(n, tx, ty) * deff, law };
}

/**
 * Kendall's test within strata: S summed over strata, each compared only within itself, so a
 * factor that moves every item's values together (a background load, a path) does not drown the
 * order it is tested for. τ is ΣS over the sum of the strata's τ-b denominators. Exact when every
 * stratum's null law is (the sum's law is their convolution), the normal approximation to ΣS
 * with the summed variances otherwise.
 */
export function stratifiedKendall(
  strata: readonly { x: readonly number[]; y: readonly number[]; units?: readonly (string | number)[] }[],
): KendallResult & { strata: number } {
  for (const [k, st] of strata.entries()) {
    if (st.x.length !== st.y.length)
      fail(`stratum ${k}: x and y must have the same length (got ${st.x.length} and ${st.y.length})`);
    if (st.units && st.units.length !== st.x.length)
      fail(
        `stratum ${k}: units must name one unit per point (got ${st.units.length} for ${st.x.length} points)`,
      );
  }
  const used = strata
    .map((st) => stratumS(st.x, st.y, designEffect(st.x.length, st.units)))
    .filter((st): st is StratumS => st !== null);
  // Over all strata: their points over their units.
  const points = strata.reduce((a, st) => a + st.x.length, 0);
  const units = strata.reduce((a, st) => a + (st.units ? new Set(st.units).size : st.x.length), 0);
  const deff = units > 0 && points > units ? { designEffect: points / units } : {};
  const n = used.reduce((a, st) => a + st.n, 0);
  if (!used.length) return { tau: Number.NaN, s: 0, n, pGreater: 1, pLess: 1, method: 'exact', strata: 0 };
  const s = used.reduce((a, st) => a + st.s, 0);
  const tau = s / used.reduce((a, st) => a + st.denominator, 0);
  if (used.every((st) => st.law)) {
    let law = new Map([[0, 1]]);
    for (const st of used) {
      const next = new Map<number, number>();
      for (const [a, pa] of law)
        for (const [b, pb] of st.law as Map<number, number>)
          next.set(a + b, (next.get(a + b) ?? 0) + pa * pb);
      law = next;
    }
    let pGreater = 0;
    let pLess = 0;
    for (const [v, p] of law) {
      if (v >= s) pGreater += p;
      if (v <= s) pLess += p;
    }
    return {
      tau,
      s,
      n,
      pGreater: Math.min(1, pGreater),
      pLess: Math.min(1, pLess),
      method: 'exact',
      strata: used.length,
    };
  }
  const sd = Math.sqrt(used.reduce((a, st) => a + st.variance, 0));
  return {
    tau,
    s,
    n,
    pGreater: normalUpperTail((s - 1) / sd),
    pLess: normalUpperTail((-s - 1) / sd),
    method: 'normal',
    ...deff,
    strata: used.length,
  };
}
