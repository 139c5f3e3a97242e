// Finished runs' time series for Compare, from each run's recorded samples (GET .../samples):
// overlaid series (a flow's stack colour, dashed by run), one series set per run for small
// multiples, and each flow's goodput and RTT values for the bar, box and CDF summaries.
import { get } from '../api/client';
import type { ReplayedSamples, Run } from '../api/types';
import { runFlowStyle, type SeriesStyle } from '../lib/colors';
import { BucketSeries } from '../live/bucketSeries';
import { runFlows } from '../live/runStyles';

export type CompareMetric = 'throughput' | 'cwnd' | 'rtt' | 'queue';

export interface RunSeries {
  id: string;
  label: string;
  charts: Record<CompareMetric, BucketSeries>;
  /** Per flow: goodput samples (Mbit/s) and srtt samples (ms), for distributions. */
  flows: { name: string; stack: string; goodputMbps: number[]; rttMs: number[] }[];
}

export interface Overlay {
  overlaid: Record<CompareMetric, BucketSeries>;
  perRun: RunSeries[];
  styleOf: (series: string) => SeriesStyle;
}

const charts = (cap: number): Record<CompareMetric, BucketSeries> => ({
  throughput: new BucketSeries(cap),
  cwnd: new BucketSeries(cap),
  rtt: new BucketSeries(cap),
  queue: new BucketSeries(cap),
});

export async function loadOverlay(
  runs: { id: string; label: string; spec: Run['spec'] }[],
): Promise<Overlay> {
  const overlaid = charts(2048);
  const styles = new Map<string, SeriesStyle>();
  const replays = await Promise.all(
    runs.map((r) => get<ReplayedSamples>(`/api/runs/${encodeURIComponent(r.id)}/samples`)),
  );
  const perRun = replays.map((x, k): RunSeries => {
    const run = runs[k] as (typeof runs)[number];
    const own = charts(1024);
    const flows = runFlows(run.spec).map((f) => ({
      ...f,
      goodputMbps: [] as number[],
      rttMs: [] as number[],
    }));
    const flowOf = (name: string) => flows.find((f) => f.name === name || name.startsWith(`${f.name}-`));
    const add = (metric: CompareMetric, t: number, name: string, v: number, stack: string | null) => {
      const key = `${run.label}: ${name}`;
      overlaid[metric].add(t, key, v);
      own[metric].add(t, name, v);
      if (!styles.has(key))
        styles.set(key, stack ? runFlowStyle(stack, k) : { color: '#000000', dash: k ? [6, 3] : [] });
    };
    for (const s of x.samples as unknown as Array<Record<string, unknown> & { kind: string; t: number }>) {
      if (s.kind === 'goodput') {
        const f = flowOf(String(s.flow));
        const v = Number(s.bps) / 1e6;
        add('throughput', s.t, String(s.flow), v, f?.stack ?? null);
        f?.goodputMbps.push(v);
      } else if (s.kind === 'tcp') {
        const f = flowOf(String(s.flow));
        add('cwnd', s.t, String(s.flow), Number(s.cwndPackets), f?.stack ?? null);
        add('rtt', s.t, String(s.flow), Number(s.srttMs), f?.stack ?? null);
        f?.rttMs.push(Number(s.srttMs));
      } else if (s.kind === 'queue')
        add('queue', s.t, `${s.path} ${s.direction}`, Number(s.backlogPackets), null);
    }
    return { id: run.id, label: run.label, charts: own, flows };
  });
  return { overlaid, perRun, styleOf: (n) => styles.get(n) ?? { color: '#4D4D4D', dash: [] } };
}
