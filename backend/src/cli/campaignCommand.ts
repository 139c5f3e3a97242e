import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CampaignError, expandCampaign, parseCampaignText } from '../campaign/expand.js';
import { saveProgress, syncedText, syncProgress } from '../campaign/progress.js';
import { runCampaign, runInLabs } from '../campaign/runCampaign.js';
import { type Command, table, UsageError } from './args.js';
import { CAMPAIGN_TABLE_HELP, campaignTable } from './campaignTable.js';
import { labsLeftUpNote, parseCampaignRunOptions, RESUME_OPTIONS_HELP } from './labsOption.js';
import { STOP_HELP, stopOnSignals } from './stopSignals.js';

export const campaignCommand: Command = {
  name: 'campaign',
  summary: 'run a sweep: a base spec × parameters × repetitions, resumable',
  usage: `usage: lfnlab campaign run FILE.yaml [--out DIR] [--lab NAME] [--labs N] [--retry-invalid N]
                          [--progress DIR] [--rerun-changed]
       lfnlab campaign plan FILE.yaml
       lfnlab campaign table SOURCE [--csv] [--with-invalid]

A campaign file holds a base spec, the spec fields to vary (cross product, less
the combinations 'exclude' names), repetitions, and the order (random with a
seed by default). 'run' writes one run directory per variant under DIR/runs/
(default: campaigns/NAME/), prints progress and an ETA, and collects every
summary into DIR/results.csv and results.json.
Run it again on the same DIR to resume: finished runs are never redone.
'plan' lists the variants in the order they will run.
${CAMPAIGN_TABLE_HELP}

  --labs N   keep N labs (NAME, NAME-2 … NAME-N) and give each the next variant
             as it becomes free (default: half the host's cores, as memory
             allows, at least 1)
  --progress DIR  keep each finished run's record (summary, spec, code; a few kB)
             in DIR as it ends, and first restore the runs DIR holds that the
             campaign directory lacks: commit DIR and a campaign longer than a
             sitting resumes on another machine or a fresh clone
${RESUME_OPTIONS_HELP}

${STOP_HELP}`,
  options: {
    out: { type: 'string' },
    lab: { type: 'string' },
    labs: { type: 'string' },
    'retry-invalid': { type: 'string' },
    'rerun-changed': { type: 'boolean' },
    progress: { type: 'string' },
    csv: { type: 'boolean' },
    'with-invalid': { type: 'boolean' },
  },
  async run(values, positionals) {
    const [action, file] = positionals;
    if (!file || (action !== 'run' && action !== 'plan' && action !== 'table'))
      throw new UsageError(this.usage);
    if (action === 'table') {
      try {
        console.log(
          campaignTable(file, { csv: values.csv === true, withInvalid: values['with-invalid'] === true }),
        );
        return 0;
      } catch (err) {
        console.error((err as Error).message);
        return 2;
      }
    }
    let campaign: ReturnType<typeof parseCampaignText>;
    try {
      campaign = parseCampaignText(readFileSync(file, 'utf8'));
      expandCampaign(campaign);
    } catch (err) {
      if (err instanceof CampaignError) {
        console.error(`${file}: ${err.message}`);
        return 2;
      }
      throw err;
    }
    if (action === 'plan') {
      const vs = expandCampaign(campaign);
      console.log(
        table(
          ['#', 'variant', 'run directory'],
          vs.map((v, i) => [i + 1, v.label, v.id]),
        ),
      );
      return 0;
    }
    const dir = resolve(typeof values.out === 'string' ? values.out : join('campaigns', campaign.name));
    const { labCount, labBase, retryInvalid, rerunChanged } = parseCampaignRunOptions(values, 'campaign run');
    const progress = typeof values.progress === 'string' ? resolve(values.progress) : null;
    const stopping = stopOnSignals();
    try {
      console.log(`lfnlab campaign ${campaign.name} → ${dir}${labCount > 1 ? ` on ${labCount} labs` : ''}`);
      const synced = progress ? syncedText(syncProgress(progress, dir), progress) : null;
      if (synced) console.log(synced);
      const out = await runCampaign({
        campaign,
        dir,
        signal: stopping.signal,
        drain: stopping.drain,
        retryInvalid,
        rerunChanged,
        runOne: runInLabs(labBase, labCount),
        afterRun: progress ? (id) => saveProgress(dir, progress, id) : undefined,
      });
      const rows = out.rows.map((r) => [
        r.label ?? r.id,
        r.status,
        r.verdict ?? '-',
        r.jainForward === null ? '-' : r.jainForward.toFixed(3),
        r.utilisationForward === null ? '-' : `${(100 * r.utilisationForward).toFixed(1)}%`,
        Object.values(r.goodputMbps)
          .map((g) => (g === null ? '-' : g.toFixed(1)))
          .join(' / '),
      ]);
      console.log(
        `\n${table(['variant', 'status', 'verdict', 'Jain fwd', 'util fwd', 'goodput Mbit/s per flow'], rows)}\n`,
      );
      console.log(`${out.ran} run now, ${out.skipped} already done; table in ${join(dir, 'results.csv')}`);
      console.log(`means and 95 % intervals per cell: lfnlab campaign table ${dir}`);
      const leftUp = labsLeftUpNote(labCount, out.ran, labBase);
      if (leftUp) console.log(leftUp);
      return stopping.stopped() ? 130 : out.rows.every((r) => r.status === 'completed') ? 0 : 1;
    } finally {
      stopping.release();
    }
  },
};
