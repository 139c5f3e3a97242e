// The campaign behind the hand-made presets that judging tests use: three stacks, two flows (`test`
// and `other`), on one path or (toyCampaign) on two, so tables of stacks by path can be written.
import { PresetError } from '../../src/presets/load.js';
export const toyCampaignOf = (vary: string) => `
name: toy
base:
  name: toy
  duration: 60s
  paths: { main: { rtt: 50ms, rate: 100Mbit } }
  flows: [{ name: test, stack: reno }, { name: other, stack: reno }]
vary:
${vary}`;

export const toyCampaign = toyCampaignOf(`  flows[0].stack: [reno, cubic, bic]
  paths.main.rtt: [50ms, 100ms]
`);

/** The problems loading a preset reports ([] when it loads): what a test of the meta file's checks reads. */
export function loadProblems(load: () => unknown): string[] {
  try {
    load();
  } catch (err) {
    if (err instanceof PresetError) return err.problems;
    throw err;
  }
  return [];
}
