// `lfnlab rejudge`: judge recorded runs again with the checks as they are now, and say what moved.
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { type CampaignRow, toCsv } from '../campaign/runCampaign.js';
import { findRunDirs, readJson } from '../report/load.js';
import { codeVersion } from '../run/codeVersion.js';
import { type Rejudged, rejudgeRun } from '../run/rejudge.js';
import type { RejudgeNote } from '../run/summary.js';
import { type Command, table, UsageError } from './args.js';

const statusText = (c: Rejudged['changed'][number]['before']) => (c ? c.status : 'absent');

/** summary.json with the new verdict, the old one noted; the campaign's results row follows. */
function writeRejudged(r: Rejudged, by: string): void {
  if (!r.after) return;
  const file = join(r.dir, 'summary.json');
  const note: RejudgeNote = {
    at: new Date().toISOString(),
    by,
    previousVerdict: r.summary.verdict,
    changed: r.changed.map((c) => ({
      id: c.id,
      before: c.before?.status ?? null,
      after: c.after?.status ?? null,
    })),
  };
  const limits = r.limits;
  const summary = {
    ...r.summary,
    flows: limits
      ? r.summary.flows.map((f) => ({ ...f, limitedBy: limits[f.name] ?? null }))
      : r.summary.flows,
    verdict: r.after.verdict,
    fidelity: r.after,
    rejudged: [...(r.summary.rejudged ?? []), note],
  };
  writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
  // A campaign's runs/<id>/: its results.json and .csv carry the verdict too.
  const campaign = dirname(dirname(r.dir));
  const resultsFile = join(campaign, 'results.json');
  const rows = readJson<CampaignRow[]>(resultsFile);
  const row = rows?.find((x) => join(campaign, 'runs', x.id) === r.dir);
  if (rows && row) {
    row.verdict = r.after.verdict;
    writeFileSync(resultsFile, `${JSON.stringify(rows, null, 2)}\n`);
    writeFileSync(join(campaign, 'results.csv'), toCsv(rows));
  }
}

export const rejudgeCommand: Command = {
  name: 'rejudge',
  summary: 'judge recorded runs again with the current fidelity checks; show what changed',
  usage: `usage: lfnlab rejudge DIR [DIR ...] [--write] [--all]

Recomputes each run's fidelity verdict from its own directory (spec, plan, counter snapshots,
idle RTT, samples, the packet-timing capture, sampler counters) with the checks of this version,
and prints the runs whose verdict or checks changed. DIR is a run, a campaign, or any folder of
them. What limited each flow is kept as recorded when the run was summarised.

  --write   store the new verdict in summary.json (the old one is noted under "rejudged")
            and in the campaign's results.json and results.csv; refresh InfluxDB afterwards
            with 'lfnlab reindex DIR', and a preset's published results with
            'lfnlab preset publish NAME'
  --all     list every run, also those whose verdict and checks are unchanged

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
    const rows: string[][] = [];
    const moved = { verdict: 0, checks: 0, same: 0, unjudged: 0 };
    for (const [i, dir] of dirs.entries()) {
      const name = relative(process.cwd(), dir) || dir;
      if (!existsSync(join(dir, 'summary.json'))) {
        moved.unjudged++;
        rows.push([name, '-', '-', 'not judged again: the run has not finished (no summary.json)']);
        continue;
      }
      let r: Rejudged;
      try {
        r = rejudgeRun(dir);
      } catch (err) {
        moved.unjudged++;
        console.error(`[${i + 1}/${dirs.length}] ${dir}: ${(err as Error).message}`);
        continue;
      }
      if (!r.after) {
        moved.unjudged++;
        rows.push([name, r.before?.verdict ?? '-', '-', `not judged again: ${r.why}`]);
        continue;
      }
      const verdictMoved = r.before?.verdict !== r.after.verdict;
      if (verdictMoved) moved.verdict++;
      else if (r.changed.length) moved.checks++;
      else moved.same++;
      if (values.write && r.changed.length) writeRejudged(r, by);
      if (r.changed.length || values.all)
        rows.push([
          name,
          r.before?.verdict ?? '-',
          r.after.verdict,
          r.changed.map((c) => `${c.id} ${statusText(c.before)}→${statusText(c.after)}`).join('; ') ||
            'unchanged',
        ]);
    }
    if (rows.length) console.log(table(['run', 'was', 'now', 'checks that changed'], rows));
    console.log(
      `${dirs.length} run${dirs.length === 1 ? '' : 's'} judged again by ${by}: ${moved.verdict} changed verdict, ${moved.checks} changed checks only, ${moved.same} unchanged${moved.unjudged ? `, ${moved.unjudged} could not be judged` : ''}${values.write ? '; changes written' : rows.length ? '; nothing written (add --write)' : ''}`,
    );
    return moved.unjudged ? 1 : 0;
  },
};
