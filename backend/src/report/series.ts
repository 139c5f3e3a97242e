// Time series out of a run's samples, keyed the way the plots and the exports use them.
import type { Point } from './downsample.js';
import type { RunData } from './load.js';

/** The flows of a run in spec order, with what the report needs about each. */
export interface FlowInfo {
  name: string;
  stack: string;
  path: string;
  direction: 'forward' | 'reverse';
  streams: number;
  startS: number;
  durationS: number;
}

export function flowsOf(run: RunData): FlowInfo[] {
  if (run.summary.flows?.length) {
    return run.summary.flows.map((f) => ({
      name: f.name,
      stack: f.stack,
      path: f.path,
      direction: f.direction,
      streams: f.streams,
      startS: f.startS,
      durationS: f.durationS,
    }));
  }
  return (run.spec?.flows ?? []).map((f) => ({
    name: f.name,
    stack: f.stack,
    path: f.path,
    direction: f.direction,
    streams: f.streams,
    startS: f.start / 1000,
    durationS: f.duration / 1000,
  }));
}

export function pathsOf(run: RunData): string[] {
  const names = new Set<string>();
  for (const p of run.summary.paths ?? []) names.add(p.name);
  for (const p of Object.keys(run.spec?.paths ?? {})) names.add(p);
  for (const s of run.samples.rtt) names.add(s.path);
  return [...names];
}

/** Run length in seconds: the spec's, else the last sample's time. */
export function runLengthS(run: RunData): number {
  if (run.spec?.duration) return run.spec.duration / 1000;
  const flowsEnd = Math.max(0, ...flowsOf(run).map((f) => f.startS + f.durationS));
  if (flowsEnd > 0) return flowsEnd;
  let t = 0;
  for (const k of Object.values(run.samples)) for (const s of k as { t: number }[]) if (s.t > t) t = s.t;
  return t;
}

const byFlowCache = new WeakMap<object, Map<string, unknown[]>>();

/** A sample list split by flow, once per list: a long run with many flows is read many times. */
function byFlow<T extends { flow: string }>(samples: T[]): Map<string, T[]> {
  let m = byFlowCache.get(samples) as Map<string, T[]> | undefined;
  if (!m) {
    m = new Map();
    for (const s of samples) {
      const xs = m.get(s.flow);
      if (xs) xs.push(s);
      else m.set(s.flow, [s]);
    }
    byFlowCache.set(samples, m as Map<string, unknown[]>);
  }
  return m;
}

/** A flow's TCP samples in time order. */
export function tcpSamples(run: RunData, flow: string) {
  return byFlow(run.samples.tcp).get(flow) ?? [];
}

/** A flow's goodput (bit/s) at its receiver: the fine sampler's, else iperf3's intervals. */
export function goodputPoints(run: RunData, flow: string): Point[] {
  const fine = (byFlow(run.samples.goodput).get(flow) ?? [])
    .filter((s) => s.t >= 0)
    .map((s) => ({ t: s.t, v: s.bps }));
  if (fine.length >= 2) return fine;
  return (byFlow(run.samples.interval).get(flow) ?? [])
    .filter((s) => s.goodputBps !== null)
    .map((s) => ({ t: s.t, v: s.goodputBps as number }));
}

export function tcpPoints(
  run: RunData,
  flow: string,
  pick: 'cwndPackets' | 'srttMs' | 'pacingBps' | 'deliveryBps',
): Point[] {
  const out: Point[] = [];
  for (const s of tcpSamples(run, flow)) {
    if (s.t < 0) continue;
    const v = s[pick];
    if (typeof v === 'number' && Number.isFinite(v)) out.push({ t: s.t, v });
  }
  return out;
}

export function probeRttPoints(run: RunData, path: string): Point[] {
  return run.samples.rtt.filter((s) => s.path === path && s.t >= 0).map((s) => ({ t: s.t, v: s.rttMs }));
}

export interface QueueKey {
  path: string;
  direction: 'forward' | 'reverse';
}

/** Bottleneck queues that were sampled, forward before reverse. */
export function bottleneckQueues(run: RunData): QueueKey[] {
  const seen = new Map<string, QueueKey>();
  for (const s of run.samples.queue)
    if (s.stage === 'bottleneck')
      seen.set(`${s.path}\u0000${s.direction}`, { path: s.path, direction: s.direction });
  return [...seen.values()].sort((a, b) =>
    a.path === b.path ? a.direction.localeCompare(b.direction) : a.path.localeCompare(b.path),
  );
}

export function queuePoints(
  run: RunData,
  q: QueueKey,
  pick: 'backlogPackets' | 'backlogBytes' | 'drops',
): Point[] {
  return run.samples.queue
    .filter((s) => s.stage === 'bottleneck' && s.path === q.path && s.direction === q.direction && s.t >= 0)
    .map((s) => ({ t: s.t, v: s[pick] }));
}

/**
 * Mean of a series over consecutive intervals [k·I, (k+1)·I), weighting each sample by the time it
 * holds until the next one, so uneven sampling does not bias an interval. Null for an interval
 * without samples.
 */
export function intervalMeans(points: readonly Point[], intervalS: number, endS: number): (number | null)[] {
  const n = Math.max(1, Math.ceil(endS / intervalS - 1e-9));
  const sum = new Array<number>(n).fill(0);
  const weight = new Array<number>(n).fill(0);
  for (let i = 0; i < points.length; i++) {
    const p = points[i] as Point;
    const next = points[i + 1];
    const hold = next ? Math.max(0, Math.min(next.t - p.t, intervalS)) : 0;
    const k = Math.min(n - 1, Math.floor(p.t / intervalS));
    if (k < 0) continue;
    const w = hold > 0 ? hold : 1e-6;
    sum[k] = (sum[k] ?? 0) + p.v * w;
    weight[k] = (weight[k] ?? 0) + w;
  }
  return sum.map((s, k) => ((weight[k] ?? 0) > 0 ? s / (weight[k] as number) : null));
}
