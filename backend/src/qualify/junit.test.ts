import { describe, expect, it } from 'vitest';
import type { CaseResult, SuiteResult } from './judge.js';
import { junitXml, xmlEscape } from './junit.js';

const kase = (
  condition: string,
  stack: string,
  outcome: CaseResult['outcome'],
  message = '',
): CaseResult => ({
  condition,
  stack,
  outcome,
  message,
  metrics: [],
  runs: [
    {
      id: `${stack}-r1`,
      status: 'completed',
      verdict: outcome === 'error' ? 'invalid' : 'valid',
      reasons: [],
    },
  ],
  seconds: 20,
});

const result = (cases: CaseResult[]): SuiteResult => ({
  suite: 'lfn',
  lab: 'fake',
  imageId: 'img-1',
  kernel: '6.1.0',
  seed: 7,
  repetitions: 1,
  seconds: 20,
  conditions: [...new Set(cases.map((c) => c.condition))],
  stacks: [...new Set(cases.map((c) => c.stack))],
  cases,
  counts: {
    tests: cases.length,
    passed: cases.filter((c) => c.outcome === 'pass').length,
    failures: cases.filter((c) => c.outcome === 'failure').length,
    errors: cases.filter((c) => c.outcome === 'error').length,
  },
});

const attr = (xml: string, tag: string, name: string) =>
  [...xml.matchAll(new RegExp(`<${tag}\\b[^>]*\\b${name}="([^"]*)"`, 'g'))].map((m) => m[1]);

describe('xmlEscape', () => {
  it('escapes markup and quotes and drops characters XML cannot hold', () => {
    expect(xmlEscape(`a<b>&"c"'d'`)).toBe('a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;');
    expect(xmlEscape('bell\u0007 tab\t nul\u0000')).toBe('bell tab\t nul');
  });
});

describe('junitXml', () => {
  const xml = junitXml(
    result([
      kase('bdp', 'cubic', 'pass'),
      kase('bdp', 'reno', 'failure', 'goodput share of the link 0.62 < min 0.80 (n=3, 95 % CI 0.58–0.66)'),
      kase('ber<&>', 'cubic', 'error', 'run x verdict invalid: "rate" <off> & late'),
    ]),
    new Date('2026-01-02T03:04:05.678Z'),
  );

  it('counts tests, failures and errors per suite and overall', () => {
    expect(attr(xml, 'testsuites', 'tests')).toEqual(['3']);
    expect(attr(xml, 'testsuites', 'failures')).toEqual(['1']);
    expect(attr(xml, 'testsuites', 'errors')).toEqual(['1']);
    expect(attr(xml, 'testsuite', 'tests')).toEqual(['2', '1']);
    expect(attr(xml, 'testsuite', 'failures')).toEqual(['1', '0']);
    expect(attr(xml, 'testsuite', 'errors')).toEqual(['0', '1']);
    expect(attr(xml, 'testsuite', 'timestamp')).toEqual(['2026-01-02T03:04:05', '2026-01-02T03:04:05']);
  });

  it('has one testcase per condition × stack, classname SUITE.CONDITION, escaped', () => {
    expect(attr(xml, 'testcase', 'name')).toEqual(['cubic', 'reno', 'cubic']);
    expect(attr(xml, 'testcase', 'classname')).toEqual(['lfn.bdp', 'lfn.bdp', 'lfn.ber&lt;&amp;&gt;']);
    expect(attr(xml, 'testcase', 'time')).toEqual(['20.000', '20.000', '20.000']);
  });

  it('carries the failure message and the error reason, escaped', () => {
    expect(attr(xml, 'failure', 'message')).toEqual([
      'goodput share of the link 0.62 &lt; min 0.80 (n=3, 95 % CI 0.58–0.66)',
    ]);
    expect(attr(xml, 'error', 'message')).toEqual([
      'run x verdict invalid: &quot;rate&quot; &lt;off&gt; &amp; late',
    ]);
    expect(xml).not.toMatch(/<off>/);
  });

  it('records lab mode, image, kernel and seed as properties', () => {
    for (const p of [
      'lab.mode" value="fake',
      'image.id" value="img-1',
      'kernel" value="6.1.0',
      'seed" value="7',
    ])
      expect(xml).toContain(`<property name="${p}"/>`);
  });
});
