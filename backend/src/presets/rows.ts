// Reading a finished (or partly finished) campaign directory back as preset rows: results.json,
// with each run's summary.json attached so measures outside CampaignRow (σ, stability, recovery
// time, active sets, loaded RTT) can be read too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CampaignRow } from '../campaign/runCampaign.js';
import { readRunSummary } from '../report/load.js';
import type { RunSummary } from '../run/summary.js';
import type { PresetRow } from './measure.js';

export function readPresetRows(campaignDir: string, part?: string): PresetRow[] {
  const rows = JSON.parse(readFileSync(join(campaignDir, 'results.json'), 'utf8')) as CampaignRow[];
  return rows.map((r) => {
    const summary = readRunSummary<RunSummary>(join(campaignDir, 'runs', r.id));
    return { ...r, ...(part === undefined ? {} : { part }), summary };
  });
}
