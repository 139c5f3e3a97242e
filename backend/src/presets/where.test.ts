// The `where` selector: matching by value, the load-time check of a selection against the parts'
// `vary` lists (match, no match, more than one, unknown field, values not together), the schema's
// refusal of `$nth`, and the errors parsePreset gives with the meta file, the number's id and the field.
import { describe, expect, it } from 'vitest';
import { type Campaign, expandCampaign } from '../campaign/expand.js';
import { matchPattern } from '../campaign/pattern.js';
import { presetForReproduction } from './ci.js';
import { PresetError, parsePreset } from './load.js';
import { PatternSchema } from './schema.js';
import { checkWhere, namedValues, rowMatches, type VariedPart } from './where.js';

const parts: VariedPart[] = [
  {
    name: 'short',
    vary: {
      'flows[0]': [
        { stack: 'reno', streams: 1 },
        { stack: 'reno', streams: 16 },
        { stack: 'cubic', streams: 1 },
      ],
      'paths.main.buffer': ['0.5bdp', '1bdp'],
      'paths.main.cross': [[], [{ pattern: 'sine', period: '60s' }], [{ pattern: 'sine', period: '30s' }]],
    },
  },
  {
    name: 'long',
    vary: {
      'flows[0]': [{ stack: 'reno', streams: 1, window: '2bdp' }],
      'paths.main.rtt': ['100ms', '200ms'],
    },
  },
];

describe('matchPattern', () => {
  it('matches values exactly, objects as subsets and lists element by element', () => {
    expect(matchPattern('0.5bdp', '0.5bdp')).toBe(true);
    expect(matchPattern('0.5bdp', '1bdp')).toBe(false);
    expect(matchPattern({ stack: 'reno' }, { stack: 'reno', streams: 16 })).toBe(true);
    expect(matchPattern({ stack: 'reno', streams: 1 }, { stack: 'reno', streams: 16 })).toBe(false);
    expect(matchPattern([{ period: '60s' }], [{ pattern: 'sine', period: '60s' }])).toBe(true);
    expect(matchPattern([{ period: '60s' }], [{ period: '60s' }, { period: '30s' }])).toBe(false);
    expect(matchPattern([], [])).toBe(true);
    expect(matchPattern([], [{ period: '60s' }])).toBe(false);
  });

  it('reads $any and $not', () => {
    expect(matchPattern({ $any: ['0.5bdp', '1bdp'] }, '1bdp')).toBe(true);
    expect(matchPattern({ $any: ['0.5bdp', '1bdp'] }, '2bdp')).toBe(false);
    expect(matchPattern({ $not: [] }, [{ period: '60s' }])).toBe(true);
    expect(matchPattern({ $not: [] }, [])).toBe(false);
  });

  it('selects a row by its part and parameter values', () => {
    const row = {
      part: 'short',
      params: { 'flows[0]': { stack: 'cubic', streams: 1 }, 'paths.main.buffer': '0.5bdp' },
    };
    expect(rowMatches(row, { 'flows[0]': { stack: 'cubic' }, 'paths.main.buffer': '0.5bdp' })).toBe(true);
    expect(rowMatches(row, { part: 'long', 'flows[0]': { stack: 'cubic' } })).toBe(false);
    expect(rowMatches(row, { 'paths.main.rtt': '100ms' })).toBe(false);
  });

  it('names the values a pattern lists, under $any and $not', () => {
    expect(namedValues({ $not: { $any: ['a', { $any: ['b', 'c'] }] } })).toEqual(['a', 'b', 'c']);
  });
});

describe('checkWhere', () => {
  const check = (where: Record<string, unknown>) => checkWhere(where, parts, 'published x.y');

  it('accepts values that each name one value of their parameter', () => {
    expect(check({ 'flows[0]': { stack: 'cubic' }, 'paths.main.buffer': '0.5bdp' })).toEqual([]);
    expect(check({ 'flows[0]': { stack: 'reno', streams: 16 } })).toEqual([]);
    expect(check({ 'paths.main.cross': { $any: [[{ period: '60s' }], [{ period: '30s' }]] } })).toEqual([]);
    expect(check({ 'paths.main.cross': { $not: [] } })).toEqual([]);
    expect(check({ part: 'long', 'paths.main.rtt': { $any: ['100ms', '200ms'] } })).toEqual([]);
    // One value in each part (a different one in each) names one variant per part.
    expect(check({ 'flows[0]': { stack: 'reno', streams: 1 } })).toEqual([]);
  });

  it('refuses a value the parameter does not have, listing the values it has', () => {
    expect(check({ 'paths.main.buffer': '2bdp' })).toEqual([
      `published x.y: 'paths.main.buffer' has no value "2bdp" in part short; its values: "0.5bdp", "1bdp"`,
    ]);
    // Also inside $any and $not: each value listed there must exist.
    expect(check({ 'paths.main.buffer': { $not: { $any: ['1bdp', '3bdp'] } } })).toHaveLength(1);
    // A value of another part is not a value of the part the selection names.
    expect(check({ part: 'long', 'flows[0]': { stack: 'cubic' } })[0]).toMatch(
      /'flows\[0\]' has no value \{"stack":"cubic"\} in part long; its values: \{"stack":"reno","streams":1,"window":"2bdp"\}/,
    );
  });

  it('refuses a pattern that fits more than one value, so adding a value cannot join it silently', () => {
    expect(check({ 'flows[0]': { stack: 'reno' } })).toEqual([
      `published x.y: 'flows[0]': {"stack":"reno"} fits 2 values in part short ({"stack":"reno","streams":1}, {"stack":"reno","streams":16}); name one value, or list each in { $any: [...] }`,
    ]);
    expect(check({ 'paths.main.cross': [{ pattern: 'sine' }] })[0]).toMatch(/fits 2 values/);
  });

  it('refuses a parameter that no part in reach varies, listing the varied ones', () => {
    expect(check({ 'flows[0].stack': 'reno' })).toEqual([
      `published x.y: 'flows[0].stack' is not a varied parameter of any part; varied: flows[0], paths.main.buffer, paths.main.cross, paths.main.rtt`,
    ]);
    expect(check({ part: 'long', 'paths.main.buffer': '1bdp' })).toEqual([
      `published x.y: 'paths.main.buffer' is not a varied parameter of part long; varied: flows[0], paths.main.rtt`,
    ]);
    expect(check({ part: 'medium' })).toEqual([`published x.y: part "medium" is not one of short, long`]);
  });

  it('refuses values that exist but never together in one run', () => {
    expect(check({ 'paths.main.buffer': '1bdp', 'paths.main.rtt': '100ms' })).toEqual([
      `published x.y: no run has all of paths.main.buffer "1bdp", paths.main.rtt "100ms" (each value exists, but not together in one part)`,
    ]);
  });

  it('refuses a combination the campaign excludes: no run has it', () => {
    const pairs: VariedPart[] = [
      {
        name: 'main',
        vary: { 'flows[0].stack': ['reno', 'fast'], 'flows[1].stack': ['reno', 'fast'] },
        exclude: [{ 'flows[0].stack': 'fast', 'flows[1].stack': 'fast' }],
      },
    ];
    expect(checkWhere({ 'flows[0].stack': 'fast', 'flows[1].stack': 'reno' }, pairs, 'published a')).toEqual(
      [],
    );
    expect(checkWhere({ 'flows[0].stack': 'fast', 'flows[1].stack': 'fast' }, pairs, 'published a')).toEqual([
      `published a: no run has all of flows[0].stack "fast", flows[1].stack "fast" (the campaign's exclude leaves that combination out)`,
    ]);
  });

  it('refuses a value a part lists twice (two variants, one name)', () => {
    const twice: VariedPart[] = [{ name: 'main', vary: { 'paths.main.rtt': ['10ms', '20ms', '10ms'] } }];
    expect(checkWhere({ 'paths.main.rtt': '10ms' }, twice, 'published a')).toEqual([
      `published a: 'paths.main.rtt' lists "10ms" more than once`,
    ]);
  });
});

describe('PatternSchema', () => {
  it('refuses positions ($nth) and unknown operators, with the path to them', () => {
    const r = PatternSchema.safeParse({ $any: [{ $nth: 2 }, { $first: true }] });
    expect(r.success).toBe(false);
    const issues = r.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(issues[0]).toMatch(/^\$any\.0\.\$nth: variants are no longer picked by position/);
    expect(issues[1]).toBe(`$any.1.$first: '$first' is not a pattern operator; allowed: $any, $not`);
  });

  it('refuses an operator with other keys beside it and an empty $any', () => {
    expect(PatternSchema.safeParse({ $not: 'a', stack: 'reno' }).success).toBe(false);
    expect(PatternSchema.safeParse({ $any: [] }).success).toBe(false);
    expect(PatternSchema.safeParse({ stack: 'reno', window: { $any: ['1bdp', '2bdp'] } }).success).toBe(true);
  });
});

describe('parsePreset', () => {
  const campaign = `
name: toy
base:
  name: toy
  duration: 60s
  paths: { main: { rtt: 50ms, rate: 100Mbit, buffer: 1bdp } }
  flows: [{ name: test, stack: reno }]
vary:
  flows[0].stack: [reno, cubic]
  paths.main.buffer: [0.5bdp, 1bdp]
`;
  const meta = (where: string) => `
paper: { id: '000', short: Toy, title: A toy paper }
experiment: Two stacks at two buffers.
finding: CUBIC fills the small buffer better than Reno does, in this toy.
scaling: { rule: 'Nothing is scaled in this toy preset at all, rates are kept.', rateFactor: 1, timeFactor: 1 }
ci: { seconds: 5 }
published:
  - { id: cubic.small, value: 90, unit: Mbit/s, ref: { table: Table 1 }, where: ${where}, measure: { kind: goodput, flows: test } }
`;
  const problems = (where: string) => {
    try {
      parsePreset('toy', meta(where), () => campaign);
    } catch (err) {
      expect(err).toBeInstanceOf(PresetError);
      expect((err as PresetError).message.split('\n')[0]).toBe('toy.meta.yaml:');
      return (err as PresetError).problems;
    }
    return [];
  };

  it('loads a selection that names one variant by its values', () => {
    expect(problems(`{ 'flows[0].stack': cubic, 'paths.main.buffer': 0.5bdp }`)).toEqual([]);
  });

  it('names the file, the number and the field when a value is not in the campaign', () => {
    expect(problems(`{ 'flows[0].stack': cubic, 'paths.main.buffer': 0.25bdp }`)).toEqual([
      `published cubic.small: 'paths.main.buffer' has no value "0.25bdp"; its values: "0.5bdp", "1bdp"`,
    ]);
  });

  it('names the file, the number and the field when a position is used', () => {
    expect(problems(`{ 'flows[0].stack': cubic, 'paths.main.buffer': { $nth: 1 } }`)).toEqual([
      "published cubic.small (where.paths.main.buffer.$nth): variants are no longer picked by position ($nth): name the value itself, as the campaign's vary list writes it",
    ]);
  });

  it("checks an asymmetry's subject and excluded partners like a where", () => {
    const text = meta(`{}`).replace(
      'measure: { kind: goodput, flows: test }',
      "measure: { kind: asymmetryOf, subject: vegas, params: ['flows[0].stack', 'flows[0].stack'], flows: [test, test] }",
    );
    expect(() => parsePreset('toy', text, () => campaign)).toThrow(
      `published cubic.small (measure.subject): 'flows[0].stack' has no value "vegas"; its values: "reno", "cubic"`,
    );
  });

  it('checks the extra repetitions a reproduction asks for like a where, and runs them', () => {
    const withMore = (more: string) =>
      `${meta(`{ 'flows[0].stack': cubic, 'paths.main.buffer': 0.5bdp }`)}reproduce:\n  seconds: 20\n  why: twenty seconds hold the toy's whole ramp.\n  more: [${more}]\n`;
    const ok = parsePreset(
      'toy',
      withMore("{ where: { 'flows[0].stack': cubic, 'paths.main.buffer': 0.5bdp }, repeat: 7 }"),
      () => campaign,
    );
    const [repro] = presetForReproduction(ok);
    // Three repetitions of each of the four variants, seven of the one asked for.
    expect(expandCampaign(repro?.campaign as Campaign)).toHaveLength(3 * 3 + 7);
    expect(() =>
      parsePreset('toy', withMore("{ where: { 'paths.main.buffer': 0.25bdp }, repeat: 7 }"), () => campaign),
    ).toThrow(`reproduce.more[0]: 'paths.main.buffer' has no value "0.25bdp"; its values: "0.5bdp", "1bdp"`);
    expect(() =>
      parsePreset(
        'toy',
        withMore("{ part: other, where: { 'flows[0].stack': cubic }, repeat: 7 }"),
        () => campaign,
      ),
    ).toThrow('reproduce.more[0]: no part named other');
    expect(() =>
      parsePreset('toy', withMore("{ where: { 'flows[0].stack': cubic }, repeat: 3 }"), () => campaign),
    ).toThrow(/reproduce\.more\.0\.repeat/);
  });

  it('names the field a selection varies that the campaign does not', () => {
    expect(problems(`{ 'flows[0].stack': cubic, 'paths.main.rtt': 50ms }`)).toEqual([
      `published cubic.small: 'paths.main.rtt' is not a varied parameter of any part; varied: flows[0].stack, paths.main.buffer`,
    ]);
  });
});
