// Running a campaign: one run directory per variant under the campaign directory, in the
// expanded order; a variant whose run finished is never run again, so a killed campaign resumes
// where it stopped. Progress with an ETA; every summary collected into one table. A run the lab
// could not carry (verdict invalid) may run again: the invalid try is kept under invalid/.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Spec } from '@lfnlab/emulator';
import { stringify } from 'yaml';
import { readRunSummary } from '../report/load.js';
import { KeptLab } from '../run/keptLab.js';
import { runOrRecord } from '../run/runOrRecord.js';
import type { RunSummary } from '../run/summary.js';
import { poolLabNames } from '../service/labDriver.js';
import { type Campaign, expandCampaign, type Variant, writtenVariant } from './expand.js';
import { toCsv } from './resultsCsv.js';
import { SUPERSEDED_DIR, setAsideSuperseded, specChanges } from './superseded.js';

/**
 * One run of a variant: its resolved spec, its directory, and the spec as the campaign writes it
 * (units kept), which the run records as spec.yaml so `lfnlab run DIR/spec.yaml` runs it again.
 */
export type RunOne = ((
  spec: Spec,
  dir: string,
  signal?: AbortSignal,
  specText?: string,
) => Promise<RunSummary>) & {
  /** Called once when the campaign stops, however it stops: releases what the runs shared. */
  close?: () => Promise<void>;
};

/**
 * Each variant as a real experiment in the named lab (quietly: the campaign prints progress).
 * The runs share one hold on the lab (KeptLab): a run whose topology is the previous run's starts
 * on its dumbbell and calibration instead of building and calibrating again.
 */
export function runInLab(labName: string | undefined, log: (line: string) => void = () => undefined): RunOne {
  const keep = new KeptLab();
  const run: RunOne = async (spec, outDir, signal, specText) =>
    (await runOrRecord({ spec, outDir, labName, signal, log, keep, ...(specText ? { specText } : {}) }))
      .summary;
  run.close = () => keep.close();
  return run;
}

/**
 * A pool of `n` labs for one campaign: the first is `base` (the default lab when none is named),
 * the others `BASE-2` … `BASE-n`, each booted on first use and each with its own kept dumbbell.
 */
export function runInLabs(base: string | undefined, n: number, log?: (line: string) => void): RunOne[] {
  return poolLabNames(n, base).map((name) => runInLab(name, log));
}

export interface CampaignRow {
  id: string;
  /** The variant's human label (variantLabel); absent in results written before labels. */
  label?: string;
  repetition: number;
  params: Record<string, unknown>;
  status: RunSummary['status'] | 'missing';
  verdict: RunSummary['verdict'];
  /** Per flow whole-run goodput, Mbit/s. */
  goodputMbps: Record<string, number | null>;
  jainForward: number | null;
  utilisationForward: number | null;
}

/** A run counts as done once it completed; failed or aborted runs are tried again on resume. */
/** A run directory's summary when the run completed (a result, valid or not), else null. */
export function completedSummary(dir: string): RunSummary | null {
  const s = readRunSummary<RunSummary>(dir);
  return s?.status === 'completed' ? s : null;
}

export function rowOf(v: Variant, s: RunSummary | null): CampaignRow {
  return {
    id: v.id,
    label: v.label,
    repetition: v.repetition,
    params: v.params,
    status: s?.status ?? 'missing',
    verdict: s?.verdict ?? null,
    goodputMbps: Object.fromEntries((s?.flows ?? []).map((f) => [f.name, f.goodputMbps.wholeRun])),
    jainForward: s?.paths[0]?.jain.forward ?? null,
    utilisationForward: s?.paths[0]?.utilisation.forward ?? null,
  };
}

export interface CampaignOutcome {
  rows: CampaignRow[];
  ran: number;
  skipped: number;
}

/** Where a campaign keeps the tries the lab could not carry: `invalid/<variant>~<try>`. */
export const INVALID_DIR = 'invalid';

/** The invalid tries of one variant set aside so far. */
export function invalidTries(campaignDir: string, id: string): number {
  const d = join(campaignDir, INVALID_DIR);
  return existsSync(d) ? readdirSync(d).filter((f) => f.startsWith(`${id}~`)).length : 0;
}

/**
 * A variant is settled when its run completed and is a result, or is invalid with no try left:
 * `retryInvalid` more runs of it after an invalid one (0: an invalid run stands).
 */
function settled(campaignDir: string, id: string, retryInvalid: number): boolean {
  const s = completedSummary(join(campaignDir, 'runs', id));
  if (!s) return false;
  return s.verdict !== 'invalid' || invalidTries(campaignDir, id) >= retryInvalid;
}

/** Variants alike but for their repetition: the same parameters. */
const alikeKey = (v: Variant) => JSON.stringify(v.params);

/**
 * The variants (by alikeKey) one of whose repetitions stayed invalid through all `retry` more
 * tries: the lab could not carry them, so their other repetitions get no second try. Each would
 * cost a run (ten minutes and more on a dilated lab) to the same end; one try each still runs, so
 * a finding still sees every repetition made.
 */
function gaveUp(campaignDir: string, variants: readonly Variant[], retry: number): Set<string> {
  if (retry === 0) return new Set();
  return new Set(
    variants
      .filter(
        (v) =>
          invalidTries(campaignDir, v.id) >= retry &&
          completedSummary(join(campaignDir, 'runs', v.id))?.verdict === 'invalid',
      )
      .map(alikeKey),
  );
}

/** The tries a variant has after an invalid run: `retry`, or none once the lab gave up on one alike. */
const retriesFor = (v: Variant, retry: number, given: Set<string>) => (given.has(alikeKey(v)) ? 0 : retry);

/** Moves an invalid run aside so its variant runs again; returns the try's new home. */
function setAside(campaignDir: string, id: string): string {
  const to = join(campaignDir, INVALID_DIR, `${id}~${invalidTries(campaignDir, id) + 1}`);
  mkdirSync(join(campaignDir, INVALID_DIR), { recursive: true });
  renameSync(join(campaignDir, 'runs', id), to);
  return to;
}

/** Where a resumed campaign keeps the record of a run that was cut short or failed: `unfinished/<variant>~<n>`. */
export const UNFINISHED_DIR = 'unfinished';

/**
 * A run directory left by a run that did not complete (aborted, failed, killed) goes aside before
 * its variant runs again: a record is one attempt's, never two appended (their samples, timed from
 * two traffic starts, would read as one run).
 */
function setAsideUnfinished(campaignDir: string, id: string): void {
  const from = join(campaignDir, 'runs', id);
  if (!existsSync(from) || completedSummary(from)) return;
  const d = join(campaignDir, UNFINISHED_DIR);
  mkdirSync(d, { recursive: true });
  const n = readdirSync(d).filter((f) => f.startsWith(`${id}~`)).length + 1;
  renameSync(from, join(d, `${id}~${n}`));
}

export async function runCampaign(o: {
  campaign: Campaign;
  dir: string;
  /** One lab, or a pool of labs that take the next variant as each becomes free. */
  runOne: RunOne | readonly RunOne[];
  log?: (line: string) => void;
  signal?: AbortSignal;
  /** Once aborted no new run starts (nor a retry); the runs in progress finish and are kept. */
  drain?: AbortSignal;
  /** How many more times a variant runs after the lab could not carry it (default 0). */
  retryInvalid?: number;
  /** Called with a variant's id each time one of its runs has ended and its directory settled. */
  afterRun?: (id: string) => void;
  /**
   * Runs made to a spec the campaign file no longer gives their variant go aside (superseded/) and
   * run again; without it such a campaign is refused, naming what changed.
   */
  rerunChanged?: boolean;
}): Promise<CampaignOutcome> {
  const retry = o.retryInvalid ?? 0;
  const log = o.log ?? ((s: string) => console.log(s));
  const variants = expandCampaign(o.campaign);
  mkdirSync(join(o.dir, 'runs'), { recursive: true });
  // The plan is written once; a resume keeps every run made to it. A variant the file now gives
  // another spec is another experiment under the same id: refused, or (rerunChanged) its run goes
  // aside and it runs again.
  const planFile = join(o.dir, 'campaign.json');
  const written = { campaign: o.campaign, variants: variants.map(writtenVariant) };
  if (existsSync(planFile)) {
    const before = JSON.parse(readFileSync(planFile, 'utf8')) as {
      variants: { id: string; spec?: unknown }[];
    };
    const same = before.variants.map((v) => v.id).join('\n') === variants.map((v) => v.id).join('\n');
    if (!same && !grownFrom(before.variants, variants))
      throw new Error(
        `${o.dir} holds another campaign (its variants differ); resume it with its own file or use another directory`,
      );
    const changed = specChanges(before.variants, variants);
    const first = changed[0];
    if (first && !o.rerunChanged)
      throw new Error(
        `${o.dir} holds runs made to another plan: the campaign file gives ${changed.length} of its variants another spec (first ${first.variant.id}: ${first.difference}); run again with --rerun-changed to keep those runs under ${SUPERSEDED_DIR}/ and make them anew, or use another directory`,
      );
    for (const { variant, difference } of changed) {
      const to = setAsideSuperseded(o.dir, variant.id, INVALID_DIR);
      if (!to) continue;
      log(
        `${variant.id} was made to another spec than the campaign file gives it now (${difference}): kept in ${to}, running it again`,
      );
      o.afterRun?.(variant.id);
    }
    if (!same)
      // More repetitions of some variants (repeatWhere): the runs made keep their ids.
      log(
        `the campaign grew by ${variants.length - before.variants.length} runs; the ${before.variants.length} planned before stay`,
      );
    if (!same || changed.length) writeFileSync(planFile, `${JSON.stringify(written, null, 2)}\n`);
  } else {
    writeFileSync(planFile, `${JSON.stringify(written, null, 2)}\n`);
  }
  const given = gaveUp(o.dir, variants, retry);
  const done = variants.filter((v) => settled(o.dir, v.id, retriesFor(v, retry, given)));
  if (done.length) log(`resuming: ${done.length} of ${variants.length} runs already finished`);
  let ran = 0;
  const times: number[] = [];
  const labs = Array.isArray(o.runOne) ? (o.runOne as readonly RunOne[]) : [o.runOne as RunOne];
  try {
    ran = await runVariants({ ...o, labs, retry }, variants, times, log);
  } finally {
    // The last dumbbells come down and the labs are released, also after a failure or Ctrl-C.
    await Promise.all(labs.map((l) => l.close?.()));
  }
  const rows = variants.map((v) => rowOf(v, readRunSummary<RunSummary>(join(o.dir, 'runs', v.id))));
  writeFileSync(join(o.dir, 'results.json'), `${JSON.stringify(rows, null, 2)}\n`);
  writeFileSync(join(o.dir, 'results.csv'), toCsv(rows));
  return { rows, ran, skipped: done.length };
}

/** Whether `now` keeps every variant planned `before` (by id; a changed spec is superseded) and adds some. */
function grownFrom(before: readonly { id: string }[], now: readonly Variant[]): boolean {
  const ids = new Set(now.map((v) => v.id));
  return now.length > before.length && before.every((b) => ids.has(b.id));
}

async function runVariants(
  o: {
    dir: string;
    labs: readonly RunOne[];
    signal?: AbortSignal;
    drain?: AbortSignal;
    retry: number;
    afterRun?: (id: string) => void;
  },
  variants: Variant[],
  times: number[],
  log: (line: string) => void,
): Promise<number> {
  let ran = 0;
  let next = 0;
  let stopped = false;
  const triesLeft = (v: Variant) => retriesFor(v, o.retry, gaveUp(o.dir, variants, o.retry));
  const pending = () => {
    const given = gaveUp(o.dir, variants, o.retry);
    return variants.filter((x) => !settled(o.dir, x.id, retriesFor(x, o.retry, given))).length;
  };
  const halted = () => stopped || o.signal?.aborted || o.drain?.aborted;
  // Each lab takes the next unfinished variant in the campaign's order as soon as it is free.
  const work = async (runOne: RunOne) => {
    for (;;) {
      if (halted()) return;
      const i = next++;
      const v = variants[i];
      if (!v) return;
      const dir = join(o.dir, 'runs', v.id);
      const retry = triesLeft(v);
      if (settled(o.dir, v.id, retry)) continue;
      // Resumed with an invalid run and a try left: it goes aside and the variant runs again.
      if (completedSummary(dir)) setAside(o.dir, v.id);
      else setAsideUnfinished(o.dir, v.id);
      let s: RunSummary | undefined;
      for (;;) {
        const t = Date.now();
        const again = invalidTries(o.dir, v.id);
        log(
          `[${i + 1}/${variants.length}] ${v.label} (${v.id})${again ? `, try ${again + 1} of ${retry + 1}` : ''}`,
        );
        s = await runOne(v.resolved, dir, o.signal, stringify(v.spec));
        ran++;
        // A run cut short says nothing about how long the others take.
        if (s.status !== 'aborted') times.push(Date.now() - t);
        const invalid = s.status === 'completed' && s.verdict === 'invalid';
        // Another repetition may have used up its tries while this one ran.
        const retrying = invalid && again < Math.min(retry, triesLeft(v));
        const left = pending();
        log(
          `[${i + 1}/${variants.length}] ${v.label} (${v.id}): ${s.status}${s.status === 'failed' && s.error ? ` (${s.error})` : ''}, verdict ${s.verdict ?? '-'} in ${((Date.now() - t) / 1000).toFixed(0)} s; ${left} left${etaText(times, left, o.labs.length, s.status === 'aborted')}`,
        );
        if (invalid && again < o.retry && !retrying)
          log('  no further try: another repetition of it stayed invalid through all its tries');
        if (!retrying || halted()) {
          o.afterRun?.(v.id);
          break;
        }
        const aside = setAside(o.dir, v.id);
        o.afterRun?.(v.id);
        log(
          `  the lab could not carry it (${(s.fidelity?.reasons ?? []).join('; ') || 'verdict invalid'}): kept in ${aside}, running it again`,
        );
      }
      if (s?.status === 'aborted') stopped = true;
    }
  };
  // A lab whose run throws stops the others taking new runs; its error surfaces once every lab's
  // run in flight has ended, so no lab is released under a running experiment.
  const ends = await Promise.allSettled(
    o.labs.map((l) =>
      work(l).catch((err: unknown) => {
        stopped = true;
        throw err;
      }),
    ),
  );
  const failed = ends.find((e): e is PromiseRejectedResult => e.status === 'rejected');
  if (failed) throw failed.reason;
  return ran;
}

/** The campaign's remaining wall time from the runs that ran to their end, or why there is none. */
export function etaText(times: readonly number[], left: number, labs: number, aborted: boolean): string {
  if (aborted) return ', stopped';
  if (!left) return '';
  if (!times.length) return ', ETA unknown';
  const eta = ((times.reduce((a, b) => a + b, 0) / times.length) * left) / labs;
  return `, ETA ${Math.ceil(eta / 60_000)} min`;
}
