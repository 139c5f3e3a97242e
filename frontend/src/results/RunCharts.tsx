// A finished run's throughput, cwnd, RTT and queue charts, replayed from its recorded samples
// through the live page's own model and charts, with capacity and buffer lines.
import { Alert, Loader, Paper, Text, Title } from '@mantine/core';
import { useEffect, useMemo } from 'react';
import { useReplay } from '../api/queries';
import type { LiveSample, Run } from '../api/types';
import { chartReferences } from '../live/chartReferences';
import { LiveCharts } from '../live/LiveCharts';
import { LiveModel } from '../live/liveModel';
import { stylesOfRun } from '../live/runStyles';
import { useThrottledVersion } from '../live/useThrottled';

export function RunCharts({ run }: { run: Run }) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: one model per run
  const model = useMemo(() => new LiveModel(), [run.id]);
  const replay = useReplay(run.id, true);
  useThrottledVersion(model.subscribe, model.getVersion, 250);
  useEffect(() => {
    if (replay.data && !model.replayed) model.replay(replay.data.samples as unknown as LiveSample[]);
  }, [replay.data, model]);
  const styleOf = useMemo(() => stylesOfRun(run.spec), [run.spec]);
  const references = useMemo(() => chartReferences(run.spec), [run.spec]);
  return (
    <Paper withBorder p="sm" radius="md" data-testid="run-charts">
      <Title order={3} size="h5" mb={4}>
        Over time
      </Title>
      <Text size="xs" c="dimmed" mb="xs">
        From the run's recorded samples
        {replay.data ? ` (${replay.data.samples.length} of ${replay.data.recorded} drawn)` : ''}. Hover for
        values; drag across a chart to zoom in. Line colour is the stack (the same in the HTML report); a
        second flow of one stack is dashed.
      </Text>
      {replay.isPending && <Loader size="sm" aria-label="Loading the run's samples" />}
      {replay.error && (
        <Alert color="red">The recorded samples could not be loaded: {replay.error.message}</Alert>
      )}
      {replay.data && <LiveCharts model={model} styleOf={styleOf} references={references} />}
    </Paper>
  );
}
