// A suite as campaigns: one per condition, varying the subject flow's stack, `repetitions` runs of
// each, shortened to `seconds` the way presets are shortened for CI (shortenForCi). The campaign
// machinery expands, validates, orders and resumes them; a suite is their sequence.
import { type Campaign, expandCampaign, type Variant } from '../campaign/expand.js';
import { shortenForCi } from '../presets/ci.js';
import { conditionSpec, type Suite, subjectIndex } from './suite.js';

export interface ConditionPlan {
  condition: string;
  campaign: Campaign;
  /** Index of the flow under test in the condition's spec. */
  subjectIndex: number;
  /** The campaign's variants, each with the stack it tests. */
  variants: (Variant & { stack: string })[];
}

export function planSuite(suite: Suite, o: { seconds?: number; repetitions?: number } = {}): ConditionPlan[] {
  const repeat = o.repetitions ?? suite.repetitions;
  const seconds = o.seconds ?? suite.seconds;
  return suite.conditions.map((c) => {
    const base = { ...conditionSpec(suite, c), seed: suite.seed };
    const idx = subjectIndex(suite, base);
    if (typeof idx === 'string') throw new Error(`condition ${c.name} ${idx}`);
    const key = `flows[${idx}].stack`;
    const full: Campaign = {
      name: `${suite.name}.${c.name}`.slice(0, 64),
      description: c.description ?? `${suite.name}: ${c.name}`,
      base,
      vary: { [key]: [...suite.stacks] },
      repeat,
      order: 'random',
      seed: suite.seed,
    };
    const campaign =
      seconds === undefined
        ? full
        : { ...shortenForCi(full, seconds, { repeat, suffix: 'q' }), name: full.name };
    const variants = expandCampaign(campaign).map((v) => ({ ...v, stack: String(v.params[key]) }));
    return { condition: c.name, campaign, subjectIndex: idx, variants };
  });
}
