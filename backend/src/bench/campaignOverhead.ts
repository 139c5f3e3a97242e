// The bench's campaign-overhead case: a short campaign whose runs share one topology, timed as a
// whole. What a run costs beyond its traffic phase (reset, set-up, calibration, idle RTT, snapshots,
// tear-down) is the campaign's wall time less the traffic phases' wall time, per run.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Campaign } from '../campaign/expand.js';
import { type RunOne, runCampaign } from '../campaign/runCampaign.js';
import type { RunSummary } from '../run/summary.js';

export interface CampaignOverhead {
  runs: number;
  /** Each run's configured duration, lab s, summed. */
  sumDurationS: number;
  /** Each run's traffic phase, wall s (summary.clock.wallS), summed. */
  sumTrafficWallS: number;
  wallS: number;
  /** Campaign wall time over the sum of run durations. */
  wallOverDurations: number;
  /** (wall − Σ traffic wall) / runs: the mean cost of a run outside its traffic, s. */
  meanBetweenS: number;
  /**
   * From the second run on: the wall time from one run's end to the next one's end less the
   * next one's traffic phase, averaged: what each run after the first costs besides its traffic, s.
   */
  meanBetweenAfterFirstS: number | null;
  verdicts: (string | null)[];
  /** How many runs reused the previous run's dumbbell and calibration (0 before reuse existed). */
  reused: number;
}

/** Two stacks × `repeat` repetitions of a `seconds`-long run on one two-path dumbbell, on `clock`. */
export function overheadCampaign(seconds: number, repeat: number, clock: 'dilated' | 'realtime'): Campaign {
  return {
    name: 'bench-overhead',
    base: {
      name: 'overhead',
      duration: `${seconds}s`,
      sampleHz: 10,
      clock,
      paths: {
        main: { rtt: '40ms', rate: '20Mbit', buffer: '1bdp' },
        second: { rtt: '80ms', rate: '10Mbit', buffer: '1bdp' },
      },
      flows: [
        { stack: 'reno', path: 'main' },
        { stack: 'reno', path: 'second' },
      ],
    },
    vary: { 'flows[0].stack': ['reno', 'cubic'] },
    repeat,
    order: 'sequential',
    seed: 1,
  } as Campaign;
}

export async function campaignOverhead(o: {
  seconds: number;
  repeat: number;
  clock: 'dilated' | 'realtime';
  /** One lab, or a pool (the lab-pool case: N = 1 against N = 2). */
  runOne: RunOne | readonly RunOne[];
  log: (line: string) => void;
}): Promise<CampaignOverhead> {
  const dir = mkdtempSync(join(tmpdir(), 'lfnlab-bench-overhead-'));
  const summaries: RunSummary[] = [];
  const ends: number[] = [];
  const timed = (lab: RunOne): RunOne => {
    const runOne: RunOne = async (spec, runDir, signal) => {
      const s = await lab(spec, runDir, signal);
      summaries.push(s);
      ends.push(Date.now());
      return s;
    };
    runOne.close = lab.close;
    return runOne;
  };
  const labs = Array.isArray(o.runOne) ? (o.runOne as readonly RunOne[]) : [o.runOne as RunOne];
  const t = Date.now();
  await runCampaign({
    campaign: overheadCampaign(o.seconds, o.repeat, o.clock),
    dir,
    runOne: labs.map(timed),
    log: o.log,
  });
  const wallS = (Date.now() - t) / 1000;
  const sumDurationS = summaries.length * o.seconds;
  const sumTrafficWallS = summaries.reduce((a, s) => a + (s.clock?.wallS ?? 0), 0);
  const gaps = ends
    .slice(1)
    .map((end, i) => (end - (ends[i] as number)) / 1000 - (summaries[i + 1]?.clock?.wallS ?? 0));
  return {
    meanBetweenAfterFirstS: gaps.length ? gaps.reduce((a, b) => a + b, 0) / gaps.length : null,
    runs: summaries.length,
    sumDurationS,
    sumTrafficWallS,
    wallS,
    wallOverDurations: wallS / sumDurationS,
    meanBetweenS: (wallS - sumTrafficWallS) / Math.max(1, summaries.length),
    verdicts: summaries.map((s) => s.verdict),
    reused: summaries.filter((s) => s.reuse).length,
  };
}
