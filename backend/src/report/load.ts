// Reading a run directory or a campaign directory back, tolerant of what an aborted or older run
// left out: every file but summary.json may be missing, and a torn last line of a JSONL file is
// skipped rather than fatal.
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Spec } from '@lfnlab/emulator';
import { mostRepeats } from '../campaign/expand.js';
import type { CampaignRow } from '../campaign/runCampaign.js';
import { uniqueLabels } from '../campaign/variantLabel.js';
import type { CodeIdentity } from '../run/codeVersion.js';
import type {
  CpuSample,
  GoodputSample,
  QueueSample,
  RttSample,
  TcpFlowSample,
  UdpSample,
  WireFlowSample,
} from '../run/samples.js';
import { type IntervalSample, SAMPLE_KINDS, type SampleKind } from '../run/samples.js';
import { type RunSummary, withIntervalStatsFromMetrics } from '../run/summary.js';

/** summary.json as runExperiment writes it: the summary plus when it ran. */
export type RunSummaryFile = RunSummary & {
  startedAt?: string;
  finishedAt?: string;
  samples?: number;
};

export interface SamplesByKind {
  tcp: TcpFlowSample[];
  goodput: GoodputSample[];
  queue: QueueSample[];
  cpu: CpuSample[];
  rtt: RttSample[];
  interval: IntervalSample[];
  udp: UdpSample[];
  wireflow: WireFlowSample[];
}

export interface RunEvent {
  at: string;
  type: string;
  [key: string]: unknown;
}

/** environment.json, loosely: only the fields the report shows are named. */
export interface EnvironmentFile {
  cpu?: { model?: string | null; mhz?: number | null };
  seed?: number;
  lab?: {
    name?: string;
    accel?: string;
    imageId?: string;
    cpus?: number;
    memMb?: number;
    qemuVersion?: string;
  };
  image?: { id?: string; kernel?: { abi?: string; version?: string; package?: string; hz?: number } };
  host?: { node?: string; platform?: string; qemu?: string };
  toolVersions?: Record<string, string>;
  /** The code that ran and judged the run (runs before 2026-11-28 lack it). */
  lfnlab?: Partial<CodeIdentity>;
  [key: string]: unknown;
}

export interface CalibrationEntry {
  measuredMinMs?: number;
  excessMs?: number;
  oneWayDelayMs?: number;
  [key: string]: unknown;
}

export interface RunData {
  dir: string;
  summary: RunSummaryFile;
  /** The normalised spec; older or aborted runs may lack it or some of its fields. */
  spec: Partial<Spec> | null;
  environment: EnvironmentFile | null;
  idleRtt: Record<
    string,
    { sent: number; received: number; minMs: number; avgMs: number; maxMs: number; mdevMs: number } | null
  > | null;
  calibration: Record<string, CalibrationEntry> | null;
  sampling: unknown[] | null;
  events: RunEvent[];
  samples: SamplesByKind;
  /** JSONL lines that did not parse (a torn write at a crash). */
  skippedLines: number;
}

export function readJson<T>(file: string): T | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

/**
 * Each line of a JSONL file, read in chunks so a long run's sample files never have to fit in one
 * string.
 */
export function* jsonLines(file: string): Generator<string> {
  if (!existsSync(file)) return;
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    let rest = '';
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const text = rest + buf.toString('utf8', 0, n);
      const lines = text.split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) yield l;
    }
    if (rest.trim()) yield rest;
  } finally {
    closeSync(fd);
  }
}

function readJsonl<T>(file: string, onBad: () => void): T[] {
  const out: T[] = [];
  for (const line of jsonLines(file)) {
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      onBad();
    }
  }
  return out;
}

export function emptySamples(): SamplesByKind {
  return { tcp: [], goodput: [], queue: [], cpu: [], rtt: [], interval: [], udp: [], wireflow: [] };
}

/**
 * A run directory's summary.json, or null when it is absent or unreadable. Every reader goes
 * through here so that a summary an older lfnlab wrote states its flows' interval statistics as
 * a new one does (withIntervalStatsFromMetrics).
 */
export function readRunSummary<T extends RunSummary = RunSummaryFile>(dir: string): T | null {
  const s = readJson<T>(join(dir, 'summary.json'));
  return s && typeof s === 'object' ? withIntervalStatsFromMetrics(s) : s;
}

export function isRunDir(dir: string): boolean {
  return existsSync(join(dir, 'summary.json'));
}

/** Run directories under a path: a run itself (it has events.jsonl), or any folder holding runs, sorted. */
export function findRunDirs(root: string, depth = 0): string[] {
  if (existsSync(join(root, 'events.jsonl'))) return [root];
  if (depth > 3 || !statSync(root).isDirectory()) return [];
  return readdirSync(root)
    .sort()
    .map((f) => join(root, f))
    .filter((p) => statSync(p).isDirectory())
    .flatMap((p) => findRunDirs(p, depth + 1));
}

export function isCampaignDir(dir: string): boolean {
  return existsSync(join(dir, 'campaign.json')) || existsSync(join(dir, 'results.json'));
}

export function loadRun(dir: string): RunData {
  const summary = readRunSummary(dir);
  if (!summary) throw new Error(`${dir}: no readable summary.json; is this a run directory?`);
  let skippedLines = 0;
  const samples = emptySamples();
  for (const kind of SAMPLE_KINDS) {
    const rows = readJsonl<{ kind: SampleKind; t: number }>(join(dir, 'samples', `${kind}.jsonl`), () => {
      skippedLines++;
    });
    // Samples are in arrival order; plots and resampling want time order.
    rows.sort((a, b) => a.t - b.t);
    (samples[kind] as unknown[]) = rows;
  }
  return {
    dir,
    summary,
    spec: readJson<Partial<Spec>>(join(dir, 'spec.json')),
    environment: readJson<EnvironmentFile>(join(dir, 'environment.json')),
    idleRtt: readJson(join(dir, 'idle-rtt.json')),
    calibration: readJson(join(dir, 'calibration.json')),
    sampling: readJson(join(dir, 'sampling.json')),
    events: readJsonl<RunEvent>(join(dir, 'events.jsonl'), () => {
      skippedLines++;
    }),
    samples,
    skippedLines,
  };
}

/** The wall-clock instant of t = 0 (traffic start), from the events; null when it never came. */
export function trafficStart(run: RunData): Date | null {
  const ev = run.events.find((e) => e.type === 'traffic');
  const t0 = typeof ev?.t0 === 'string' ? ev.t0 : null;
  const d = t0 ? new Date(t0) : null;
  return d && !Number.isNaN(d.getTime()) ? d : null;
}

/** When the run started: summary.startedAt, else the first event. */
export function runStarted(run: RunData): Date | null {
  const s = run.summary.startedAt ?? run.events[0]?.at;
  const d = s ? new Date(s) : null;
  return d && !Number.isNaN(d.getTime()) ? d : null;
}

export interface CampaignVariantFile {
  id: string;
  /** Written since variants have labels; older plan files have none. */
  label?: string;
  params: Record<string, unknown>;
  repetition: number;
}

export interface CampaignRun {
  id: string;
  /** The variant's human label: from the plan file, made from its parameters for older ones, else the id. */
  label: string;
  dir: string;
  params: Record<string, unknown>;
  repetition: number;
  row: CampaignRow | null;
  summary: RunSummaryFile | null;
}

export interface CampaignData {
  dir: string;
  name: string;
  description: string | null;
  vary: Record<string, unknown[]>;
  repeat: number | null;
  runs: CampaignRun[];
}

export function loadCampaign(dir: string): CampaignData {
  const file = readJson<{
    campaign?: {
      name?: string;
      description?: string;
      vary?: Record<string, unknown[]>;
      repeat?: number;
      repeatWhere?: { repeat: number }[];
    };
    variants?: CampaignVariantFile[];
  }>(join(dir, 'campaign.json'));
  const rows = readJson<CampaignRow[]>(join(dir, 'results.json')) ?? [];
  const runsDir = join(dir, 'runs');
  const onDisk =
    existsSync(runsDir) && statSync(runsDir).isDirectory()
      ? readdirSync(runsDir)
          .filter((d) => statSync(join(runsDir, d)).isDirectory())
          .sort()
      : [];
  const variants: CampaignVariantFile[] = file?.variants?.length
    ? file.variants
    : rows.length
      ? rows.map((r) => ({ id: r.id, params: r.params, repetition: r.repetition }))
      : onDisk.map((id) => ({ id, params: {}, repetition: 1 }));
  const planned = file?.campaign?.vary
    ? uniqueLabels(
        variants.map((v) => ({ id: v.id, params: v.params ?? {}, repetition: v.repetition ?? 1 })),
        {
          vary: file.campaign.vary,
          repeat: mostRepeats({ repeat: file.campaign.repeat ?? 1, repeatWhere: file.campaign.repeatWhere }),
        },
      )
    : null;
  const runs = variants.map((v, i): CampaignRun => {
    const runDir = join(runsDir, v.id);
    return {
      id: v.id,
      label: v.label ?? planned?.[i] ?? rows.find((r) => r.id === v.id)?.label ?? v.id,
      dir: runDir,
      params: v.params ?? {},
      repetition: v.repetition ?? 1,
      row: rows.find((r) => r.id === v.id) ?? null,
      summary: readRunSummary(runDir),
    };
  });
  const vary =
    file?.campaign?.vary ??
    Object.fromEntries(
      [...new Set(runs.flatMap((r) => Object.keys(r.params)))].map((k) => [
        k,
        [...new Set(runs.map((r) => JSON.stringify(r.params[k] ?? null)))].map(
          (s) => JSON.parse(s) as unknown,
        ),
      ]),
    );
  return {
    dir,
    name: file?.campaign?.name ?? runs[0]?.summary?.name ?? 'campaign',
    description: file?.campaign?.description ?? null,
    vary,
    repeat: file?.campaign?.repeat ?? null,
    runs,
  };
}
