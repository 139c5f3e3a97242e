import { describe, expect, it } from 'vitest';
import {
  agg,
  ident,
  literal,
  matchVar,
  measurementsOf,
  rate,
  select,
  showTagValues,
  tagIs,
} from './influxql.js';
import { formatJson } from './json.js';

describe('InfluxQL builder', () => {
  it('renders the panel query shape with $timeFilter last in WHERE', () => {
    expect(
      select({
        select: [agg('mean', 'bps')],
        from: 'lfn_goodput',
        where: [matchVar('run')],
        groupByTime: '$__interval',
        groupBy: ['flow'],
        fill: 'none',
      }),
    ).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's own ${...} syntax, not a template
      'SELECT mean("bps") FROM "lfn_goodput" WHERE "run" =~ /^${run:regex}$/ AND $timeFilter GROUP BY time($__interval), "flow" fill(none)',
    );
  });

  it('always bounds by time, also the outer query of a subquery', () => {
    const q = select({
      select: [agg('sum', 'r')],
      from: { select: [{ expr: rate(agg('max', 'drops')), as: 'r' }], from: 'lfn_queue' },
    });
    expect(q).toBe(
      'SELECT sum("r") FROM (SELECT non_negative_derivative(max("drops"), 1s) AS "r" FROM "lfn_queue" WHERE $timeFilter) WHERE $timeFilter',
    );
    expect(measurementsOf(q)).toEqual(['lfn_queue']);
  });

  it('quotes identifiers and literals, refuses fill() without GROUP BY time()', () => {
    expect(ident('a"b')).toBe('"a\\"b"');
    expect(literal("it's")).toBe("'it\\'s'");
    expect(tagIs('stage', 'bottleneck')).toBe(`"stage" = 'bottleneck'`);
    expect(() => select({ select: ['x'], from: 'lfn_cpu', fill: 'none' })).toThrow(/fill/);
    expect(showTagValues('lfn_tcp', 'flow', [matchVar('run')])).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's own ${...} syntax, not a template
      'SHOW TAG VALUES FROM "lfn_tcp" WITH KEY = "flow" WHERE "run" =~ /^${run:regex}$/',
    );
  });
});

describe('formatJson', () => {
  it('keeps objects expanded and short plain arrays on one line, like the formatter', () => {
    expect(formatJson({ a: [1, 2], b: {}, c: [], d: [{ e: 'x' }] })).toBe(
      '{\n  "a": [1, 2],\n  "b": {},\n  "c": [],\n  "d": [\n    {\n      "e": "x"\n    }\n  ]\n}\n',
    );
    const long = Array.from({ length: 30 }, (_, i) => `value-${i}`);
    expect(formatJson({ long }).split('\n')).toHaveLength(35); // 30 values, 2 brackets, 2 braces, final newline
  });
});
