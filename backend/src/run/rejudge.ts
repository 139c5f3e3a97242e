// A run judged again from its own directory with today's checks: the record keeps every input the
// verdict needs (spec, plan, snapshots, idle RTT, samples, the packet-timing capture, sampler
// counters), so a check corrected later can be applied to runs already made, and a record judged
// again without a change in the checks must give the verdict it has.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type PktTimingWindow, type Plan, parsePktTimingLine, type Spec } from '@lfnlab/emulator';
import { jsonLines, loadRun, type RunSummaryFile, readJson } from '../report/load.js';
import type { SamplerCounters } from './demux.js';
import { type Check, type FidelityReport, fidelity, type LinkStat, type QdiscStat } from './fidelity.js';
import { linkProofOf, withLabLimits } from './labLimitCheck.js';
import { json } from './labSetup.js';
import { type FlowLimit, flowLimits } from './limitedBy.js';
import type { PingSummary } from './probes.js';
import { rawFile, udpgenRaw } from './record.js';
import type { RouteEntry } from './routeChecks.js';
import { type RunMetrics, runMetrics } from './runMetrics.js';
import type { Sample } from './samples.js';
import type { TcpCounters } from './tcpMemory.js';
import { runTiming, verdictInput } from './verdictInput.js';

export interface Rejudged {
  dir: string;
  summary: RunSummaryFile;
  /** The verdict recorded at the time; null when the run ended before its checks ran. */
  before: FidelityReport | null;
  /** The verdict today's checks give; null (with `why`) when the record lacks what they need. */
  after: FidelityReport | null;
  /** What limited each flow, decided again with the new checks; absent when not judged again. */
  limits?: Record<string, FlowLimit | null>;
  why: string | null;
  /** Checks whose status or message differ, or that exist on one side only. */
  changed: { id: string; before: Check | null; after: Check | null }[];
  /**
   * The run's metrics computed again from its samples with today's definitions (a metric added
   * later reaches runs already made); absent when not judged again.
   */
  metrics?: RunMetrics;
  /** Metric values that moved, appeared or went: `scope:name id`. */
  metricsChanged?: string[];
}

/** The capture's windows from its raw output (header, end and stderr lines are not windows). */
export function timingWindowsOf(file: string): PktTimingWindow[] {
  const out: PktTimingWindow[] = [];
  for (const line of jsonLines(file)) {
    if (!line.startsWith('w\t')) continue;
    const r = parsePktTimingLine(line);
    if (r?.type === 'window') out.push(r);
  }
  return out;
}

export function diffChecks(before: readonly Check[], after: readonly Check[]): Rejudged['changed'] {
  const ids = [...new Set([...before.map((c) => c.id), ...after.map((c) => c.id)])];
  return ids.flatMap((id) => {
    const b = before.find((c) => c.id === id) ?? null;
    const a = after.find((c) => c.id === id) ?? null;
    return b && a && b.status === a.status && b.message === a.message ? [] : [{ id, before: b, after: a }];
  });
}

/** Every metric value of a run under a key that names where it belongs. */
function metricEntries(m: RunMetrics | null): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of m?.flows ?? []) for (const v of f.metrics) out.set(`flow:${f.flow} ${v.id}`, v.value);
  for (const g of m?.groups ?? [])
    for (const v of g.metrics) out.set(`${g.path}.${g.direction} ${v.id}`, v.value);
  for (const t of m?.theory ?? []) for (const v of t.metrics) out.set(`theory:${t.path} ${v.id}`, v.value);
  return out;
}

/** Metric values that differ beyond rounding, or exist on one side only. */
export function diffMetrics(before: RunMetrics | null, after: RunMetrics): string[] {
  const a = metricEntries(before);
  const b = metricEntries(after);
  const same = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
  return [...new Set([...a.keys(), ...b.keys()])].filter((k) => {
    const x = a.get(k);
    const y = b.get(k);
    return x === undefined || y === undefined || !same(x, y);
  });
}

export function rejudgeRun(dir: string): Rejudged {
  const run = loadRun(dir);
  const before = run.summary.fidelity ?? null;
  const missing = (why: string): Rejudged => ({
    dir,
    summary: run.summary,
    before,
    after: null,
    why,
    changed: [],
  });
  if (!before) return missing('the run ended before its checks ran');
  const spec = readJson<Spec>(join(dir, 'spec.json'));
  const plan = readJson<Plan>(join(dir, 'plan.json'));
  const need = ['qdisc-before.json', 'qdisc-after.json', 'links-before.json', 'links-after.json'];
  const absent = need.filter((f) => !existsSync(join(dir, f)));
  if (!spec || !plan) return missing('spec.json or plan.json is missing');
  if (absent.length) return missing(`${absent.join(', ')} missing`);
  // Campaigns before the fix in runCampaign.ts ran an aborted variant again into the same directory,
  // appending to the first attempt's samples: such a record cannot be judged again.
  const attempts = run.events.filter((e) => e.type === 'created').length;
  if (attempts > 1) return missing(`the record mixes ${attempts} attempts' samples (resumed in place)`);
  const traffic = run.events.find((e) => e.type === 'traffic');
  const t0RealMs = typeof traffic?.labRealtimeMs === 'number' ? traffic.labRealtimeMs : null;
  const samples = Object.values(run.samples).flat() as Sample[];
  const timing = runTiming(spec, plan, timingWindowsOf(join(dir, 'raw', 'timing_router.txt')), t0RealMs);
  const dataStarts = new Map(
    run.summary.flows.flatMap((f) =>
      typeof f.dataStartS === 'number' ? [[f.name, f.dataStartS] as const] : [],
    ),
  );
  // Records before the read-back existed have no file: the check is then skipped, not failed.
  const inForce = (when: 'before' | 'after') => {
    const v = readJson<Record<string, Record<string, number | null>>>(join(dir, `stack-params-${when}.json`));
    const tcp = readJson<TcpCounters>(join(dir, `tcp-counters-${when}.json`));
    return { ...(v ? { stackParams: v } : {}), ...(tcp ? { tcpCounters: tcp } : {}) };
  };
  const routes = readJson<Record<string, RouteEntry[]>>(join(dir, 'routes.json'));
  // A generator's output is judged where the record kept it; a source without one was not judged.
  const crossReports = Object.fromEntries(
    plan.cross.flatMap((p) => {
      const file = join(dir, rawFile(udpgenRaw(p.flow)));
      return existsSync(file) ? [[p.flow, readFileSync(file, 'utf8')] as const] : [];
    }),
  );
  const report = fidelity(
    verdictInput(
      {
        spec,
        plan,
        samples,
        t0RealMs,
        before: {
          qdiscs: json<QdiscStat[]>(readFileSync(join(dir, 'qdisc-before.json'), 'utf8'), []),
          links: readJson<Record<string, LinkStat[]>>(join(dir, 'links-before.json')) ?? {},
          ...inForce('before'),
          ...(routes ? { routes } : {}),
        },
        after: {
          qdiscs: json<QdiscStat[]>(readFileSync(join(dir, 'qdisc-after.json'), 'utf8'), []),
          links: readJson<Record<string, LinkStat[]>>(join(dir, 'links-after.json')) ?? {},
          ...inForce('after'),
        },
        idleRtt: readJson<Record<string, PingSummary | null>>(join(dir, 'idle-rtt.json')) ?? {},
        counters: readJson<SamplerCounters[]>(join(dir, 'sampling.json')) ?? [],
        dataStarts,
        crossReports,
      },
      timing,
    ),
  );
  // What limited each flow leans on what the link checks proved, so it is decided again with them.
  const limits = flowLimits(spec, plan.topology.paths, plan.topology.flows, samples, linkProofOf(report));
  const after = withLabLimits(report, limits);
  // A record the metrics cannot be computed from again keeps the ones it has; its verdict still counts.
  let metrics: RunMetrics | undefined;
  try {
    metrics = runMetrics(spec, plan.topology.paths, plan.topology.flows, samples);
  } catch {
    metrics = undefined;
  }
  return {
    dir,
    summary: run.summary,
    before,
    after,
    limits,
    why: null,
    changed: diffChecks(before.checks, after.checks),
    ...(metrics ? { metrics, metricsChanged: diffMetrics(run.summary.metrics ?? null, metrics) } : {}),
  };
}
