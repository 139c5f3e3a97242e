// The live run's four charts: what the live page shows and what the chart benchmark times, so the
// benchmark measures exactly what users see.
import { SimpleGrid } from '@mantine/core';
import type { SeriesStyle } from '../lib/colors';
import type { ReferenceLine } from './chartReferences';
import type { ChartId, LiveModel } from './liveModel';
import { TimeSeriesChart } from './TimeSeriesChart';

interface ChartSpec {
  id: ChartId;
  title: string;
  /** Axis label with its unit (the model keeps each chart in this unit). */
  yLabel: string;
}

export const LIVE_CHARTS: readonly ChartSpec[] = [
  { id: 'throughput', title: 'Throughput per flow', yLabel: 'Goodput (Mbit/s)' },
  { id: 'cwnd', title: 'Congestion window per flow', yLabel: 'cwnd (packets)' },
  { id: 'rtt', title: 'RTT per flow and probe', yLabel: 'RTT (ms)' },
  { id: 'queue', title: 'Bottleneck queue occupancy', yLabel: 'Backlog (packets)' },
];

/** Redraws of the charts are staggered by this much, so they do not all land in one frame. */
const PHASE_STEP_MS = 50;

export function LiveCharts({
  model,
  styleOf,
  references = {},
}: {
  model: LiveModel;
  styleOf: (name: string) => SeriesStyle;
  references?: Partial<Record<ChartId, ReferenceLine[]>>;
}) {
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="sm">
      {LIVE_CHARTS.map((c, i) => (
        <TimeSeriesChart
          key={c.id}
          title={c.title}
          yLabel={c.yLabel}
          series={model.charts[c.id]}
          styleOf={styleOf}
          references={references[c.id]}
          phaseMs={i * PHASE_STEP_MS}
          subscribe={model.subscribe}
        />
      ))}
    </SimpleGrid>
  );
}
