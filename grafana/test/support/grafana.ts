// What Grafana does to a dashboard query before it reaches InfluxDB, for the tests: template
// variables (regex-escaped and ORed for multi-value and All, as the InfluxDB datasource formats
// them), $timeFilter, $__interval and $__interval_ms. And a check of the names a query uses.
import type { Dashboard, QueryVariable } from '../../src/dashboard.js';
import { measurementsOf } from '../../src/influxql.js';

export interface Selection {
  variable: QueryVariable;
  /** Values the variable's own query returned. */
  options: string[];
  /** Chosen values, or 'all'. */
  selected: string[] | 'all';
}

export interface Scope {
  vars: Record<string, Selection>;
  /** Grafana's $timeFilter text, e.g. timeFilterAbsolute(from, to). */
  timeFilter?: string;
  interval?: string;
  intervalMs?: number;
}

/** Grafana's regex escaping of variable values (kbn.regexEscape). */
export const escapeRegex = (v: string) => v.replace(/[\\^$*+?.()|[\]{}/]/g, '\\$&');

/** `time >= 1700000000000ms and time <= 1700000030000ms`, as Grafana renders an absolute range. */
export const timeFilterAbsolute = (fromMs: number, toMs: number) =>
  `time >= ${fromMs}ms and time <= ${toMs}ms`;

/** As Grafana renders a relative range such as now-10m → now. */
export const timeFilterRelative = (ago: string) => `time >= now() - ${ago} and time <= now()`;

/** A variable as the InfluxDB datasource formats it by default ($name) or with ${name:regex}. */
export function formatVariable(s: Selection, format?: string): string {
  const v = s.variable;
  if (format !== undefined && format !== 'regex')
    throw new Error(`variable ${v.name}: format ${format} not modelled`);
  if (s.selected === 'all') {
    if (v.allValue !== undefined) return v.allValue; // a custom All value is never formatted
    return `(${s.options.map(escapeRegex).join('|')})`;
  }
  const [first, ...rest] = s.selected;
  if (first === undefined) throw new Error(`variable ${v.name}: nothing selected`);
  if (format === 'regex')
    return rest.length === 0 ? escapeRegex(first) : `(${s.selected.map(escapeRegex).join('|')})`;
  // default InfluxDB interpolation: raw for a single-valued variable, escaped and ORed otherwise
  if (!v.multi && !v.includeAll) return first;
  return `(${s.selected.map(escapeRegex).join('|')})`;
}

const REFERENCE = /\$\{(\w+)(?::(\w+))?\}|\$(\w+)/g;
const GLOBALS = ['timeFilter', '__interval', '__interval_ms'];

/** Substitute every $name / ${name:format} in a query; an unknown name throws (a typo in a dashboard). */
export function interpolate(query: string, scope: Scope): string {
  return query.replace(
    REFERENCE,
    (_m, braced: string | undefined, format: string | undefined, plain: string | undefined) => {
      const name = braced ?? plain ?? '';
      if (name === 'timeFilter') {
        if (!scope.timeFilter) throw new Error('no time range for $timeFilter');
        return scope.timeFilter;
      }
      if (name === '__interval') {
        if (!scope.interval) throw new Error('no $__interval');
        return scope.interval;
      }
      if (name === '__interval_ms') {
        if (scope.intervalMs === undefined) throw new Error('no $__interval_ms');
        return String(scope.intervalMs);
      }
      const sel = scope.vars[name];
      if (!sel) throw new Error(`unknown variable $${name} in ${query}`);
      return formatVariable(sel, format);
    },
  );
}

/** Every variable a query refers to, Grafana's globals left out. */
export const variablesUsed = (query: string) =>
  [...query.matchAll(REFERENCE)].map((m) => m[1] ?? m[3] ?? '').filter((n) => !GLOBALS.includes(n));

export interface QueryRef {
  dashboard: string;
  where: string;
  query: string;
  alias?: string;
  kind: 'panel' | 'annotation' | 'variable';
}

/** Every query of a dashboard: panel targets, annotations, template variables. */
export function queriesOf(d: Dashboard): QueryRef[] {
  const out: QueryRef[] = [];
  for (const v of d.templating.list)
    out.push({ dashboard: d.uid, where: `variable ${v.name}`, query: v.query, kind: 'variable' });
  for (const a of d.annotations.list) {
    if ('query' in a)
      out.push({ dashboard: d.uid, where: `annotation ${a.name}`, query: a.query, kind: 'annotation' });
  }
  for (const p of d.panels) {
    const targets = (p.targets ?? []) as Array<{ refId: string; query: string; alias?: string }>;
    for (const t of targets) {
      out.push({
        dashboard: d.uid,
        where: `panel ${p.id} "${p.title}" ${t.refId}`,
        query: t.query,
        kind: 'panel',
        ...(t.alias ? { alias: t.alias } : {}),
      });
    }
  }
  return out;
}

export type SchemaLike = Record<string, { tags: readonly string[]; fields: readonly string[] }>;

const QUOTED = /"((?:[^"\\]|\\.)*)"/g;

/** Problems with the names a query uses: unknown measurements, tags or fields; a field where InfluxQL
 * needs a tag (GROUP BY, tag comparisons, WITH KEY); $tag_x aliases of tags it does not group by. */
export function nameProblems(q: QueryRef, schema: SchemaLike): string[] {
  const problems: string[] = [];
  const at = `${q.dashboard} ${q.where}`;
  const measurements = measurementsOf(q.query);
  if (measurements.length === 0) problems.push(`${at}: no FROM "measurement"`);
  const tags = new Set<string>();
  const fields = new Set<string>();
  for (const m of measurements) {
    const s = schema[m];
    if (!s) {
      problems.push(`${at}: unknown measurement ${m}`);
      continue;
    }
    for (const t of s.tags) tags.add(t);
    for (const f of s.fields) fields.add(f);
  }
  const aliases = new Set([...q.query.matchAll(/\bAS\s+"((?:[^"\\]|\\.)*)"/gi)].map((m) => m[1] ?? ''));
  const measurementSet = new Set(measurements);
  for (const m of q.query.matchAll(QUOTED)) {
    const name = m[1] ?? '';
    if (!measurementSet.has(name) && !tags.has(name) && !fields.has(name) && !aliases.has(name)) {
      problems.push(`${at}: "${name}" is no tag or field of ${measurements.join(', ')}`);
    }
  }
  const mustBeTag = (name: string, why: string) => {
    if (!tags.has(name)) problems.push(`${at}: ${why} "${name}" is not a tag of ${measurements.join(', ')}`);
  };
  const grouped = new Set<string>();
  for (const g of q.query.matchAll(
    /GROUP BY ((?:time\([^)]*\)|"(?:[^"\\]|\\.)*")(?:, (?:time\([^)]*\)|"(?:[^"\\]|\\.)*"))*)/g,
  )) {
    for (const id of (g[1] ?? '').matchAll(QUOTED)) {
      mustBeTag(id[1] ?? '', 'GROUP BY');
      grouped.add(id[1] ?? '');
    }
  }
  for (const c of q.query.matchAll(/"((?:[^"\\]|\\.)*)" (?:=~|!~|=|!=|<>) (?:\/|')/g))
    mustBeTag(c[1] ?? '', 'tag condition on');
  for (const k of q.query.matchAll(/WITH KEY = "((?:[^"\\]|\\.)*)"/g)) mustBeTag(k[1] ?? '', 'WITH KEY');
  for (const c of q.query.matchAll(/"((?:[^"\\]|\\.)*)" (?:=|!=|<|>|<=|>=) -?\d/g)) {
    if (!fields.has(c[1] ?? '') && !aliases.has(c[1] ?? ''))
      problems.push(`${at}: numeric condition on "${c[1]}", not a field`);
  }
  for (const a of (q.alias ?? '').matchAll(/\$tag_(\w+)/g)) {
    if (!grouped.has(a[1] ?? ''))
      problems.push(`${at}: alias uses $tag_${a[1]} but the query does not GROUP BY "${a[1]}"`);
  }
  return problems;
}
