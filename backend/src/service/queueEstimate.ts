// How long a queued run will wait: the rest of the run in the lab now plus every run before it,
// each taking its lab seconds at the lab's pace plus the set-up and tear-down the lab's recent
// runs needed. Pure functions of run records, so the estimate is testable without a queue.
import type { Spec } from '@lfnlab/emulator';
import type { QueueSpot, Run } from './types.js';

/** Set-up (reset, boot when down, calibration) and tear-down per run when no history says more. */
export const DEFAULT_OVERHEAD_S = 20;
/** A running run is never expected to end sooner than this (its summary and lab reset). */
const MIN_TAIL_S = 3;
const HISTORY = 10;

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/**
 * Lab seconds per wall second expected of a dilated (TCG) lab running `spec` before any run says
 * more. A TCG lab's wall time is its packets, so the pace falls with the rate its bottlenecks may
 * carry (each path's forward rate, and its reverse rate when a flow runs that way): 12 divided by
 * that rate in Mbit/s, never above 0.35. The published reproductions (2 labs on a 2-core host) ran
 * at 0.11-0.16 at 100 Mbit/s where the flows filled the link (seed001-dst 0.156, seed004-maxbw
 * 0.162, seed002-cbr 0.109, seed002-selfsimilar 0.106; seed000-table3 0.14 at 100), 0.32-0.45
 * where they left it idle part of the time, 0.336 at 25 + 25 (seed000-table4) and 0.346 at 25
 * (seed003-ber). The rule sits at the slower end, so that an estimate errs long rather than short;
 * before it, one figure (0.3) for every rate put seed000-table3 at 6.3 h where its runs took 10.9.
 */
export function expectedDilatedPace(spec: Spec): number {
  const reverse = spec.flows.some((f) => f.direction === 'reverse');
  const bps = Object.values(spec.paths).reduce(
    (a, p) => a + p.rate + (reverse ? (p.reverse?.rate ?? p.rate) : 0),
    0,
  );
  return Math.min(MAX_DILATED_PACE, 12 / Math.max(bps / 1e6, 1));
}
const MAX_DILATED_PACE = 0.35;

/** Lab seconds per wall second: the newest known dilation on that lab, else `fallback` (realtime: 1). */
export function labPace(runs: Run[], fallback = 1): number {
  const known = runs
    .filter((r) => r.progress.dilation && r.startedAt)
    .sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? ''));
  return known[0]?.progress.dilation ?? fallback;
}

/** Wall seconds a run takes beyond its traffic, the median over the lab's recent completed runs. */
export function overheadS(runs: Run[]): number {
  const done = runs
    .filter((r) => r.status === 'completed' && r.startedAt && r.finishedAt)
    .sort((a, b) => (b.finishedAt ?? '').localeCompare(a.finishedAt ?? ''))
    .slice(0, HISTORY)
    .map((r) => {
      const wallS = (Date.parse(r.finishedAt as string) - Date.parse(r.startedAt as string)) / 1000;
      return Math.max(0, wallS - r.progress.totalS / (r.progress.dilation ?? 1));
    });
  return done.length ? median(done) : DEFAULT_OVERHEAD_S;
}

/** What a set of runs costs on a lab: lab seconds, and wall seconds at its pace with its overhead. */
export interface WallEstimate {
  runs: number;
  /** Traffic time the runs ask for, lab seconds. */
  labS: number;
  /** Expected wall-clock seconds from the first start to the last end, queue wait not included. */
  wallS: number;
  /** Lab seconds per wall second used (1 until a run on the lab has reported its pace). */
  pace: number;
  /** Wall seconds per run beyond its traffic (set-up, calibration, tear-down). */
  overheadS: number;
  /** Whether pace and overhead come from the lab's own runs or from the defaults. */
  fromHistory: boolean;
}

/** Wall seconds one run of `labS` lab seconds takes: the one formula for queue places and costs. */
const wallOfRun = (labS: number, pace: number, overhead: number) => labS / pace + overhead;

/** Wall seconds for runs of these lengths (lab seconds each) at a pace and set-up per run. */
export const wallOfRuns = (labSeconds: number[], pace: number, overhead: number) =>
  Math.round(labSeconds.reduce((a, s) => a + wallOfRun(s, pace, overhead), 0));

/** One pace for runs of different paces: their lab seconds over the wall seconds they take (2 digits). */
export function paceOfAll(runs: readonly PacedRun[]): number {
  const labS = runs.reduce((a, r) => a + r.labS, 0);
  const wallS = runs.reduce((a, r) => a + r.labS / r.pace, 0);
  return Number((wallS > 0 ? labS / wallS : (runs[0]?.pace ?? 1)).toPrecision(2));
}

/** A run's lab seconds and the pace it is expected to keep on a lab without history. */
export interface PacedRun {
  labS: number;
  pace: number;
}

/**
 * The cost of these runs on a lab with this history: at the lab's own pace once it has one, else
 * each at the pace expected of it (LabDriver.expectedPace).
 */
export function wallEstimate(runs: readonly PacedRun[], history: Run[]): WallEstimate {
  const known = labPace(history, 0);
  const pace = known > 0 ? known : paceOfAll(runs);
  const overhead = overheadS(history);
  const labSeconds = runs.map((r) => r.labS);
  return {
    runs: runs.length,
    labS: labSeconds.reduce((a, b) => a + b, 0),
    wallS: wallOfRuns(labSeconds, pace, overhead),
    pace,
    overheadS: overhead,
    fromHistory: history.some((r) => r.status === 'completed' && r.startedAt && r.finishedAt),
  };
}

export interface LabLine {
  running: Run | null;
  /** In the order they will start. */
  waiting: Run[];
  /** The lab's runs of any status (for its pace and overhead). */
  history: Run[];
}

/**
 * Each waiting run's place and expected start, by run id. Runs go at the lab's own pace once a run
 * on it has reported one, else each at the pace expected of its spec (LabDriver.expectedPace), so
 * a fresh dilated lab's queue is not priced as if it kept real time.
 */
export function queueSpots(
  line: LabLine,
  now: Date,
  expectedPace: (spec: Spec) => number = () => 1,
): Map<string, QueueSpot> {
  const known = labPace(line.history, 0);
  const overhead = overheadS(line.history);
  const wallOf = (r: Run) => wallOfRun(r.progress.totalS, known > 0 ? known : expectedPace(r.spec), overhead);
  let waitS = 0;
  if (line.running) {
    const r = line.running;
    const sinceStartS = r.startedAt ? (now.getTime() - Date.parse(r.startedAt)) / 1000 : 0;
    const byEta = r.progress.etaS != null ? r.progress.etaS + overhead / 2 : Number.POSITIVE_INFINITY;
    waitS = Math.max(MIN_TAIL_S, Math.min(byEta, wallOf(r) - sinceStartS));
  }
  const out = new Map<string, QueueSpot>();
  line.waiting.forEach((r, i) => {
    out.set(r.id, {
      position: i + 1,
      ahead: i + (line.running ? 1 : 0),
      estimatedWaitS: Math.round(waitS),
      estimatedStartAt: new Date(now.getTime() + waitS * 1000).toISOString(),
    });
    waitS += wallOf(r);
  });
  return out;
}
