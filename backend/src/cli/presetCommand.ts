// `lfnlab preset`: the seed papers' experiments. list them, run one (every part as a resumable
// campaign, full length or shortened), and compare what ran with the paper's published numbers.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SpecSchema } from '@lfnlab/emulator';
import { expandCampaign } from '../campaign/expand.js';
import { saveProgress, syncedText, syncProgress } from '../campaign/progress.js';
import { rejudgeDirs, tallyText } from '../campaign/rejudgeRuns.js';
import { runCampaign, runInLabs } from '../campaign/runCampaign.js';
import { campaignsCost, formatCost, formatWallS, type PresetCost } from '../presets/cost.js';
import {
  comparePreset,
  formatComparison,
  hasPresetRows,
  loadPresets,
  type Preset,
  type PresetRow,
  paperLabel,
  presetForCi,
  presetForReproduction,
  readPresetRows,
  shortenForCi,
} from '../presets/index.js';
import { pendingPresets } from '../presets/pending.js';
import {
  publishPreset,
  type RunsInfo,
  readPublished,
  regroupPublished,
  runsInfo,
} from '../presets/publish.js';
import { renderPresetComparison } from '../report/presetReport.js';
import { renderResultsSummaryHtml, renderResultsSummaryMarkdown } from '../report/presetSummary.js';
import { codeVersion } from '../run/codeVersion.js';
import { type Command, table, UsageError } from './args.js';
import { labsLeftUpNote, parseCampaignRunOptions, RESUME_OPTIONS_HELP } from './labsOption.js';
import { formatPresetShow } from './presetShow.js';
import { STOP_HELP, stopOnSignals } from './stopSignals.js';

const seconds = (ms: number) => formatWallS(ms / 1000);
const durationMs = (spec: unknown) => {
  const r = SpecSchema.safeParse(spec);
  return r.success ? r.data.duration : 0;
};

function findPreset(name: string | undefined, usage: string): Preset {
  if (!name) throw new UsageError(`a preset name is required\n\n${usage}`);
  const all = loadPresets();
  const p = all.find((x) => x.name === name);
  if (!p)
    throw new UsageError(`no preset '${name}'; there are: ${all.map((x) => x.name).join(', ')}\n\n${usage}`);
  return p;
}

type Values = Record<string, string | boolean | undefined>;

/** The campaigns a run of the preset uses: as written, shortened to N s, as its CI block or its reproduction length says. */
function campaignsOf(p: Preset, values: Values) {
  if ([values.ci, values.reproduce, typeof values.seconds === 'string'].filter(Boolean).length > 1)
    throw new UsageError('choose one of --ci, --reproduce and --seconds N');
  if (values.ci) return presetForCi(p);
  if (values.reproduce) return presetForReproduction(p);
  if (typeof values.seconds === 'string') {
    const s = Number(values.seconds);
    if (!(s >= 2 && s <= 86_400))
      throw new UsageError(`--seconds must be from 2 to 86400 (got ${values.seconds})`);
    return p.parts.map((part) => ({ part: part.name, campaign: shortenForCi(part.campaign, s) }));
  }
  return p.parts.map((part) => ({ part: part.name, campaign: part.campaign }));
}

/** `12 × 200 s, ~57 min`; under way: `36 × 60 s, 9 done, ~1.9 h left`; `… all done`. */
/** `published`: the runs behind the results in presets/results, when they are at this length. */
export function reproductionCell(c: PresetCost, seconds: number, published?: RunsInfo): string {
  const head = `${c.runs} × ${seconds} s`;
  // A fresh clone has no campaign directory: what is published says the reproduction was made.
  if (c.done === 0 && published)
    return `${head}, published (${published.runs.completed} of ${published.runs.planned} runs)`;
  if (c.done === 0) return `${head}, ~${formatWallS(c.wallS)}`;
  if (c.done === c.runs)
    return published
      ? `${head}, all done, published (${published.runs.completed} of ${published.runs.planned} runs)`
      : `${head}, all done`;
  return `${head}, ${c.done} done, ~${formatWallS(c.wallS)} left`;
}

/** Where published results live: --results DIR, else presets/results. */
const resultsDirOf = (values: Values) =>
  resolve(typeof values.results === 'string' ? values.results : RESULTS_DIR);

const defaultDir = (p: Preset, values: Values) =>
  resolve(
    typeof values.out === 'string'
      ? values.out
      : join(
          'campaigns',
          `preset-${p.name}${values.ci ? '-ci' : values.reproduce ? '-repro' : typeof values.seconds === 'string' ? `-${values.seconds}s` : ''}`,
        ),
  );

function lengthOf(p: Preset, values: Values): RunsInfo['length'] {
  if (values.ci) return { kind: 'ci', seconds: p.meta.ci.seconds, repeat: 1 };
  if (values.reproduce) {
    const repeat = p.meta.reproduce?.repeat ?? 3;
    const most = Math.max(repeat, ...(p.meta.reproduce?.more ?? []).map((m) => m.repeat));
    return {
      kind: 'reproduction',
      seconds: p.meta.reproduce?.seconds ?? null,
      repeat,
      ...(most > repeat ? { mostRepeat: most } : {}),
    };
  }
  if (typeof values.seconds === 'string')
    return { kind: 'seconds', seconds: Number(values.seconds), repeat: 1 };
  return { kind: 'full', seconds: null, repeat: Math.max(...p.parts.map((x) => x.campaign.repeat)) };
}

const RESULTS_DIR = 'presets/results';

/** Rewrite the summary of everything published (index.html and README.md). */
function writeSummary(resultsDir: string): string {
  const all = readPublished(resultsDir);
  const pending = pendingPresets(loadPresets(), new Set(all.map((p) => p.comparison.preset)), resultsDir);
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'index.html'), renderResultsSummaryHtml(all, pending));
  writeFileSync(join(resultsDir, 'README.md'), renderResultsSummaryMarkdown(all, pending));
  return join(resultsDir, 'index.html');
}

/** Compare what the part directories hold; write comparison.json and comparison.html beside them. */
function compareDir(p: Preset, dir: string, values: Values): { text: string; html: string } {
  const rows: PresetRow[] = p.parts.flatMap((part) =>
    hasPresetRows(join(dir, part.name)) ? readPresetRows(join(dir, part.name), part.name) : [],
  );
  const c = comparePreset(p, rows, lengthOf(p, values).seconds);
  writeFileSync(join(dir, 'comparison.json'), `${JSON.stringify(c, null, 2)}\n`);
  const html = join(dir, 'comparison.html');
  writeFileSync(
    html,
    renderPresetComparison(c, { campaignLinks: p.parts.map((part) => `${part.name}/results.csv`) }),
  );
  return { text: formatComparison(c), html };
}

export const presetCommand: Command = {
  name: 'preset',
  summary: "the seed papers' experiments: list, run, compare with the published numbers",
  usage: `usage: lfnlab preset list
       lfnlab preset show NAME
       lfnlab preset run NAME [--ci | --reproduce | --seconds N] [--out DIR] [--lab NAME] [--labs N]
                         [--retry-invalid N] [--progress DIR] [--rerun-changed]
       lfnlab preset compare NAME [--ci | --reproduce | --seconds N] [--out DIR]
       lfnlab preset publish NAME [--ci | --reproduce | --seconds N] [--out DIR] [--results DIR]
                             [--rejudge [--progress DIR]]
       lfnlab preset summary [--results DIR]
       lfnlab preset regroup [NAME] [--results DIR]

list     every preset: paper, parts, runs, full length, reproduction length
         (runs and expected wall time) and the CI length
show     the paper, the scaling rule and the dimensionless groups paper against
         ours (BDP in packets, buffer/BDP, each stack constant counted in
         packets over the window, time constants over the RTT or congestion
         epoch), whether each is preserved, and what the ones that are not
         likely do to the findings
run      prints the runs and the expected wall time, then runs each part of
         the preset as a campaign under DIR/PART (default
         campaigns/preset-NAME[-ci|-repro|-Ns]/), resumable like
         'lfnlab campaign run', then compares (as below)
compare  puts the paper's published numbers (scaled by the preset's rule) beside
         ours and judges each finding holds / fails / inconclusive by a
         stated test (95 % CI: bootstrap, widened to t at few runs; Kendall's
         tau for orderings) with
         the runs per cell (n; fewer than 3 is inconclusive; a variant the lab
         could not carry is left out of averages and named); prints it and
         writes DIR/comparison.json and DIR/comparison.html. A reproduction
         still running (or stopped) is compared on the runs done so far
publish  compares, then copies the comparison and what the runs were (length,
         runs and verdicts, lab clock, wall time) to RESULTS/NAME/ (default
         presets/results/) and rewrites the summary RESULTS/index.html and
         RESULTS/README.md over every published preset; with --rejudge it
         first judges every run again with this version's checks (as
         'lfnlab rejudge --write'), so runs made across code changes carry
         verdicts of one version, and refreshes the records kept in
         --progress DIR
summary  rewrites only that summary: the published presets, then those not
         reproduced yet with the runs kept in RESULTS/NAME/progress and the
         wall time left
regroup  recomputes the dimensionless groups of published comparisons (NAME,
         or all) at the length their runs had, with this version's scaling and
         caveats, rewrites their comparison.json and .html, then the summary;
         the findings are left as published (they need the runs)

  --ci          shorten every run as the preset's 'ci' block says (seconds, values)
  --reproduce   the preset's reproduction length ('reproduce' block): every value,
                at least 3 seeded repetitions per variant
  --seconds N   shorten every run to N s (all parameter values kept)
  --labs N      run on N labs at once (see 'lfnlab campaign --help')
  --progress DIR
                keep each finished run's record (summary, spec, code; a few kB) in
                DIR/PART as it ends, and first restore the runs DIR holds that
                the campaign directory lacks: commit DIR and a reproduction
                longer than a sitting resumes on another machine or a fresh clone
${RESUME_OPTIONS_HELP}

${STOP_HELP}`,
  options: {
    ci: { type: 'boolean' },
    reproduce: { type: 'boolean' },
    results: { type: 'string' },
    seconds: { type: 'string' },
    out: { type: 'string' },
    lab: { type: 'string' },
    labs: { type: 'string' },
    'retry-invalid': { type: 'string' },
    'rerun-changed': { type: 'boolean' },
    progress: { type: 'string' },
    rejudge: { type: 'boolean' },
  },
  async run(values, positionals) {
    const [action, name] = positionals;
    if (action === 'list') {
      const results = resultsDirOf(values);
      const published = new Map(
        (existsSync(results) ? readPublished(results) : [])
          .filter((x) => x.runs.length.kind === 'reproduction')
          .map((x) => [x.comparison.preset, x.runs]),
      );
      const rows = loadPresets().map((p) => {
        const runs = p.parts.reduce((n, part) => n + expandCampaign(part.campaign).length, 0);
        const fullMs = p.parts.reduce(
          (n, part) => n + expandCampaign(part.campaign).reduce((m, v) => m + durationMs(v.spec), 0),
          0,
        );
        const ci = presetForCi(p);
        const ciRuns = ci.reduce((n, c) => n + expandCampaign(c.campaign).length, 0);
        // What is left of a reproduction already under way, at the pace its runs so far took.
        const repro = p.meta.reproduce
          ? campaignsCost(presetForReproduction(p), undefined, defaultDir(p, { reproduce: true }))
          : null;
        return [
          p.name,
          `seed ${p.meta.paper.id}`,
          p.parts.length,
          runs,
          seconds(fullMs),
          repro ? reproductionCell(repro, p.meta.reproduce?.seconds ?? 0, published.get(p.name)) : '-',
          `${ciRuns} × ${p.meta.ci.seconds} s`,
          p.meta.published.length,
        ];
      });
      console.log(
        table(['preset', 'paper', 'parts', 'runs', 'full length', 'reproduction', 'CI', 'published'], rows),
      );
      return 0;
    }
    if (action === 'summary') {
      if (name)
        throw new UsageError(`'preset summary' takes no preset name (got '${name}')\n\n${this.usage}`);
      const results = resultsDirOf(values);
      console.log(`summary: ${writeSummary(results)}`);
      return 0;
    }
    if (action === 'regroup') {
      const results = resultsDirOf(values);
      const names = name
        ? [findPreset(name, this.usage).name]
        : readPublished(results).map((p) => p.comparison.preset);
      for (const n of names) {
        const preset = findPreset(n, this.usage);
        const out = join(results, n);
        if (!existsSync(join(out, 'runs.json'))) {
          console.error(`lfnlab preset regroup: ${n} is not published in ${results}`);
          return 2;
        }
        const c = regroupPublished(preset, out);
        if (c) writeFileSync(join(out, 'comparison.html'), renderPresetComparison(c));
        console.log(`${n}: ${c ? 'groups recomputed' : 'groups unchanged'}`);
      }
      console.log(`summary: ${writeSummary(results)}`);
      return 0;
    }
    if (!['run', 'compare', 'publish', 'show'].includes(action ?? '')) throw new UsageError(this.usage);
    const preset = findPreset(name, this.usage);
    if (action === 'show') {
      console.log(formatPresetShow(preset));
      return 0;
    }
    const dir = defaultDir(preset, values);
    if (action === 'compare') {
      if (!existsSync(dir)) {
        console.error(
          `lfnlab preset compare: ${dir} does not exist; run 'lfnlab preset run ${preset.name}' first`,
        );
        return 2;
      }
      const out = compareDir(preset, dir, values);
      console.log(`${out.text}\n${out.html}`);
      return 0;
    }
    if (action === 'publish') {
      if (!existsSync(dir)) {
        console.error(
          `lfnlab preset publish: ${dir} does not exist; run 'lfnlab preset run ${preset.name}' first`,
        );
        return 2;
      }
      if (values.rejudge) {
        const by = codeVersion();
        // Every run of every part: one restored from kept records alone (summary and spec) cannot
        // be judged again and is counted as such, not passed over.
        const runDirs = preset.parts.flatMap((part) => {
          const runs = join(dir, part.name, 'runs');
          return existsSync(runs) ? readdirSync(runs).map((id) => join(runs, id)) : [];
        });
        const { tally } = rejudgeDirs(runDirs, { write: true, by });
        console.log(`${preset.name}: runs judged again by ${by}: ${tallyText(tally)}`);
        const progress = typeof values.progress === 'string' ? resolve(values.progress) : null;
        if (progress)
          for (const part of preset.parts) {
            const partDir = join(dir, part.name);
            const runs = join(partDir, 'runs');
            if (existsSync(runs))
              for (const id of readdirSync(runs)) saveProgress(partDir, join(progress, part.name), id);
          }
      }
      compareDir(preset, dir, values);
      const results = resultsDirOf(values);
      const info = runsInfo(preset, dir, lengthOf(preset, values));
      const out = publishPreset(preset, dir, results, info);
      console.log(
        `${preset.name}: ${info.runs.completed} of ${info.runs.planned} runs published to ${out}\nsummary: ${writeSummary(results)}`,
      );
      return 0;
    }

    console.log(`${preset.name}: ${paperLabel(preset)} → ${dir}`);
    console.log(`scaling: ${preset.meta.scaling.rule}`);
    const campaigns = campaignsOf(preset, values);
    const { labCount, labBase, retryInvalid, rerunChanged } = parseCampaignRunOptions(values, 'preset run');
    const progress = typeof values.progress === 'string' ? resolve(values.progress) : null;
    if (progress) {
      const all = { runs: 0, invalidTries: 0, kept: 0 };
      for (const { part } of campaigns) {
        const r = syncProgress(join(progress, part), join(dir, part));
        all.runs += r.runs;
        all.invalidTries += r.invalidTries;
        all.kept += r.kept;
      }
      const synced = syncedText(all, progress);
      if (synced) console.log(synced);
    }
    const cost = campaignsCost(campaigns, undefined, dir);
    console.log(
      `cost: ${formatCost(cost)}${labCount > 1 ? `; on ${labCount} labs at best ${formatWallS(cost.wallS / labCount)}` : ''}; resumable (Ctrl-C or SIGUSR2, then run it again)`,
    );
    const stopping = stopOnSignals();
    let allDone = true;
    let ran = 0;
    try {
      for (const { part, campaign } of campaigns) {
        if (stopping.stopped()) break;
        const partDir = join(dir, part);
        mkdirSync(partDir, { recursive: true });
        console.log(`\n== ${part}: ${expandCampaign(campaign).length} runs`);
        const out = await runCampaign({
          campaign,
          dir: partDir,
          signal: stopping.signal,
          drain: stopping.drain,
          retryInvalid,
          rerunChanged,
          runOne: runInLabs(labBase, labCount),
          afterRun: progress ? (id) => saveProgress(partDir, join(progress, part), id) : undefined,
        });
        allDone &&= out.rows.every((r) => r.status === 'completed');
        ran += out.ran;
      }
    } finally {
      stopping.release();
    }
    const out = compareDir(preset, dir, values);
    console.log(`\n${out.text}\n${out.html}`);
    const leftUp = labsLeftUpNote(labCount, ran, labBase);
    if (leftUp) console.log(leftUp);
    return stopping.stopped() ? 130 : allDone ? 0 : 1;
  },
};
