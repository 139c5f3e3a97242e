// The papers' metrics for one run, from its samples: per flow, per bottleneck direction (the flows
// that share it), and the theory next to them. Every value carries its definition id and unit.
import type { FlowTopology, PathTopology, Spec } from '@lfnlab/emulator';
import {
  aggregateThroughputStats,
  asymmetry,
  bdpPackets,
  convergenceTime,
  DEFAULT_PERFORMANCE_ALPHA,
  efficiency,
  fairnessByActiveSet,
  jainSecondHalf,
  jainWholeRun,
  type MetricId,
  MetricInputError,
  type MetricValue,
  mathisThroughputBitPerS,
  meanThroughputs,
  metricValue,
  nFlowLinkUse,
  performanceScore,
  rampUp,
  responsivenessS,
  rttStats,
  type Series,
  series,
  type ThroughputStats,
  throughputStats,
  windowRecoveries,
} from '@lfnlab/metrics';
import {
  type GoodputSample,
  type IntervalSample,
  type Sample,
  type TcpFlowSample,
  tcpSamplesOf,
  type UdpSample,
} from './samples.js';

/** MSS with timestamps on a 1500-byte MTU path: 1500 − 20 − 20 − 12. */
const mssFor = (mtu: number) => mtu - 52;

export interface FlowMetrics {
  flow: string;
  metrics: MetricValue[];
  recoveries: number;
}

export interface GroupMetrics {
  path: string;
  direction: 'forward' | 'reverse';
  flows: string[];
  metrics: MetricValue[];
  activeSets?: {
    fromS: number;
    toS: number;
    flows: string[];
    jain: number;
    efficiency: number;
    performance: number;
  }[];
}

export interface RunMetrics {
  flows: FlowMetrics[];
  groups: GroupMetrics[];
  theory: { path: string; metrics: MetricValue[] }[];
}

/** Metric functions throw on input that cannot be right; here that means "not measurable in this run". */
function tryMetric(out: MetricValue[], id: MetricId, f: () => number): void {
  try {
    const v = f();
    if (Number.isFinite(v)) out.push(metricValue(id, v));
  } catch (err) {
    if (!(err instanceof MetricInputError)) throw err;
  }
}

/**
 * A series from samples as they came: sorted by time, one value per instant (the last), finite
 * values only. Samplers on two clocks, or a tick split across batches, must not make a metric throw.
 */
function cleanSeries(points: { t: number; v: number }[], endS?: number): Series | null {
  const byT = new Map<number, number>();
  for (const p of points) if (Number.isFinite(p.t) && Number.isFinite(p.v)) byT.set(p.t, p.v);
  const ts = [...byT.keys()].sort((a, b) => a - b);
  if (ts.length < 2) return null;
  const last = ts[ts.length - 1] as number;
  return series(
    ts,
    ts.map((t) => byT.get(t) as number),
    endS !== undefined && endS > last ? endS : undefined,
  );
}

/** A flow's goodput series: the receiver-side sampler's when it has one, iperf3's intervals otherwise. */
export function goodputSeries(flow: FlowTopology, samples: Sample[]): Series | null {
  const fine = samples.filter(
    (s): s is GoodputSample => s.kind === 'goodput' && s.flow === flow.name && s.t >= 0,
  );
  if (fine.length >= 2) return cleanSeries(fine.map((s) => ({ t: s.t, v: s.bps })));
  const coarse = samples.filter(
    (s): s is IntervalSample => s.kind === 'interval' && s.flow === flow.name && s.goodputBps !== null,
  );
  // iperf3 stamps an interval at its end; the series holds each value from the interval's start.
  return cleanSeries(
    coarse.map((s) => ({ t: Math.max(0, s.t - s.seconds), v: s.goodputBps as number })),
    coarse[coarse.length - 1]?.t,
  );
}

function tcpSeries(flow: string, samples: Sample[], pick: (s: TcpFlowSample) => number): Series | null {
  const xs = tcpSamplesOf(samples, flow);
  return cleanSeries(xs.map((s) => ({ t: s.t, v: pick(s) })));
}

function flowMetrics(f: FlowTopology, samples: Sample[], intervalS: number): FlowMetrics {
  const out: MetricValue[] = [];
  const goodput = goodputSeries(f, samples);
  const startS = f.startMs / 1000;
  const endS = startS + f.durationMs / 1000;
  let recoveries = 0;
  if (goodput) {
    try {
      // Slow start the spec asked to leave out (flow `omit`) stays out of σ and σ/μ here too.
      const from = startS + (f.omitMs ?? 0) / 1000;
      // A flow that sends for less than one interval still has a mean: over all of its sending.
      const st = throughputStats(goodput, {
        intervalS: Math.min(intervalS, endS - from),
        startS: from,
        endS,
      });
      out.push(metricValue('throughput.mean', st.meanBitPerS));
      // One 5 s interval has no spread: a σ of 0 would read as perfectly steady, so none is given.
      if (st.intervals >= 2) {
        out.push(metricValue('throughput.sd', st.sdBitPerS));
        if (Number.isFinite(st.stabilityIndex))
          out.push(metricValue('stability.sigma_over_mu', st.stabilityIndex));
      }
    } catch (err) {
      if (!(err instanceof MetricInputError)) throw err;
    }
    try {
      const ramp = rampUp(goodput, { startS });
      for (const p of ramp.points) {
        const pct = Math.round(p.fraction * 100);
        if (pct === 50 || pct === 90) {
          if (Number.isFinite(p.elapsedS))
            out.push(metricValue(`rampup.time_${pct}` as MetricId, p.elapsedS));
          if (Number.isFinite(p.bytes)) out.push(metricValue(`rampup.bytes_${pct}` as MetricId, p.bytes));
        }
      }
    } catch (err) {
      if (!(err instanceof MetricInputError)) throw err;
    }
  }
  const tcp = tcpSamplesOf(samples, f.name);
  const last = tcp[tcp.length - 1];
  if (last && last.dataSegsOut > 0)
    tryMetric(out, 'retransmit.rate', () => last.retransSegments / last.dataSegsOut);
  const srtt = tcpSeries(f.name, samples, (s) => s.srttMs);
  if (srtt) {
    try {
      const r = rttStats(srtt, { fromS: startS, toS: endS });
      out.push(metricValue('rtt.mean', r.meanMs), metricValue('rtt.sd', r.sdMs));
    } catch (err) {
      if (!(err instanceof MetricInputError)) throw err;
    }
  }
  const cwnd = tcpSeries(f.name, samples, (s) => s.cwndPackets);
  if (cwnd) {
    try {
      // Slow start's exit is a reduction too; count from the first one on.
      const events = windowRecoveries(cwnd);
      const recovered = events.slice(1).filter((e) => Number.isFinite(e.recoveryS));
      recoveries = recovered.length;
      if (recovered.length) {
        const sorted = recovered.map((e) => e.recoveryS).sort((a, b) => a - b);
        out.push(metricValue('recovery.time', sorted[Math.floor(sorted.length / 2)] as number));
      }
    } catch (err) {
      if (!(err instanceof MetricInputError)) throw err;
    }
  }
  return { flow: f.name, metrics: out, recoveries };
}

/**
 * A UDP source's rate as a series: its sink stamps each report at the report's end, so each value
 * holds from the report before it (the first from one report length earlier).
 */
function udpSeries(source: string, samples: Sample[]): Series | null {
  const xs = samples
    .filter((s): s is UdpSample => s.kind === 'udp' && s.source === source && Number.isFinite(s.t))
    .sort((a, b) => a.t - b.t);
  if (xs.length < 2) return null;
  const first = (xs[0] as UdpSample).t - ((xs[1] as UdpSample).t - (xs[0] as UdpSample).t);
  return cleanSeries(
    xs.map((s, i) => ({ t: i === 0 ? first : (xs[i - 1] as UdpSample).t, v: s.bps })),
    (xs[xs.length - 1] as UdpSample).t,
  );
}

/**
 * One direction's flows and its cross traffic added up, over the intervals every flow sent in after
 * its `omit`: the same intervals as a single flow's own mean and stability index, so they compare
 * directly (seed 000 §4.5). Null without cross traffic in that direction.
 */
function aggregateLoad(
  spec: Spec,
  path: PathTopology,
  direction: 'forward' | 'reverse',
  withSeries: { f: FlowTopology; s: Series }[],
  samples: Sample[],
  intervalS: number,
): ThroughputStats | null {
  const cross = (spec.paths[path.name]?.cross ?? []).filter((c) => c.direction === direction);
  const udp = cross.map((c) => udpSeries(c.name, samples));
  if (udp.length === 0 || udp.some((s) => s === null)) return null;
  const fromS = Math.max(...withSeries.map((x) => (x.f.startMs + (x.f.omitMs ?? 0)) / 1000));
  const toS = Math.min(...withSeries.map((x) => (x.f.startMs + x.f.durationMs) / 1000));
  try {
    return aggregateThroughputStats([...withSeries.map((x) => x.s), ...(udp as Series[])], {
      intervalS: Math.min(intervalS, toS - fromS),
      startS: fromS,
      endS: toS,
    });
  } catch (err) {
    if (err instanceof MetricInputError) return null;
    throw err;
  }
}

function groupMetrics(
  spec: Spec,
  path: PathTopology,
  direction: 'forward' | 'reverse',
  flows: FlowTopology[],
  samples: Sample[],
  intervalS: number,
): GroupMetrics | null {
  const withSeries = flows
    .map((f) => ({ f, s: goodputSeries(f, samples) }))
    .filter((x): x is { f: FlowTopology; s: Series } => x.s !== null);
  if (withSeries.length === 0) return null;
  const rate = direction === 'forward' ? spec.paths[path.name]?.rate : spec.paths[path.name]?.reverse.rate;
  const runS = spec.duration / 1000;
  const out: MetricValue[] = [];
  const all = withSeries.map((x) => x.s);
  const load = aggregateLoad(spec, path, direction, withSeries, samples, intervalS);
  if (load) {
    out.push(metricValue('throughput.aggregate', load.meanBitPerS));
    // One interval has no spread: a σ/μ of 0 would read as perfectly level.
    if (load.intervals >= 2 && Number.isFinite(load.stabilityIndex))
      out.push(metricValue('stability.aggregate', load.stabilityIndex));
  }
  if (withSeries.length >= 2) {
    tryMetric(out, 'jain.whole', () => jainWholeRun(all, runS));
    tryMetric(out, 'jain.second_half', () => jainSecondHalf(all, runS));
  }
  if (rate) {
    const means = (() => {
      try {
        return meanThroughputs(all, 0, runS);
      } catch (err) {
        if (err instanceof MetricInputError) return null;
        throw err;
      }
    })();
    if (means) {
      const e = efficiency(means, rate);
      out.push(metricValue('efficiency', e));
      const jain = out.find((m) => m.id === 'jain.whole')?.value;
      if (jain !== undefined)
        tryMetric(out, 'performance.score', () => performanceScore(e, jain, DEFAULT_PERFORMANCE_ALPHA));
      if (means.length === 2)
        tryMetric(out, 'asymmetry', () => asymmetry(means[0] as number, means[1] as number));
    }
  }
  const starts = [...new Set(withSeries.map((x) => x.f.startMs))];
  const g: GroupMetrics = {
    path: path.name,
    direction,
    flows: withSeries.map((x) => x.f.name),
    metrics: out,
  };
  if (starts.length > 1 && rate) {
    try {
      g.activeSets = fairnessByActiveSet(
        withSeries.map((x) => ({
          throughputBitPerS: x.s,
          startS: x.f.startMs / 1000,
          stopS: (x.f.startMs + x.f.durationMs) / 1000,
        })),
        rate,
        runS,
      ).map((a) => ({
        fromS: a.fromS,
        toS: a.toS,
        flows: a.active.map((i) => withSeries[i]?.f.name ?? '?'),
        jain: a.jain,
        efficiency: a.efficiency,
        performance: a.performance,
      }));
    } catch (err) {
      if (!(err instanceof MetricInputError)) throw err;
    }
    const first = Math.min(...starts);
    for (const late of withSeries.filter((x) => x.f.startMs > first)) {
      const incumbents = withSeries.filter((x) => x.f.startMs < late.f.startMs).map((x) => x.s);
      tryMetric(
        out,
        'convergence.time',
        () => convergenceTime(late.s, incumbents, { lateStartS: late.f.startMs / 1000 }).convergenceTimeS,
      );
    }
  }
  return g;
}

function theory(spec: Spec, p: PathTopology, flows: FlowTopology[], samples: Sample[]): MetricValue[] {
  const path = spec.paths[p.name];
  if (!path) return [];
  const mss = mssFor(spec.mtu);
  const out: MetricValue[] = [metricValue('theory.bdp_bytes', p.bdpBytes)];
  tryMetric(out, 'theory.bdp_packets', () => bdpPackets(path.rate, path.rtt / 1000, p.frameBytes));
  out.push(metricValue('theory.per', p.per.fullFrame));
  tryMetric(out, 'responsiveness', () =>
    responsivenessS({ capacityBitPerS: path.rate, rttS: path.rtt / 1000, mssBytes: mss }),
  );
  const n = flows.filter((f) => f.path === p.name && f.direction === 'forward').length;
  if (n > 0) tryMetric(out, 'theory.n_flow_link_use', () => nFlowLinkUse(n));
  // Mathis at the loss the forward flows saw: lost segments over segments sent.
  const lasts = flows
    .filter((f) => f.path === p.name && f.direction === 'forward')
    .map((f) => tcpSamplesOf(samples, f.name).pop())
    .filter((s): s is TcpFlowSample => s !== undefined);
  const sent = lasts.reduce((a, s) => a + s.dataSegsOut, 0);
  const lost = lasts.reduce((a, s) => a + s.retransSegments, 0);
  if (sent > 0 && lost > 0)
    tryMetric(out, 'theory.mathis_throughput', () =>
      mathisThroughputBitPerS(mss, path.rtt / 1000, lost / sent),
    );
  return out;
}

export function runMetrics(
  spec: Spec,
  paths: PathTopology[],
  flows: FlowTopology[],
  samples: Sample[],
): RunMetrics {
  const intervalS = 5; // seed 000's averaging interval
  const groups: GroupMetrics[] = [];
  for (const p of paths) {
    for (const d of ['forward', 'reverse'] as const) {
      const g = groupMetrics(
        spec,
        p,
        d,
        flows.filter((f) => f.path === p.name && f.direction === d),
        samples,
        intervalS,
      );
      if (g) groups.push(g);
    }
  }
  return {
    flows: flows.map((f) => flowMetrics(f, samples, intervalS)),
    groups,
    theory: paths.map((p) => ({ path: p.name, metrics: theory(spec, p, flows, samples) })),
  };
}
