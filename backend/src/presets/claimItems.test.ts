// A part the reproduction leaves out (meta reproduce.notReproduced): the reproduction does not run
// it, the findings that only it measures say why instead of "not measured yet", the card lists it
// under what the reproduction leaves out, and the meta file may not name a part it lacks or leave out all.
import { describe, expect, it } from 'vitest';
import { loadProblems } from '../../test/support/toyPreset.js';
import { expandCampaign } from '../campaign/expand.js';
import { presetForReproduction } from './ci.js';
import { notReproducedLines, notReproducedWhy } from './claimItems.js';
import { comparePreset } from './compare.js';
import { findingsView } from './findingsView.js';
import { loadPresets, parsePreset } from './load.js';

const campaign = (name: string) => `
name: ${name}
base:
  name: ${name}
  duration: 60s
  paths: { main: { rtt: 50ms, rate: 100Mbit, buffer: 1bdp } }
  flows: [{ name: test, stack: reno }]
vary:
  flows[0].stack: [reno, cubic]
`;
const toy = (notReproduced: string) => `
paper: { id: '000', short: Toy, title: A toy paper }
experiment: Two stacks on a short and a long path.
finding: CUBIC beats Reno on both paths, in this toy.
scaling: { rule: 'Nothing is scaled in this toy preset at all, rates are kept.', rateFactor: 1, timeFactor: 1 }
parts: { short: toy-short.yaml, long: toy-long.yaml }
ci: { seconds: 5 }
reproduce:
  seconds: 20
  why: twenty seconds hold the toy's whole ramp.
  notReproduced: [${notReproduced}]
published:
  - { id: short.cubic, value: 90, unit: Mbit/s, ref: { table: Table 1 }, where: { part: short, 'flows[0].stack': cubic }, measure: { kind: goodput, flows: test } }
  - { id: long.cubic, value: 80, unit: Mbit/s, ref: { table: Table 1 }, where: { part: long, 'flows[0].stack': cubic }, measure: { kind: goodput, flows: test } }
claims:
  - { id: short.fast, kind: threshold, text: CUBIC fills the short path., ref: { table: Table 1 }, item: short.cubic, op: '>', value: 50 }
  - { id: long.fast, kind: threshold, text: CUBIC fills the long path too., ref: { table: Table 1 }, item: long.cubic, op: '>', value: 50 }
`;
const WHY = '{ part: long, why: "needs an hour of lab time per run, which the toy cannot afford." }';
const parse = (notReproduced: string) =>
  parsePreset('toy', toy(notReproduced), (file) => campaign(file.replace(/\.yaml$/, '')));

describe('a part the reproduction leaves out', () => {
  it('is not run, and its findings say why they have nothing measured at the reproduction length', () => {
    const p = parse(WHY);
    expect(presetForReproduction(p).map((x) => x.part)).toEqual(['short']);
    const [shortClaim, longClaim] = p.meta.claims;
    if (!shortClaim || !longClaim) throw new Error('toy claims missing');
    expect(notReproducedWhy(p, shortClaim)).toBeNull();
    expect(notReproducedWhy(p, longClaim)).toBe(
      'part long needs an hour of lab time per run, which the toy cannot afford.',
    );
    const c = comparePreset(p, [], 20);
    const long = c.findings.find((f) => f.id === 'long.fast');
    expect(long?.verdict).toBe('inconclusive');
    expect(long?.sentence).toMatch(/not measured yet.*\. Not in the reproduction: part long needs an hour/);
    expect(c.findings.find((f) => f.id === 'short.fast')?.sentence).not.toMatch(/Not in the reproduction/);
    // At full length the part runs: nothing to explain.
    expect(comparePreset(p, [], null).findings.find((f) => f.id === 'long.fast')?.sentence).not.toMatch(
      /Not in the reproduction/,
    );
    expect(findingsView(p, null, null).notReproduced).toEqual(notReproducedLines(p));
    expect(findingsView(p, null, null).notExpressed).toEqual([]);
  });

  it('must name a part the preset has, and may not leave out every part', () => {
    const problems = (notReproduced: string) => loadProblems(() => parse(notReproduced));
    expect(problems('{ part: other, why: "a part that is not there at all, misnamed." }')).toContain(
      'reproduce.notReproduced: no part named other',
    );
    expect(
      problems(`${WHY}, { part: short, why: "and this one too, so nothing is left to run." }`),
    ).toContain('reproduce.notReproduced: leaves out every part; a reproduction needs one');
    expect(problems(WHY)).toEqual([]);
  });

  it("leaves out seed002-equivalence's part bdp, whose four findings say why, and keeps part main's 45 runs", () => {
    const p = loadPresets().find((x) => x.name === 'seed002-equivalence');
    if (!p) throw new Error('seed002-equivalence missing');
    const repro = presetForReproduction(p);
    expect(repro.map((x) => x.part)).toEqual(['main']);
    expect(repro.flatMap((x) => expandCampaign(x.campaign))).toHaveLength(45);
    const left = p.meta.claims.filter((c) => notReproducedWhy(p, c) !== null).map((c) => c.id);
    expect(left.sort()).toEqual(['hs.12', 'scalable.more.bdp', 'stcp.30', 'stcp.hs.10']);
  });
});
