// The bench's campaign sections (`--only campaign,labpool`): what a campaign of short runs costs
// outside its traffic, and what a second lab on this host's cores buys.
import { runInLab, runInLabs } from '../campaign/runCampaign.js';
import { table } from '../cli/args.js';
import { type CampaignOverhead, campaignOverhead } from './campaignOverhead.js';
import type { BenchContext } from './clockSections.js';
import type { ClockMode } from './clocks.js';

export type CampaignBenchContext = Omit<BenchContext, 'run'> & { labName: string };

/** A log line writer that stamps each line with the seconds since the section began. */
function sectionLog() {
  const t0 = Date.now();
  return (prefix = '') =>
    (l: string) =>
      process.stderr.write(`${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s ${prefix}${l}\n`);
}

async function overheadSection(c: CampaignBenchContext) {
  const seconds = 3;
  const repeat = c.quick ? 2 : 3;
  const log = sectionLog();
  const rows: (CampaignOverhead & { clock: ClockMode })[] = [];
  // Dilated first (the default under TCG); the realtime clock pings and waits in wall time.
  for (const clock of ['dilated', 'realtime'] as const) {
    const r = await campaignOverhead({
      seconds,
      repeat,
      clock,
      runOne: runInLab(c.labName, log()),
      log: log(),
    });
    rows.push({ ...r, clock });
  }
  c.results.campaignOverhead = rows;
  c.section(
    `Campaign overhead (runs of ${seconds} s, two flows on two paths, one topology)`,
    table(
      [
        'clock',
        'runs',
        'wall s',
        'Σ durations s',
        'wall / Σ durations',
        'Σ traffic wall s',
        's outside traffic per run',
        's between runs (2nd on)',
        'reused',
        'verdicts',
      ],
      rows.map((r) => [
        r.clock,
        r.runs,
        r.wallS.toFixed(1),
        r.sumDurationS,
        r.wallOverDurations.toFixed(2),
        r.sumTrafficWallS.toFixed(1),
        r.meanBetweenS.toFixed(1),
        r.meanBetweenAfterFirstS === null ? '-' : r.meanBetweenAfterFirstS.toFixed(1),
        r.reused,
        r.verdicts.join(' '),
      ]),
    ),
  );
}

async function labPoolSection(c: CampaignBenchContext) {
  // Two labs on this host's cores: the campaign's wall time against one lab, and whether the
  // verdicts say the labs held flows back (two 1-vCPU labs beside the host side on 2 cores).
  const seconds = 5;
  const repeat = c.quick ? 2 : 3;
  const log = sectionLog();
  const rows: (CampaignOverhead & { labs: number })[] = [];
  for (const n of [1, 2]) {
    const r = await campaignOverhead({
      seconds,
      repeat,
      clock: 'dilated',
      runOne: runInLabs(c.labName, n, log()),
      log: log(`[N=${n}] `),
    });
    rows.push({ ...r, labs: n });
  }
  c.results.labPool = rows;
  const one = rows[0]?.wallS ?? Number.NaN;
  c.section(
    `Lab pool (dilated clock, runs of ${seconds} s, two flows on two paths)`,
    table(
      ['labs', 'runs', 'wall s', 'speed-up vs 1 lab', 'wall / Σ durations', 'verdicts'],
      rows.map((r) => [
        r.labs,
        r.runs,
        r.wallS.toFixed(1),
        (one / r.wallS).toFixed(2),
        r.wallOverDurations.toFixed(2),
        r.verdicts.join(' '),
      ]),
    ),
  );
}

export async function campaignSections(c: CampaignBenchContext) {
  if (c.want('campaign')) await overheadSection(c);
  if (c.want('labpool')) await labPoolSection(c);
}
