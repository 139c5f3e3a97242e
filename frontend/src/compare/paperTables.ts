// Paper-style tables from several runs' summaries: goodput by stack × path × window (seed 000
// Table 1's layout) and the inter-protocol asymmetry matrix (Table 3: A's goodput over B's when
// the two share a path).
import type { RunSummary } from '../api/types';

export interface RunResult {
  id: string;
  name: string;
  spec: unknown;
  summary: RunSummary;
}

type Loose = Record<string, unknown>;

/** "100Mbit, 70ms" from the first path's configuration. */
function pathLabel(r: RunResult): string {
  const p = r.summary.paths[0];
  return p ? `${p.configured.rateMbps} Mbit/s × ${p.configured.rttMs} ms` : '?';
}

/** The first flow's window as written (or normalised: { bdp }, { bytes }), "auto" without one. */
export function windowLabel(spec: unknown, flowIndex = 0): string {
  const w = ((spec as Loose | null)?.flows as Loose[] | undefined)?.[flowIndex]?.window;
  if (w === undefined || w === null) return 'auto';
  if (typeof w === 'string' || typeof w === 'number') return String(w);
  const o = w as { bdp?: number; bytes?: number; packets?: number };
  if (o.bdp !== undefined) return `${o.bdp} BDP`;
  if (o.bytes !== undefined) return `${Math.round(o.bytes / 1024)} KiB`;
  return `${o.packets} packets`;
}

export interface Cell {
  mean: number | null;
  sd: number | null;
  runs: number;
}

export interface StackTable {
  stacks: string[];
  rows: { key: string; path: string; window: string; cells: Record<string, Cell> }[];
}

/** One row per (path, window), one column per stack; the cell averages that stack's flows' mean goodput. */
export function stackPathWindowTable(results: RunResult[]): StackTable {
  const stacks = new Set<string>();
  const rows = new Map<
    string,
    { path: string; window: string; acc: Record<string, { m: number[]; s: number[] }> }
  >();
  for (const r of results) {
    const path = pathLabel(r);
    const window = windowLabel(r.spec);
    const key = `${path}|${window}`;
    const row = rows.get(key) ?? { path, window, acc: {} };
    rows.set(key, row);
    for (const f of r.summary.flows) {
      const stack = f.streams > 1 ? `${f.stack} ×${f.streams}` : f.stack;
      stacks.add(stack);
      const a = row.acc[stack] ?? { m: [], s: [] };
      row.acc[stack] = a;
      if (f.goodputMbps.mean !== null) a.m.push(f.goodputMbps.mean);
      if (f.goodputMbps.sd !== null) a.s.push(f.goodputMbps.sd);
    }
  }
  const avg = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  return {
    stacks: [...stacks].sort(),
    rows: [...rows.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, r]) => ({
        key,
        path: r.path,
        window: r.window,
        cells: Object.fromEntries(
          Object.entries(r.acc).map(([s, a]) => [s, { mean: avg(a.m), sd: avg(a.s), runs: a.m.length }]),
        ),
      })),
  };
}

export interface Asymmetry {
  stacks: string[];
  /** ratio[a][b]: a's mean goodput over b's, averaged over runs where exactly a and b share a path. */
  ratio: Record<string, Record<string, number>>;
}

function pushRatio(acc: Record<string, Record<string, number[]>>, a: string, b: string, r: number): void {
  const row = acc[a] ?? {};
  acc[a] = row;
  row[b] = [...(row[b] ?? []), r];
}

export function asymmetryMatrix(results: RunResult[]): Asymmetry {
  const acc: Record<string, Record<string, number[]>> = {};
  const stacks = new Set<string>();
  for (const r of results) {
    const byPath = new Map<string, typeof r.summary.flows>();
    for (const f of r.summary.flows) {
      if (f.direction !== 'forward') continue;
      byPath.set(f.path, [...(byPath.get(f.path) ?? []), f]);
    }
    for (const flows of byPath.values()) {
      if (flows.length !== 2) continue;
      const [a, b] = flows as [(typeof flows)[0], (typeof flows)[0]];
      const ma = a.goodputMbps.mean;
      const mb = b.goodputMbps.mean;
      if (ma === null || mb === null || ma <= 0 || mb <= 0) continue;
      stacks.add(a.stack).add(b.stack);
      pushRatio(acc, a.stack, b.stack, ma / mb);
      pushRatio(acc, b.stack, a.stack, mb / ma);
    }
  }
  const ratio: Asymmetry['ratio'] = {};
  for (const [a, row] of Object.entries(acc)) {
    ratio[a] = {};
    for (const [b, xs] of Object.entries(row)) ratio[a][b] = xs.reduce((x, y) => x + y, 0) / xs.length;
  }
  return { stacks: [...stacks].sort(), ratio };
}
