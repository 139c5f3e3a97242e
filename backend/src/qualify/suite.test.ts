import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { planSuite } from './plan.js';
import { boundsFor, overlay, parseSuiteText, SuiteError } from './suite.js';

const SHIPPED = fileURLToPath(new URL('../../../presets/suites/lfn-qualification.yaml', import.meta.url));

const GOOD = `
name: small
base:
  name: small
  duration: 20s
  paths: { main: { rtt: 120ms, rate: 100Mbit, buffer: 1bdp } }
  flows: [{ name: test, stack: cubic }]
stacks: [cubic, reno]
thresholds:
  goodput_share: { min: 80, unit: '%' }
  time_to_90: { max: 5000, unit: ms }
conditions:
  - name: plain
  - name: shared
    spec: { flows: [{ name: test, stack: cubic }, { name: other, stack: cubic }] }
    thresholds: { jain: { min: 0.9 }, time_to_90: null }
  - name: lossy
    spec: { paths: { main: { ber: 1e-8 } } }
`;

/** Every problem of a suite text as 'path: message' lines. */
function problems(text: string): string[] {
  try {
    parseSuiteText(text);
  } catch (err) {
    if (err instanceof SuiteError) return err.problems.map((p) => `${p.path}: ${p.message}`);
    throw err;
  }
  return [];
}

describe('suite schema', () => {
  it('reads a good suite with its defaults', () => {
    const s = parseSuiteText(GOOD);
    expect(s.repetitions).toBe(3);
    expect(s.seed).toBe(1);
    expect(s.conditions.map((c) => c.name)).toEqual(['plain', 'shared', 'lossy']);
  });

  it('turns bounds into the metric’s own unit, a condition’s bounds over the suite’s', () => {
    const s = parseSuiteText(GOOD);
    expect(boundsFor(s, 'plain')).toEqual([
      { metric: 'goodput_share', min: 0.8 },
      { metric: 'time_to_90', max: 5 },
    ]);
    // null drops the suite's time_to_90 there; jain is that condition's own.
    expect(boundsFor(s, 'shared')).toEqual([
      { metric: 'goodput_share', min: 0.8 },
      { metric: 'jain', min: 0.9 },
    ]);
  });

  it('reads the shipped LFN suite', () => {
    const s = parseSuiteText(readFileSync(SHIPPED, 'utf8'));
    expect(s.conditions.length).toBeGreaterThanOrEqual(5);
    const plans = planSuite(s, { seconds: 10 });
    expect(plans.flatMap((p) => p.variants)).toHaveLength(s.conditions.length * s.stacks.length * 3);
    // --seconds shortens every run, as a preset's CI variant does.
    for (const p of plans) expect(p.variants.every((v) => v.resolved.duration === 10_000)).toBe(true);
  });

  it('names the path and the allowed range of every bad bound', () => {
    const bad = GOOD.replace(
      "goodput_share: { min: 80, unit: '%' }",
      "goodput_share: { min: 180, unit: '%' }",
    )
      .replace('time_to_90: { max: 5000, unit: ms }', 'time_to_90: { max: 5, unit: min }')
      .replace('jain: { min: 0.9 }', 'jain: { min: 1.2 }, speed: { min: 1 }');
    expect(problems(bad)).toEqual([
      'conditions.1.thresholds.jain.min: must be 0 to 1 ratio (got 1.2)',
      expect.stringMatching(
        /^conditions\.1\.thresholds\.speed: is not a metric a suite can bound; allowed: goodput_share, jain/,
      ),
      'thresholds.goodput_share.min: must be 0 to 150 % (got 180)',
      'thresholds.time_to_90.unit: must be one of s, ms for time_to_90',
    ]);
  });

  it('names the path of bad counts, names and unknown fields', () => {
    const bad = `${GOOD.replace('name: small\nbase', 'name: small!\nbase')}repetitions: 0\nseconds: 1\nextra: 1\n`;
    const ps = problems(bad);
    expect(ps).toContain(
      'name: must be a name of letters, digits, _ . - (up to 64, starting with a letter or digit)',
    );
    expect(ps).toContain('repetitions: must be a whole number of runs from 1 to 20');
    expect(ps).toContain('seconds: must be a whole number of seconds from 2 to 3600');
    // The whole document's problem has the empty path (the CLI prints it as '(suite)').
    expect(ps).toContain(
      ': unknown field(s) extra; allowed: name, description, base, subject, conditions, stacks, thresholds, repetitions, seconds, seed',
    );
  });

  it('refuses a condition name used twice and a suite-level null bound', () => {
    const bad = GOOD.replace('- name: lossy', '- name: plain').replace(
      "goodput_share: { min: 80, unit: '%' }",
      'goodput_share: null',
    );
    expect(problems(bad)).toEqual([
      "conditions.2.name: 'plain' is used twice; condition names must differ",
      'thresholds.goodput_share: must be a bound { min, max, unit }; null (no bound) only in a condition',
    ]);
  });

  it('validates every condition with the spec schema and names the condition', () => {
    const bad = GOOD.replace('ber: 1e-8', 'ber: 2').replace(
      'stacks: [cubic, reno]',
      'stacks: [cubic, nosuch]',
    );
    const ps = problems(bad);
    expect(
      ps.some((p) => /^conditions\.2\.spec\.paths\.main\.ber: .*\(condition lossy, stack cubic\)$/.test(p)),
    ).toBe(true);
    expect(ps.some((p) => /^stacks\.1: .*\(condition plain, stack nosuch\)$/.test(p))).toBe(true);
  });

  it('refuses a subject the conditions do not have', () => {
    const bad = GOOD.replace('stacks:', 'subject: missing\nstacks:');
    expect(problems(bad)).toContain(
      "conditions.0.spec: has no flow named 'missing' (subject) to put the stacks under test in (condition plain)",
    );
  });
});

describe('overlay', () => {
  it('merges objects key by key and replaces lists', () => {
    const base = { paths: { main: { rtt: '120ms', rate: '100Mbit' } }, flows: [{ name: 'a' }] };
    expect(overlay(base, { paths: { main: { ber: 1e-8 } }, flows: [{ name: 'b' }] })).toEqual({
      paths: { main: { rtt: '120ms', rate: '100Mbit', ber: 1e-8 } },
      flows: [{ name: 'b' }],
    });
    expect(base.paths.main).not.toHaveProperty('ber');
  });

  it('never writes through __proto__', () => {
    const out = overlay({}, JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(out)).toEqual([]);
  });
});
