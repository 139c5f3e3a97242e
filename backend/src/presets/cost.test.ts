// The cost printed before a preset runs: runs and lab seconds counted from the expanded campaign,
// wall time at the stated pace plus the per-run set-up.
import { describe, expect, it } from 'vitest';
import { parseCampaignText } from '../campaign/expand.js';
import { campaignsCost, formatCost, formatWallS } from './cost.js';

const campaign = parseCampaignText(`
name: cost
base:
  name: cost
  duration: 30s
  paths: { main: { rtt: 50ms, rate: 20Mbit } }
  flows: [{ stack: reno }]
vary:
  flows[0].stack: [reno, cubic]
repeat: 3
`);

describe('campaignsCost', () => {
  it('counts runs and lab time, and adds the default set-up per run to the wall time at the pace given', () => {
    const c = campaignsCost([{ campaign }, { campaign }], 0.5);
    expect(c.runs).toBe(12);
    expect(c.labS).toBe(360);
    expect(c.wallS).toBe(360 / 0.5 + 12 * 20);
    expect(formatCost(c)).toBe(
      '12 runs, 6 min of lab time, about 16 min wall (at 0.5 lab s per wall s, 20 s per run for set-up)',
    );
  });

  it('writes wall times in the unit a person reads', () => {
    expect([45, 600, 7200].map(formatWallS)).toEqual(['45 s', '10 min', '2.0 h']);
  });
});
