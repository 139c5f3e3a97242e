// Our side of a comparison: which rows a published number belongs to (`where`), and its value in
// those rows (`measure`). Row-level measures read a CampaignRow, or the run's summary.json when the
// field is not in the row; cell-level ones (equivalence, cellRatio) need several rows at once.

import { jainIndex } from '@lfnlab/metrics';
import { matchPattern } from '../campaign/pattern.js';
import type { CampaignRow } from '../campaign/runCampaign.js';
import { findMetric } from '../report/format.js';
import type { RunSummary } from '../run/summary.js';
import { globRe } from './load.js';
import type { Measure, Where } from './schema.js';
import { rowMatches } from './where.js';

/** A campaign row, tagged with its part (for multi-part presets) and, when read, its run summary. */
export type PresetRow = CampaignRow & { part?: string; summary?: RunSummary | null };

const patterns = (flows: string | string[]) => (Array.isArray(flows) ? flows : [flows]).map(globRe);
const matchesAny = (name: string, res: RegExp[]) => res.some((re) => re.test(name));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const finite = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

function goodputs(row: PresetRow, flows: string | string[]): number[] | null {
  const res = patterns(flows);
  const names = Object.keys(row.goodputMbps).filter((n) => matchesAny(n, res));
  if (names.length === 0) return null;
  const xs = names.map((n) => row.goodputMbps[n]);
  return xs.every(finite) ? (xs as number[]) : null;
}

/** The flows matching `flows` in a row, their goodputs summed; null when none match or one has none. */
export function goodputSum(row: PresetRow, flows: string | string[]): number | null {
  const xs = goodputs(row, flows);
  return xs ? xs.reduce((a, b) => a + b, 0) : null;
}

/** A per-flow run metric, averaged over the flows matching `flows` (all when undefined). */
function flowMetric(row: PresetRow, flows: string | string[] | undefined, id: string): number | null {
  const res = flows === undefined ? null : patterns(flows);
  return meanOrNull(
    (row.summary?.metrics?.flows ?? [])
      .filter((f) => res === null || matchesAny(f.flow, res))
      .map((f) => findMetric(f.metrics, id)),
  );
}

function meanOrNull(xs: (number | null | undefined)[]): number | null {
  const ok = xs.filter(finite);
  return ok.length ? mean(ok) : null;
}

/** The measure in one row; null when the row does not have it (or the measure does not apply). */
export function rowMeasure(m: Measure, row: PresetRow): number | null {
  switch (m.kind) {
    case 'goodput': {
      const xs = goodputs(row, m.flows);
      if (!xs) return null;
      const sum = xs.reduce((a, b) => a + b, 0);
      return m.agg === 'mean' ? sum / xs.length : sum;
    }
    // From the run metrics, not the summary's flow fields: summaries written before 2026-12-03
    // counted iperf3's last fraction-of-a-second report as one more interval there.
    case 'goodputSd': {
      const sd = flowMetric(row, m.flows, 'throughput.sd');
      return sd === null ? null : sd / 1e6;
    }
    case 'stability':
      return flowMetric(row, m.flows, 'stability.sigma_over_mu');
    case 'jain': {
      if (m.flows === undefined) return finite(row.jainForward) ? row.jainForward : null;
      const xs = goodputs(row, m.flows);
      if (!xs || xs.length < 2) return null;
      const j = jainIndex(xs);
      return Number.isFinite(j) ? j : null;
    }
    case 'utilisation':
      return finite(row.utilisationForward) ? row.utilisationForward : null;
    case 'performance':
      return finite(row.utilisationForward) && finite(row.jainForward)
        ? m.alpha * row.utilisationForward + (1 - m.alpha) * row.jainForward
        : null;
    case 'asymmetry': {
      const a = goodputs(row, m.a);
      const b = goodputs(row, m.b);
      if (!a || !b) return null;
      const xa = a.reduce((s, x) => s + x, 0);
      const xb = b.reduce((s, x) => s + x, 0);
      return xa + xb > 0 ? (xa - xb) / (xa + xb) : null;
    }
    case 'asymmetryOf': {
      const excluded = Array.isArray(m.exclude) ? m.exclude : (m.exclude?.[row.part ?? ''] ?? []);
      const side = [0, 1].find((i) => matchPattern(m.subject, row.params[m.params[i] as string]));
      if (side === undefined) return null;
      const partner = row.params[m.params[1 - side] as string];
      if (matchPattern(m.subject, partner) || excluded.some((p) => matchPattern(p, partner))) return null;
      return rowMeasure(
        { kind: 'asymmetry', a: m.flows[side] as string, b: m.flows[1 - side] as string },
        row,
      );
    }
    case 'share': {
      const one = goodputs(row, m.flow);
      const all = goodputs(row, m.of);
      if (!one || !all) return null;
      const total = all.reduce((a, b) => a + b, 0);
      return total > 0 ? one.reduce((a, b) => a + b, 0) / total : null;
    }
    case 'metric': {
      const metrics = row.summary?.metrics;
      if (!metrics) return null;
      if (m.scope === 'flow') return flowMetric(row, m.flows, m.id);
      if (m.scope === 'group') {
        const g = metrics.groups.find((x) => x.direction === 'forward');
        return g?.metrics.find((x) => x.id === m.id)?.value ?? null;
      }
      return metrics.theory[0]?.metrics.find((x) => x.id === m.id)?.value ?? null;
    }
    case 'activeSets': {
      const sets = row.summary?.metrics.groups.find((x) => x.direction === 'forward')?.activeSets;
      return sets?.length ? meanOrNull(sets.map((s) => s[m.field])) : null;
    }
    case 'loadedRtt':
      return row.summary?.paths[0]?.loadedRtt?.meanMs ?? null;
    case 'ratio': {
      const a = rowMeasure(m.of, row);
      const b = rowMeasure(m.to, row);
      return a !== null && b !== null && b !== 0 ? a / b : null;
    }
    case 'equivalence':
    case 'cellRatio':
      return null; // cell-level: see cellMeasure
  }
}

export interface CellValue {
  /** Mean over the rows that have the measure; null if none has it. */
  mean: number | null;
  /** Spread across those rows (sample σ), null below two. */
  sd: number | null;
  /** Rows that matched `where`. */
  rows: number;
  /** Of those, rows that had the measure. */
  n: number;
}

function sampleSd(xs: number[]): number | null {
  if (xs.length < 2) return null;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/**
 * Seed 002's equivalence: for each count n of the `many` flow, the single flow's goodput minus the
 * many flow's aggregate; the first n where that turns from positive to not positive, interpolated
 * linearly (with 0 flows moving nothing as the start). Null if the single flow beats every count.
 */
export function equivalentCount(points: { n: number; single: number; many: number }[]): number | null {
  const pts = [...points].sort((a, b) => a.n - b.n);
  const first = pts[0];
  if (!first) return null;
  const withOrigin = [{ n: 0, d: first.single }, ...pts.map((p) => ({ n: p.n, d: p.single - p.many }))];
  for (let i = 0; i + 1 < withOrigin.length; i++) {
    const a = withOrigin[i] as { n: number; d: number };
    const b = withOrigin[i + 1] as { n: number; d: number };
    if (a.d > 0 && b.d <= 0) return a.n + (a.d / (a.d - b.d)) * (b.n - a.n);
  }
  return null;
}

export function cellMeasure(where: Where, m: Measure, rows: PresetRow[]): CellValue {
  const matched = rows.filter((r) => rowMatches(r, where));
  if (m.kind === 'cellRatio') {
    const a = cellMeasure({ ...where, ...m.of.where }, m.of.measure, rows);
    const b = cellMeasure({ ...where, ...m.to.where }, m.to.measure, rows);
    const v = a.mean !== null && b.mean !== null && b.mean !== 0 ? a.mean / b.mean : null;
    return { mean: v, sd: null, rows: a.rows + b.rows, n: Math.min(a.n, b.n) };
  }
  if (m.kind === 'equivalence') {
    const byN = new Map<number, { single: number[]; many: number[] }>();
    for (const r of matched) {
      const n = Number(r.params[m.countParam]);
      const s = goodputSum(r, m.single);
      const k = goodputSum(r, m.many);
      if (!Number.isFinite(n) || s === null || k === null) continue;
      const e = byN.get(n) ?? { single: [], many: [] };
      e.single.push(s);
      e.many.push(k);
      byN.set(n, e);
    }
    const pts = [...byN.entries()].map(([n, e]) => ({ n, single: mean(e.single), many: mean(e.many) }));
    // n is runs per cell, as for every other measure: here the fewest runs at any one count.
    const n = byN.size ? Math.min(...[...byN.values()].map((e) => e.single.length)) : 0;
    return { mean: equivalentCount(pts), sd: null, rows: matched.length, n };
  }
  const values = matched.map((r) => rowMeasure(m, r)).filter(finite);
  return {
    mean: values.length ? mean(values) : null,
    sd: sampleSd(values),
    rows: matched.length,
    n: values.length,
  };
}

/** The unit of a measure's value; null for ratios, indices and metrics whose unit the row carries. */
export function measureUnit(m: Measure): string | null {
  switch (m.kind) {
    case 'goodput':
    case 'goodputSd':
      return 'Mbit/s';
    case 'loadedRtt':
      return 'ms';
    default:
      return null;
  }
}

/** Which of our result fields a measure reads, for the side-by-side table. */
export function describeMeasure(m: Measure): string {
  const fl = (f: string | string[] | undefined) => (f === undefined ? 'all flows' : [f].flat().join(', '));
  switch (m.kind) {
    case 'goodput':
      return `CampaignRow.goodputMbps[${fl(m.flows)}]${m.agg === 'mean' ? ' (mean)' : ''}`;
    case 'goodputSd':
      return `run metric throughput.sd of [${fl(m.flows)}] (σ over 5 s intervals, Mbit/s)`;
    case 'stability':
      return `run metric stability.sigma_over_mu of [${fl(m.flows)}] (σ/μ over 5 s intervals)`;
    case 'jain':
      return m.flows === undefined ? 'CampaignRow.jainForward' : `Jain of goodputMbps[${fl(m.flows)}]`;
    case 'utilisation':
      return 'CampaignRow.utilisationForward';
    case 'performance':
      return `${m.alpha}·utilisationForward + ${1 - m.alpha}·jainForward`;
    case 'asymmetry':
      return `asymmetry of goodputMbps[${m.a}] vs [${m.b}]`;
    case 'asymmetryOf':
      return `asymmetry of the subject's flow vs its partner (goodputMbps[${m.flows.join(', ')}])`;
    case 'share':
      return `goodputMbps[${m.flow}] / Σ goodputMbps[${fl(m.of)}]`;
    case 'metric':
      return `summary metrics.${m.scope === 'flow' ? `flows[${fl(m.flows)}]` : m.scope === 'group' ? 'groups[forward]' : 'theory'} ${m.id}`;
    case 'activeSets':
      return `summary metrics.groups[forward].activeSets mean ${m.field}`;
    case 'loadedRtt':
      return 'summary paths[0].loadedRtt.meanMs';
    case 'ratio':
      return `(${describeMeasure(m.of)}) / (${describeMeasure(m.to)})`;
    case 'equivalence':
      return `equivalent count of ${m.many} (${m.countParam}) matching goodputMbps[${m.single}]`;
    case 'cellRatio':
      return `mean ${describeMeasure(m.of.measure)} where ${JSON.stringify(m.of.where)} / where ${JSON.stringify(m.to.where)}`;
  }
}
