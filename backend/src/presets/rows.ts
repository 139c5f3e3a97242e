// Reading a campaign directory back as preset rows, whether its campaign finished, was stopped or
// is still running: one row per variant of its plan (campaign.json) from that run's summary.json,
// as the campaign builds results.json when it ends, so `preset compare` judges the runs done so far.
// A directory without a plan (older ones) is read from its results.json. Each row carries its
// summary so measures outside CampaignRow (σ, stability, recovery time, active sets, loaded RTT)
// can be read too.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Variant } from '../campaign/expand.js';
import { type CampaignRow, rowOf } from '../campaign/runCampaign.js';
import { readRunSummary } from '../report/load.js';
import type { RunSummary } from '../run/summary.js';
import type { PresetRow } from './measure.js';

/** Whether a directory holds a campaign's rows to read (a plan, or the results of an older one). */
export const hasPresetRows = (campaignDir: string) =>
  existsSync(join(campaignDir, 'campaign.json')) || existsSync(join(campaignDir, 'results.json'));

export function readPresetRows(campaignDir: string, part?: string): PresetRow[] {
  const summaryOf = (id: string) => readRunSummary<RunSummary>(join(campaignDir, 'runs', id));
  const planFile = join(campaignDir, 'campaign.json');
  const rows: CampaignRow[] = existsSync(planFile)
    ? (JSON.parse(readFileSync(planFile, 'utf8')) as { variants: Variant[] }).variants.map((v) =>
        rowOf(v, summaryOf(v.id)),
      )
    : (JSON.parse(readFileSync(join(campaignDir, 'results.json'), 'utf8')) as CampaignRow[]);
  return rows.map((r) => ({ ...r, ...(part === undefined ? {} : { part }), summary: summaryOf(r.id) }));
}
