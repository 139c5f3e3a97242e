// The cost printed before a preset runs: runs and lab seconds counted from the expanded campaign,
// wall time at the stated pace plus the per-run set-up.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandCampaign, parseCampaignText } from '../campaign/expand.js';
import { campaignsCost, formatCost, formatWallS, labsAtOnce } from './cost.js';

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

  it('without a pace takes each run at the pace a dilated lab keeps at its rate, and reports the one pace that gives the same total', () => {
    const fast = parseCampaignText(`
name: fast
base:
  name: fast
  duration: 60s
  paths: { main: { rtt: 50ms, rate: 100Mbit } }
  flows: [{ stack: reno }]
`);
    // 20 Mbit/s: 0.35 (the ceiling); 100 Mbit/s: 0.12.
    expect(campaignsCost([{ campaign }]).pace).toBe(0.35);
    expect(campaignsCost([{ campaign: fast }]).pace).toBe(0.12);
    const both = campaignsCost([{ campaign }, { campaign: fast }]);
    const wall = (6 * 30) / 0.35 + 60 / 0.12;
    expect(both.pace).toBe(Number(((6 * 30 + 60) / wall).toPrecision(2)));
    expect(both.wallS).toBe(Math.round((6 * 30 + 60) / both.pace + 7 * 20));
  });

  it('writes wall times in the unit a person reads', () => {
    expect([45, 600, 7200].map(formatWallS)).toEqual(['45 s', '10 min', '2.0 h']);
  });
});

describe('campaignsCost of a preset under way', () => {
  /** Writes a completed run's summary as a campaign leaves it: its times and its lab's pace. */
  const finish = (
    dir: string,
    id: string,
    startS: number,
    endS: number,
    pace: number,
    status = 'completed',
  ) => {
    const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 12) + s * 1000).toISOString();
    mkdirSync(join(dir, 'main/runs', id), { recursive: true });
    writeFileSync(
      join(dir, 'main/runs', id, 'summary.json'),
      JSON.stringify({
        status,
        startedAt: at(startS),
        finishedAt: at(endS),
        clock: { mode: 'dilated', dilation: pace, guestS: 30, wallS: 30 / pace },
      }),
    );
  };
  const ids = expandCampaign(campaign).map((v) => v.id);

  it('leaves out the runs done and prices the rest at their pace and set-up', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-cost-'));
    // Three runs in one sitting at 0.25 lab s per wall s (120 s of traffic), 10 s apart; a fourth
    // after a break (its gap is not set-up); a fifth that failed (not done).
    finish(dir, ids[0] as string, 0, 125, 0.25);
    finish(dir, ids[1] as string, 127, 255, 0.2);
    finish(dir, ids[2] as string, 257, 385, 0.25);
    finish(dir, ids[3] as string, 3000, 3130, 0.3);
    finish(dir, ids[4] as string, 3140, 3150, 0.25, 'failed');
    const c = campaignsCost([{ part: 'main', campaign }], 0.75, dir);
    expect(c.done).toBe(4);
    // 4 runs planned for 30 s each over their traffic's 120 + 150 + 120 + 100 s of wall time.
    expect(c.pace).toBe(0.24);
    // 255 - 125 - 150 (its traffic at 0.2) is negative: 0; 385 - 255 - 120 = 10; median of 0 and 10.
    expect(c.overheadS).toBe(5);
    expect(c.wallS).toBe(2 * (30 / 0.24 + 5));
    expect(c.runs).toBe(6);
    expect(formatCost(c)).toBe(
      '6 runs, 3 min of lab time; 4 done, the other 2 about 4 min wall (at 0.24 lab s per wall s and 5 s per run for set-up, as the runs done here took)',
    );
  });

  it('takes the set-up of runs on two labs at once from the gap each lab left, not from the overlap', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-cost-'));
    // Lab A: 0-125, 130-255; lab B: 60-185, 190-315; each run 120 s of traffic at 0.25.
    finish(dir, ids[0] as string, 0, 125, 0.25);
    finish(dir, ids[1] as string, 60, 185, 0.25);
    finish(dir, ids[2] as string, 130, 255, 0.25);
    finish(dir, ids[3] as string, 190, 315, 0.25);
    // 255 - 125 - 120 = 10 and 315 - 185 - 120 = 10 (a run that overlaps the one before counts none).
    expect(campaignsCost([{ part: 'main', campaign }], 0.75, dir).overheadS).toBe(10);
  });

  it('counts a run that ended early (its transfer done) as the faster run it was', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-cost-'));
    // Planned for 30 s, the traffic took 10 s of lab time at 0.25: 40 s of wall, so 30 planned
    // lab seconds went by in 40 wall seconds.
    mkdirSync(join(dir, 'main/runs', ids[0] as string), { recursive: true });
    writeFileSync(
      join(dir, 'main/runs', ids[0] as string, 'summary.json'),
      JSON.stringify({
        status: 'completed',
        startedAt: new Date(0).toISOString(),
        finishedAt: new Date(50_000).toISOString(),
        clock: { mode: 'dilated', dilation: 0.25, guestS: 10, wallS: 40 },
      }),
    );
    expect(campaignsCost([{ part: 'main', campaign }], 0.75, dir).pace).toBe(0.75);
  });

  it('says which figure was measured: a pace from runs in separate sittings, the default set-up', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-cost-'));
    finish(dir, ids[0] as string, 0, 125, 0.25);
    finish(dir, ids[1] as string, 1000, 1125, 0.25);
    expect(formatCost(campaignsCost([{ part: 'main', campaign }], 0.75, dir))).toBe(
      '6 runs, 3 min of lab time; 2 done, the other 4 about 9 min wall (at 0.25 lab s per wall s, as the runs done here took, and 20 s per run for set-up)',
    );
  });

  it('says when every run is done, and falls back to the defaults in an empty directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-cost-'));
    expect(campaignsCost([{ part: 'main', campaign }], 0.5, dir)).toMatchObject({
      done: 0,
      pace: 0.5,
      overheadS: 20,
      fromHistory: false,
    });
    for (const [i, id] of ids.entries()) finish(dir, id, i * 200, i * 200 + 150, 0.25);
    expect(formatCost(campaignsCost([{ part: 'main', campaign }], 0.5, dir))).toBe(
      '6 runs, 3 min of lab time; all 6 done',
    );
  });
});

describe('labsAtOnce', () => {
  const run = (startS: number, endS: number) => ({ start: startS * 1000, end: endS * 1000 });
  it('counts the runs in flight at once in the last sitting: 1 on one lab whatever the set-up, 2 on two', () => {
    expect(labsAtOnce([])).toBe(1);
    expect(labsAtOnce([run(0, 100), run(110, 200), run(215, 300)])).toBe(1);
    expect(labsAtOnce([run(0, 100), run(50, 150), run(105, 200), run(155, 250)])).toBe(2);
    // Two labs earlier, one lab in the sitting after a break: the last sitting decides.
    expect(labsAtOnce([run(0, 100), run(50, 150), run(1000, 1100), run(1105, 1200)])).toBe(1);
  });
});
