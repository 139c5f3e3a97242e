// A campaign's progress kept small enough to commit: the expanded plan and, per finished run, the
// record a comparison reads (summary and spec), invalid tries included. A reproduction that takes
// longer than a sitting copies each run there as it ends; another machine or a fresh clone restores
// those runs into its campaign directory and runs only the rest. Samples and raw captures stay in
// the campaign directory: a comparison does not read them.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Spec } from '@lfnlab/emulator';
import { type EnvironmentFile, readJson } from '../report/load.js';
import type { CodeIdentity } from '../run/codeVersion.js';
import type { RunSummary } from '../run/summary.js';
import { completedSummary, INVALID_DIR } from './runCampaign.js';

/** What a finished run keeps in the progress directory: what comparisons and run counts read. */
export const PROGRESS_RECORD = ['summary.json', 'spec.json', 'code.json'] as const;

/**
 * The completed runs among kept records (a progress directory's `runs/`, or a campaign's), by id:
 * each one's summary and the spec it ran. What a targeted experiment's scoring script reads.
 */
export function keptCompletedRuns(runsDir: string): { id: string; summary: RunSummary; spec: Spec }[] {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir)
    .sort()
    .flatMap((id) => {
      const summary = completedSummary(join(runsDir, id));
      const spec = readJson<Spec>(join(runsDir, id, 'spec.json'));
      return summary && spec ? [{ id, summary, spec }] : [];
    });
}

/**
 * Which code ran a run: the run's environment says it; a run restored from kept records alone has
 * only `code.json`, the same few fields (the environment file is ~25 kB, too much to commit per run).
 */
export function ranCode(runDir: string): Partial<CodeIdentity> | null {
  return (
    readJson<EnvironmentFile>(join(runDir, 'environment.json'))?.lfnlab ??
    readJson<Partial<CodeIdentity>>(join(runDir, 'code.json')) ??
    null
  );
}

const PLAN = 'campaign.json';

/** Copies a completed run's record; a failed or aborted run is not progress (it runs again). */
function copyRecord(from: string, to: string): boolean {
  if (!completedSummary(from)) return false;
  mkdirSync(to, { recursive: true });
  for (const f of PROGRESS_RECORD) if (existsSync(join(from, f))) copyFileSync(join(from, f), join(to, f));
  const code = ranCode(from);
  if (code && !existsSync(join(to, 'code.json')))
    writeFileSync(join(to, 'code.json'), `${JSON.stringify(code)}\n`);
  return true;
}

/** The run directories of one variant: its counting run, then its tries set aside. */
function variantDirs(base: string, id: string): string[] {
  const aside = join(base, INVALID_DIR);
  const tries = existsSync(aside) ? readdirSync(aside).filter((d) => d.startsWith(`${id}~`)) : [];
  return [join('runs', id), ...tries.map((d) => join(INVALID_DIR, d))];
}

/**
 * Copies one variant's finished run (and its invalid tries) and the plan to `progressDir`. A run
 * set aside to be tried again, or superseded with its tries, leaves the progress directory too, so
 * a restore cannot count it twice or bring it back.
 */
export function saveProgress(campaignDir: string, progressDir: string, id: string): void {
  mkdirSync(progressDir, { recursive: true });
  if (existsSync(join(campaignDir, PLAN))) copyFileSync(join(campaignDir, PLAN), join(progressDir, PLAN));
  if (!existsSync(join(campaignDir, 'runs', id, 'summary.json')))
    rmSync(join(progressDir, 'runs', id), { recursive: true, force: true });
  const dirs = variantDirs(campaignDir, id);
  for (const d of variantDirs(progressDir, id))
    if (d.startsWith(INVALID_DIR) && !dirs.includes(d))
      rmSync(join(progressDir, d), { recursive: true, force: true });
  for (const d of dirs) copyRecord(join(campaignDir, d), join(progressDir, d));
}

/**
 * Restores into `campaignDir` the plan and every run `progressDir` holds that the campaign
 * directory has no record of; returns how many finished runs and invalid tries it restored. A run
 * the campaign directory already has is left as it is: it is the same run or a newer one.
 */
export function restoreProgress(progressDir: string, campaignDir: string): Restored {
  const restored: Restored = { runs: 0, invalidTries: 0 };
  if (!existsSync(progressDir)) return restored;
  mkdirSync(campaignDir, { recursive: true });
  if (existsSync(join(progressDir, PLAN)) && !existsSync(join(campaignDir, PLAN)))
    copyFileSync(join(progressDir, PLAN), join(campaignDir, PLAN));
  for (const [sub, key] of [
    ['runs', 'runs'],
    [INVALID_DIR, 'invalidTries'],
  ] as const) {
    const from = join(progressDir, sub);
    if (!existsSync(from)) continue;
    for (const d of readdirSync(from)) {
      if (existsSync(join(campaignDir, sub, d, 'summary.json'))) continue;
      if (copyRecord(join(from, d), join(campaignDir, sub, d))) restored[key]++;
    }
  }
  return restored;
}

/**
 * Brings a campaign directory and its progress directory level before a campaign resumes: restores
 * what only the progress holds, then keeps what only the campaign directory holds, e.g. a run that
 * ended as the campaign was killed, before its record could be copied (a resumed campaign does not
 * run it again, so nothing else would copy it).
 */
export function syncProgress(progressDir: string, campaignDir: string): Restored & { kept: number } {
  const restored = restoreProgress(progressDir, campaignDir);
  let kept = 0;
  const runs = join(campaignDir, 'runs');
  if (existsSync(runs))
    for (const id of readdirSync(runs)) {
      if (existsSync(join(progressDir, 'runs', id, 'summary.json')) || !completedSummary(join(runs, id)))
        continue;
      saveProgress(campaignDir, progressDir, id);
      kept++;
    }
  return { ...restored, kept };
}

export interface Restored {
  runs: number;
  /** Tries the lab could not carry: counted when published, never run again. */
  invalidTries: number;
}

/**
 * "progress: 36 finished runs and 1 invalid try restored from DIR; 1 finished run copied to DIR" — an invalid try is
 * counted, never a finished run; null when there was nothing to bring either way.
 */
export function syncedText(s: Restored & { kept: number }, progressDir: string): string | null {
  if (!s.runs && !s.invalidTries && !s.kept) return null;
  const parts: string[] = [];
  if (s.runs || s.invalidTries)
    parts.push(`${restoredText(s.runs, s.invalidTries)} restored from ${progressDir}`);
  if (s.kept) parts.push(`${s.kept} finished run${s.kept === 1 ? '' : 's'} copied to ${progressDir}`);
  return `progress: ${parts.join('; ')}`;
}

/** "36 finished runs and 1 invalid try": an invalid try is counted, never a finished run. */
export function restoredText(runs: number, tries: number): string {
  const r = `${runs} finished run${runs === 1 ? '' : 's'}`;
  return tries ? `${r} and ${tries} invalid ${tries === 1 ? 'try' : 'tries'}` : r;
}
