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
import { ranCode } from '../campaign/progress.js';
import { INVALID_DIR } from '../campaign/runCampaign.js';
import type { RunSummaryFile } from '../report/load.js';
import { codeVersion } from '../run/codeVersion.js';
import type { Check } from '../run/fidelity.js';
import type { LimitKind } from '../run/limitedBy.js';
import { type PresetComparison, scalingReport } from './compare.js';
import type { Preset } from './load.js';

export interface RunsInfo {
  preset: string;
  /** How the runs were shortened: the preset's reproduction length, CI, N seconds, or full. */
  length: {
    kind: 'reproduction' | 'ci' | 'seconds' | 'full';
    seconds: number | null;
    repeat: number;
    /** The most repetitions any cell had, where the meta's `reproduce.more` asked for more. */
    mostRepeat?: number;
  };
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
  /**
   * Why runs were suspect or invalid: each fidelity check that warned or failed in a completed run,
   * by kind (`packet-spacing`, not `packet-spacing:main:forward`), with the range measured. Absent in
   * runs.json files written before it.
   */
  flagged?: FlaggedCheck[];
  /**
   * Which lfnlab made the runs (their environment.json) and which gave their verdicts as they stand
   * (the last `lfnlab rejudge --write`, else the one that made them): runs per `lfnlab 0.1.0
   * (commit)`, or per "not recorded" for runs made before lfnlab noted itself. Absent in older files.
   */
  code?: { ranBy: Record<string, number>; judgedBy: Record<string, number> };
  /**
   * What held the flows back, per part: completed runs' flows by the limit that held each for the
   * largest share of its busy time (`receiver-window`: the window the spec gives it, not the
   * network). A part whose flows sat at their windows never tested the stacks' congestion control.
   * Absent in older files; flows recorded before limits were measured are not counted.
   */
  limits?: Record<string, Partial<Record<LimitKind, number>>>;
}

/** One kind of fidelity check that warned or failed, over a preset's runs. */
export interface FlaggedCheck {
  check: string;
  expected: string;
  /** Runs in which it warned (suspect) or failed (invalid), each run counted once per kind. */
  warn: number;
  fail: number;
  /** The measured values of those warnings and failures. */
  min: number | null;
  max: number | null;
}

/** Adds one run's warned and failed checks to the tally, one count per kind and run. */
function tallyFlagged(into: Map<string, FlaggedCheck>, checks: readonly Check[]): void {
  const seen = new Map<string, 'warn' | 'fail'>();
  for (const c of checks) {
    if (c.status !== 'warn' && c.status !== 'fail') continue;
    const kind = c.id.split(':')[0] ?? c.id;
    const t = into.get(kind) ?? { check: kind, expected: c.expected, warn: 0, fail: 0, min: null, max: null };
    if (typeof c.measured === 'number' && Number.isFinite(c.measured)) {
      t.min = t.min === null ? c.measured : Math.min(t.min, c.measured);
      t.max = t.max === null ? c.measured : Math.max(t.max, c.measured);
    }
    into.set(kind, t);
    if (seen.get(kind) !== 'fail') seen.set(kind, c.status);
  }
  for (const [kind, status] of seen) (into.get(kind) as FlaggedCheck)[status]++;
}

/** The lfnlab of a run made before runs noted it. */
export const NOT_RECORDED = 'lfnlab (version not recorded)';

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
  const flagged = new Map<string, FlaggedCheck>();
  const code: NonNullable<RunsInfo['code']> = { ranBy: {}, judgedBy: {} };
  const limits: NonNullable<RunsInfo['limits']> = {};
  const count = (into: Record<string, number>, key: string) => {
    into[key] = (into[key] ?? 0) + 1;
  };
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
      tallyFlagged(flagged, s.fidelity?.checks ?? []);
      const held = (s.flows ?? []).flatMap((f) => (f.limitedBy ? [f.limitedBy.limitedBy] : []));
      if (held.length) {
        const into: Record<string, number> = limits[part.name] ?? {};
        for (const kind of held) count(into, kind);
        limits[part.name] = into;
      }
      const ran = ranCode(d);
      const ranBy = ran?.version
        ? codeVersion({ version: ran.version, commit: ran.commit ?? null, modified: ran.modified ?? null })
        : NOT_RECORDED;
      count(code.ranBy, ranBy);
      count(code.judgedBy, s.rejudged?.at(-1)?.by ?? ranBy);
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
  info.flagged = [...flagged.values()].sort((a, b) => b.warn + b.fail - (a.warn + a.fail));
  info.code = code;
  info.limits = limits;
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
 * Recomputes a published comparison's dimensionless groups at the length its runs had (runs.json),
 * with this version's scaling code and the meta's caveats; the findings and numbers are not touched
 * (they need the runs). For comparisons published before the groups followed the run length, or
 * after the groups or caveats changed. Returns the rewritten comparison, or null when nothing moved.
 */
export function regroupPublished(preset: Preset, out: string): PresetComparison | null {
  const file = join(out, 'comparison.json');
  const c = JSON.parse(readFileSync(file, 'utf8')) as PresetComparison;
  const runs = JSON.parse(readFileSync(join(out, 'runs.json'), 'utf8')) as RunsInfo;
  const groups = scalingReport(preset, runs.length.seconds);
  if (JSON.stringify(groups) === JSON.stringify(c.groups)) return null;
  const next = { ...c, groups };
  writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
  return next;
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
