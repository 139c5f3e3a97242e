// Values of a varied parameter a reproduction leaves out (meta reproduce.values): the reproduction
// runs only the kept ones, says which it dropped and why wherever it lists what it leaves out, and
// the meta file may not keep a value the campaign does not have or name a parameter nothing varies.
import { describe, expect, it } from 'vitest';
import { loadProblems, toyCampaignOf } from '../../test/support/toyPreset.js';
import { expandCampaign } from '../campaign/expand.js';
import { presetForReproduction } from './ci.js';
import { notReproducedLines } from './claimItems.js';
import { campaignsCost } from './cost.js';
import { findingsView } from './findingsView.js';
import { loadPresets, parsePreset } from './load.js';

// The toy's two flows: `test` the single flow, `other` the n streams. An exclude naming only a
// dropped value (32) must go with it.
const campaign = toyCampaignOf(`  flows[0].stack: [reno, cubic]
  flows[1].streams: [1, 2, 4, 8, 16, 32]
exclude:
  - { 'flows[1].streams': 32, 'flows[0].stack': cubic }
`);
const WHY = 'the crossing lies below 8 in every probe, so 16 is past it.';
const toy = (values: string) => `
paper: { id: '000', short: Toy, title: A toy paper }
experiment: One flow against n streams.
finding: One CUBIC flow is worth a few Reno streams, in this toy.
scaling: { rule: 'Nothing is scaled in this toy preset at all, rates are kept.', rateFactor: 1, timeFactor: 1 }
parts: { main: toy-main.yaml }
ci: { seconds: 5 }
reproduce:
  seconds: 20
  why: twenty seconds hold the toy's whole ramp.
  values: [${values}]
published:
  - { id: eq, value: 4, unit: flows, ref: { table: Table 1 }, where: { 'flows[0].stack': cubic }, measure: { kind: equivalence, single: test, many: other, countParam: 'flows[1].streams' } }
claims:
  - { id: eq.above.one, kind: threshold, text: One CUBIC flow is worth more than one Reno stream., ref: { table: Table 1 }, item: eq, op: '>', value: 1 }
`;
const parse = (values: string) => parsePreset('toy', toy(values), () => campaign);
const problems = (values: string) => loadProblems(() => parse(values));
const streamsOf = (p: ReturnType<typeof parse>) =>
  presetForReproduction(p).flatMap((x) =>
    expandCampaign(x.campaign).map((v) => v.params['flows[1].streams']),
  );

describe('values a reproduction leaves out', () => {
  it('are not run; the rest run at every repetition, and an exclude naming only dropped values goes', () => {
    const all = parse('');
    // 2 stacks × 6 counts, less cubic at 32, × 3 repetitions.
    expect(streamsOf(all)).toHaveLength(33);
    const p = parse(`{ key: 'flows[1].streams', keep: [1, 2, 4, 8, 16], why: '${WHY}' }`);
    const streams = streamsOf(p);
    expect(streams).toHaveLength(30);
    expect(new Set(streams)).toEqual(new Set([1, 2, 4, 8, 16]));
    // The cost the CLI and the card print before "Run it" counts only the runs that will be made.
    expect(campaignsCost(presetForReproduction(p)).runs).toBe(30);
  });

  it('are named with why, in the lines that list what the reproduction leaves out', () => {
    const p = parse(`{ part: main, key: 'flows[1].streams', keep: [1, 2, 4, 8, 16], why: '${WHY}' }`);
    const lines = notReproducedLines(p);
    expect(lines).toEqual([`flows[1].streams 32 (part main; it keeps 1, 2, 4, 8, 16): ${WHY}`]);
    expect(findingsView(p, null, null).notReproduced).toEqual(lines);
  });

  it('must name a varied parameter, values the campaign has, and a part the preset has', () => {
    expect(problems(`{ key: 'flows[0].rtt', keep: [50ms], why: '${WHY}' }`)).toContain(
      "reproduce.values[0]: no part varies 'flows[0].rtt'",
    );
    expect(problems(`{ key: 'flows[1].streams', keep: [1, 3], why: '${WHY}' }`)).toContain(
      "reproduce.values[0]: 3 is not one of part main's values of 'flows[1].streams' (1, 2, 4, 8, 16, 32)",
    );
    expect(problems(`{ part: other, key: 'flows[1].streams', keep: [1], why: '${WHY}' }`)).toContain(
      'reproduce.values[0]: no part named other',
    );
    expect(problems(`{ key: 'flows[1].streams', keep: [1, 2], why: '${WHY}' }`)).toEqual([]);
  });

  it("keeps seed002-equivalence's counts up to 16, where its crossings lie", () => {
    const p = loadPresets().find((x) => x.name === 'seed002-equivalence');
    if (!p) throw new Error('seed002-equivalence missing');
    const counts = presetForReproduction(p).flatMap((x) =>
      expandCampaign(x.campaign).map((v) => v.params['flows[1].streams']),
    );
    expect(new Set(counts)).toEqual(new Set([1, 2, 4, 8, 16]));
    expect(notReproducedLines(p).some((l) => l.startsWith('flows[1].streams 12, 24, 32, 48'))).toBe(true);
  });
});
