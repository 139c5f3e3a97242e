// A small InfluxQL (1.x) query builder for dashboard panels. Every SELECT it renders ends its WHERE
// clause with Grafana's $timeFilter, so no panel can read a whole database by accident; identifiers
// are always double-quoted and tag values single-quoted, the way InfluxQL wants them.
import type { Measurement } from './influxContract.js';

export type Aggregate = 'mean' | 'median' | 'max' | 'min' | 'last' | 'first' | 'count' | 'sum' | 'spread';
export type Fill = 'none' | 'null' | 'previous' | 'linear' | number;

/** A column: an expression, optionally named with AS. */
export type Column = string | { expr: string; as: string };

export interface Select {
  select: Column[];
  /** A measurement, or a subquery (InfluxQL 1.2+). */
  from: Measurement | Select;
  /** Conditions joined with AND; `$timeFilter` is always appended. */
  where?: string[];
  /** GROUP BY time(...), e.g. '$__interval'. */
  groupByTime?: string;
  /** GROUP BY tags (tag keys only: grouping by a field is silently ignored by InfluxDB). */
  groupBy?: string[];
  /** fill(...), only with groupByTime. */
  fill?: Fill;
}

/** A double-quoted identifier (measurement, tag key, field key or alias). */
export const ident = (name: string): string => `"${name.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** A single-quoted string literal (tag values in WHERE). */
export const literal = (value: string): string => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** `fn("field")`. */
export const agg = (fn: Aggregate, field: string): string => `${fn}(${ident(field)})`;

/** The per-second rate of a counter over GROUP BY time buckets, resets ignored. */
export const rate = (inner: string, unit = '1s'): string => `non_negative_derivative(${inner}, ${unit})`;

/**
 * A tag matched against a Grafana variable: `"tag" =~ /^${variable:regex}$/`. The regex format
 * escapes every value (a '.' or '/' in a run id matches only itself) and ORs several as `(a|b)`;
 * a variable's custom All value (`.*`) is left as it is. Works for single, multi and All alike.
 */
export const matchVar = (tag: string, variable: string = tag): string =>
  `${ident(tag)} =~ /^\${${variable}:regex}$/`;

/** A tag equal to a fixed value. */
export const tagIs = (tag: string, value: string): string => `${ident(tag)} = ${literal(value)}`;

/** A field compared with a number (used on subquery columns). */
export const fieldIs = (field: string, value: number): string => `${ident(field)} = ${value}`;

const column = (c: Column) => (typeof c === 'string' ? c : `${c.expr} AS ${ident(c.as)}`);

/** Render a SELECT; throws on shapes InfluxQL would reject or misread. */
export function select(q: Select): string {
  if (q.select.length === 0) throw new Error('select: no columns');
  if (q.fill !== undefined && !q.groupByTime) throw new Error('select: fill() needs GROUP BY time()');
  const from = typeof q.from === 'string' ? ident(q.from) : `(${select(q.from)})`;
  const where = [...(q.where ?? []), '$timeFilter'].join(' AND ');
  const group = [...(q.groupByTime ? [`time(${q.groupByTime})`] : []), ...(q.groupBy ?? []).map(ident)];
  let s = `SELECT ${q.select.map(column).join(', ')} FROM ${from} WHERE ${where}`;
  if (group.length > 0) s += ` GROUP BY ${group.join(', ')}`;
  if (q.fill !== undefined) s += ` fill(${q.fill})`;
  return s;
}

/** `SHOW TAG VALUES FROM "m" WITH KEY = "key" [WHERE ...]`, for template variables. */
export function showTagValues(measurement: Measurement, key: string, where: string[] = []): string {
  const w = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  return `SHOW TAG VALUES FROM ${ident(measurement)} WITH KEY = ${ident(key)}${w}`;
}

/** The measurements a query reads (FROM "m", including inside subqueries). */
export function measurementsOf(query: string): string[] {
  return [...query.matchAll(/\bFROM\s+"((?:[^"\\]|\\.)*)"/gi)].map((m) => m[1] ?? '');
}
