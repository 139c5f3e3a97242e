// `lfnlab rejudge`: judge recorded runs again with the checks as they are now, and say what moved.
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { movedMetricsText } from '@lfnlab/metrics';
import { rejudgeDirs, tallyText } from '../campaign/rejudgeRuns.js';
import { findRunDirs } from '../report/load.js';
import { codeVersion } from '../run/codeVersion.js';
import type { Rejudged } from '../run/rejudge.js';
import { type Command, table, UsageError } from './args.js';

const statusText = (c: Rejudged['changed'][number]['before']) => (c ? c.status : 'absent');

export const rejudgeCommand: Command = {
  name: 'rejudge',
  summary: 'judge recorded runs again with the current fidelity checks and metrics; show what changed',
  usage: `usage: lfnlab rejudge DIR [DIR ...] [--write] [--all]

Recomputes each run's fidelity verdict from its own directory (spec, plan, counter snapshots,
idle RTT, samples, the packet-timing capture, sampler counters) with the checks of this version,
and its metrics from its samples with this version's definitions (so a metric added since
reaches runs already made). Prints the runs whose verdict, checks or metrics changed. DIR is a
run, a campaign, or any folder of them. What limited each flow is decided again too: it leans
on what the link checks proved.

  --write   store the new verdict and metrics in summary.json (the old verdict, and which
            metrics moved, are noted under "rejudged"; a run whose checks did not move is
            noted as judged again, unchanged) and in the campaign's results.json and
            results.csv; refresh InfluxDB afterwards with 'lfnlab reindex DIR', and a
            preset's published results with 'lfnlab preset publish NAME' (or judge and
            publish at once: --rejudge there)
  --all     list every run, also those whose verdict, checks and metrics are unchanged

Exit status: 0 when every run could be judged again, 1 when a record lacked what the checks need.`,
  options: { write: { type: 'boolean' }, all: { type: 'boolean' } },
  async run(values, positionals) {
    if (positionals.length === 0)
      throw new UsageError(`a run or campaign directory is required\n\n${this.usage}`);
    const missing = positionals.filter((p) => !existsSync(p));
    if (missing.length) throw new UsageError(`no such directory: ${missing.join(', ')}`);
    const dirs = positionals.flatMap((p) => findRunDirs(p));
    if (dirs.length === 0) {
      console.error('lfnlab rejudge: no run directories (with events.jsonl) found');
      return 2;
    }
    const by = codeVersion();
    const { outcomes, tally } = rejudgeDirs(dirs, { write: Boolean(values.write), by });
    const rows: string[][] = [];
    for (const { dir, result: r, why } of outcomes) {
      const name = relative(process.cwd(), dir) || dir;
      if (why !== null || !r?.after) {
        rows.push([name, r?.before?.verdict ?? '-', '-', `not judged again: ${why}`, '-']);
        continue;
      }
      if (r.changed.length || r.metricsChanged?.length || values.all)
        rows.push([
          name,
          r.before?.verdict ?? '-',
          r.after.verdict,
          r.changed.map((c) => `${c.id} ${statusText(c.before)}→${statusText(c.after)}`).join('; ') ||
            'unchanged',
          r.metricsChanged?.length ? movedMetricsText(r.metricsChanged) : '-',
        ]);
    }
    if (rows.length)
      console.log(table(['run', 'was', 'now', 'checks that changed', 'metrics that moved'], rows));
    console.log(
      `${dirs.length} run${dirs.length === 1 ? '' : 's'} judged again by ${by}: ${tallyText(tally)}${values.write ? '; changes written' : rows.length ? '; nothing written (add --write)' : ''}`,
    );
    return tally.unjudged ? 1 : 0;
  },
};
