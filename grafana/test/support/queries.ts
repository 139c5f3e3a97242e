// Running a dashboard's queries the way Grafana would: variables resolved in order (each seeing the
// choices before it), then every panel and annotation query under an absolute and a relative range
// and two $__interval values. Shared by the synthetic-data and the real-run tests.
import { expect } from 'vitest';
import type { Dashboard } from '../../src/dashboard.js';
import {
  interpolate,
  queriesOf,
  type Scope,
  type Selection,
  timeFilterAbsolute,
  timeFilterRelative,
} from './grafana.js';
import type { InfluxResult } from './influxd.js';

export type RunQuery = (query: string) => Promise<InfluxResult>;

const MACROS: Array<{ interval: string; intervalMs: number }> = [
  { interval: '100ms', intervalMs: 100 },
  { interval: '1s', intervalMs: 1000 },
];

/** Rows of a result that carry a value besides time. */
export const valueRows = (r: InfluxResult) =>
  (r.series ?? []).flatMap((s) =>
    s.values.filter((row) => row.slice(1).some((v) => v !== null && v !== undefined)),
  );

export async function resolveVariables(
  run: RunQuery,
  d: Dashboard,
  choose: Record<string, string[] | 'all'>,
): Promise<Record<string, Selection>> {
  const vars: Record<string, Selection> = {};
  for (const v of d.templating.list) {
    const r = await run(interpolate(v.query, { vars }));
    expect(r.error, `${d.uid} variable ${v.name}: ${r.error}`).toBeUndefined();
    const options = (r.series ?? []).flatMap((s) => s.values.map((row) => String(row[1])));
    const selected = choose[v.name];
    if (!selected) throw new Error(`${d.uid}: no choice for variable ${v.name}`);
    if (selected !== 'all')
      for (const s of selected) expect(options, `${d.uid} variable ${v.name}`).toContain(s);
    vars[v.name] = { variable: v, options, selected };
  }
  return vars;
}

/**
 * Every query must parse and return data, except those whose `where` starts with one of
 * `mayBeEmpty`. The relative range is the last `relative` (default 10m). Results under the absolute
 * range at 1 s are returned by `where`.
 */
export async function runAllQueries(
  run: RunQuery,
  d: Dashboard,
  vars: Record<string, Selection>,
  fromMs: number,
  toMs: number,
  mayBeEmpty: string[] = [],
  relative = '10m',
) {
  const failures: string[] = [];
  const results = new Map<string, InfluxResult>();
  let ran = 0;
  for (const timeFilter of [timeFilterAbsolute(fromMs, toMs), timeFilterRelative(relative)]) {
    for (const m of MACROS) {
      const scope: Scope = { vars, timeFilter, ...m };
      for (const q of queriesOf(d).filter((x) => x.kind !== 'variable')) {
        const text = interpolate(q.query, scope);
        const r = await run(text);
        ran++;
        if (r.error) failures.push(`${q.where}: ${r.error}\n    ${text}`);
        else if (valueRows(r).length === 0 && !mayBeEmpty.some((w) => q.where.startsWith(w)))
          failures.push(`${q.where}: no data\n    ${text}`);
        if (timeFilter.includes('ms') && m.interval === '1s') results.set(q.where, r);
      }
    }
  }
  expect(failures, failures.join('\n')).toEqual([]);
  return { results, ran };
}
