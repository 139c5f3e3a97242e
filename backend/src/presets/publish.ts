// A preset's results as committed under presets/results/<name>/: the comparison (JSON and page)
// and what the runs were: how long, how many, in which lab clock, with which verdicts, and the
// wall time they took. The summary page over every preset is built from these files alone.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { INVALID_DIR } from '../campaign/runCampaign.js';
import type { RunSummaryFile } from '../report/load.js';
import type { PresetComparison } from './compare.js';
import type { Preset } from './load.js';

export interface RunsInfo {
  preset: string;
  /** How the runs were shortened: the preset's reproduction length, CI, N seconds, or full. */
  length: { kind: 'reproduction' | 'ci' | 'seconds' | 'full'; seconds: number | null; repeat: number };
  runs: { planned: number; completed: number; valid: number; suspect: number; invalid: number };
  /** Tries the lab could not carry that ran again (campaign --retry-invalid), kept under invalid/. */
  invalidTries: number;
  /** Runs per lab clock (dilated: instruction-driven; realtime). */
  clock: Record<string, number>;
  /** Wall time of the runs (spec written to summary written, summed), s. */
  wallS: number;
  /** Traffic time on the lab's clock, summed, s. */
  labS: number;
  /** When the newest run finished (ISO). */
  measuredAt: string | null;
}

interface PartRuns {
  planned: number;
  dirs: string[];
}

function partRuns(partDir: string): PartRuns {
  const plan = join(partDir, 'campaign.json');
  const planned = existsSync(plan)
    ? (JSON.parse(readFileSync(plan, 'utf8')) as { variants: unknown[] }).variants.length
    : 0;
  const runs = join(partDir, 'runs');
  const dirs = existsSync(runs) ? readdirSync(runs).map((d) => join(runs, d)) : [];
  return { planned, dirs };
}

/** What ran under a preset's campaign directory (one sub-directory per part). */
export function runsInfo(preset: Preset, dir: string, length: RunsInfo['length']): RunsInfo {
  const info: RunsInfo = {
    preset: preset.name,
    length,
    runs: { planned: 0, completed: 0, valid: 0, suspect: 0, invalid: 0 },
    invalidTries: 0,
    clock: {},
    wallS: 0,
    labS: 0,
    measuredAt: null,
  };
  let newest = 0;
  for (const part of preset.parts) {
    const p = partRuns(join(dir, part.name));
    info.runs.planned += p.planned;
    const aside = join(dir, part.name, INVALID_DIR);
    if (existsSync(aside)) info.invalidTries += readdirSync(aside).length;
    for (const d of p.dirs) {
      const f = join(d, 'summary.json');
      if (!existsSync(f)) continue;
      const s = JSON.parse(readFileSync(f, 'utf8')) as RunSummaryFile;
      if (s.status !== 'completed') continue;
      info.runs.completed++;
      if (s.verdict === 'valid' || s.verdict === 'suspect' || s.verdict === 'invalid') info.runs[s.verdict]++;
      const mode = s.clock?.mode ?? 'unknown';
      info.clock[mode] = (info.clock[mode] ?? 0) + 1;
      info.labS += s.clock?.guestS ?? 0;
      // The record's own times; the files' only for records older than them (a summary rewritten
      // later, e.g. with a corrected metric, keeps the times of its run).
      const spec = join(d, 'spec.json');
      const end = Date.parse(s.finishedAt ?? '') || statSync(f).mtimeMs;
      const start = Date.parse(s.startedAt ?? '') || (existsSync(spec) ? statSync(spec).mtimeMs : end);
      info.wallS += Math.max(0, (end - start) / 1000);
      newest = Math.max(newest, end);
    }
  }
  info.measuredAt = newest ? new Date(newest).toISOString() : null;
  return info;
}

/** Copy a compared preset run into `resultsDir/<name>/`: comparison.json, comparison.html, runs.json. */
export function publishPreset(preset: Preset, dir: string, resultsDir: string, info: RunsInfo): string {
  const out = join(resultsDir, preset.name);
  mkdirSync(out, { recursive: true });
  for (const f of ['comparison.json', 'comparison.html']) {
    const from = join(dir, f);
    if (!existsSync(from)) throw new Error(`${from} does not exist: compare the preset first`);
    copyFileSync(from, join(out, f));
  }
  writeFileSync(join(out, 'runs.json'), `${JSON.stringify(info, null, 2)}\n`);
  return out;
}

/**
 * What a targeted experiment found about a finding that failed (explanations.yaml beside the
 * results, written by hand after the experiment): the likely cause, the experiment, the answer.
 */
export const ExplanationSchema = z.strictObject({
  finding: z.string().min(1),
  hypothesis: z.string().min(10),
  /** The command or campaign that tested it. */
  experiment: z.string().min(5),
  answer: z.string().min(10),
});
export type Explanation = z.output<typeof ExplanationSchema>;

/** The targeted experiments written beside a preset's published results (none when there is no file). */
export function readExplanations(dir: string): Explanation[] {
  const f = join(dir, 'explanations.yaml');
  if (!existsSync(f)) return [];
  const r = z.array(ExplanationSchema).safeParse(parseYaml(readFileSync(f, 'utf8')));
  if (!r.success)
    throw new Error(
      `${f}: ${r.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ')}`,
    );
  return r.data;
}

export interface PublishedPreset {
  comparison: PresetComparison;
  runs: RunsInfo;
  explanations: Explanation[];
}

/** Every published preset under `resultsDir` (a directory with comparison.json and runs.json). */
export function readPublished(resultsDir: string): PublishedPreset[] {
  if (!existsSync(resultsDir)) return [];
  return readdirSync(resultsDir)
    .filter(
      (d) =>
        existsSync(join(resultsDir, d, 'comparison.json')) && existsSync(join(resultsDir, d, 'runs.json')),
    )
    .sort()
    .map((d) => ({
      comparison: JSON.parse(
        readFileSync(join(resultsDir, d, 'comparison.json'), 'utf8'),
      ) as PresetComparison,
      runs: JSON.parse(readFileSync(join(resultsDir, d, 'runs.json'), 'utf8')) as RunsInfo,
      explanations: readExplanations(join(resultsDir, d)),
    }));
}
