// Live run: per-flow throughput, cwnd and RTT, the bottleneck queue, progress, events and stop.
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Grid,
  Group,
  Paper,
  Progress,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useRun, useStopRun } from '../api/queries';
import { hrefOf } from '../app/router';
import { fmtDuration } from '../lib/format';
import { RunStatusBadge } from '../runs/RunStatusBadge';
import { EventsList } from './EventsList';
import { LiveCharts } from './LiveCharts';
import { LiveModel } from './liveModel';
import { connectLive } from './liveSocket';
import { useThrottledVersion } from './useThrottled';

export function LivePage({ runId }: { runId: string }) {
  // One model per run (the page is also keyed by run id).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runId identifies the model
  const model = useMemo(() => new LiveModel(), [runId]);
  const [socketState, setSocketState] = useState<'connecting' | 'open' | 'closed'>('connecting');
  const run = useRun(runId, model.done ? false : 2000);
  const stop = useStopRun();
  useThrottledVersion(model.subscribe, model.getVersion, 250);

  useEffect(() => {
    const conn = connectLive(runId, model, { onState: setSocketState });
    return () => conn.close();
  }, [runId, model]);

  // The socket says "done" before the run record is final: fetch it once more then.
  const refetchRun = run.refetch;
  useEffect(() => {
    if (model.done) void refetchRun();
  }, [model.done, refetchRun]);

  // Flows keep the colour of their position in the spec; other series (probes, queues) follow.
  const flowNames = run.data?.spec.flows.map((f) => f.name) ?? [];
  const flowKey = flowNames.join(',');
  // biome-ignore lint/correctness/useExhaustiveDependencies: flowKey stands for flowNames
  const colorIndex = useCallback(
    (name: string) => {
      const i = flowNames.indexOf(name);
      return i >= 0 ? i : flowNames.length + (name.length % 7);
    },
    [flowKey],
  );

  const status = run.data?.status;
  const finished = model.done || status === 'completed' || status === 'failed' || status === 'aborted';
  const progress = model.progress ?? run.data?.progress ?? null;
  const pct =
    progress && progress.totalS > 0 ? Math.min(100, (100 * progress.elapsedS) / progress.totalS) : 0;
  // Elapsed and total are lab seconds; under a dilated clock the wall time left is the lab's
  // seconds left at its measured pace.
  const remaining = progress ? (progress.etaS ?? Math.max(0, progress.totalS - progress.elapsedS)) : null;
  const pace = progress?.dilation ? ` · lab clock ${progress.dilation.toFixed(2)}× wall time` : '';

  return (
    <Stack gap="sm">
      <Group justify="space-between" wrap="wrap">
        <Group gap="sm">
          <Title order={2}>Live: {run.data?.name ?? runId}</Title>
          {status && <RunStatusBadge status={status} />}
          <Badge
            variant="outline"
            color={socketState === 'open' ? 'teal' : 'gray'}
            aria-label={`live connection ${socketState}`}
          >
            {model.done ? 'stream ended' : socketState === 'open' ? 'streaming' : socketState}
          </Badge>
        </Group>
        <Group gap="xs">
          {finished ? (
            <Button component="a" href={hrefOf({ page: 'results', runId })}>
              See results
            </Button>
          ) : (
            <Button color="red" variant="filled" onClick={() => stop.mutate(runId)} loading={stop.isPending}>
              Stop run
            </Button>
          )}
        </Group>
      </Group>
      <Paper withBorder p="xs" radius="md">
        <Group justify="space-between" mb={4}>
          <Text size="sm">
            Elapsed {fmtDuration(progress?.elapsedS ?? 0)} of {fmtDuration(progress?.totalS ?? null)} (lab
            time)
            {pace}
          </Text>
          <Text size="sm" data-testid="remaining">
            Remaining {finished ? fmtDuration(0) : fmtDuration(remaining)}
          </Text>
        </Group>
        <Progress value={finished ? 100 : pct} aria-label="Run progress" size="lg" animated={!finished} />
      </Paper>
      {run.data?.campaign && (
        <Text size="sm">
          Part of campaign {run.data.campaign} (one run per variant, queued one after another):{' '}
          <Anchor href={hrefOf({ page: 'campaigns' })}>its progress</Anchor>.
        </Text>
      )}
      {run.data?.error && (
        <Alert color="red" title="The run failed">
          {run.data.error}
        </Alert>
      )}
      {stop.error && <Alert color="red">{stop.error.message}</Alert>}
      <Grid gap="sm">
        <Grid.Col span={{ base: 12, lg: 9 }}>
          <LiveCharts model={model} colorIndex={colorIndex} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 3 }}>
          <EventsList events={model.events} />
          <Text size="xs" c="dimmed" mt="xs">
            Charts show bucket means (at most 1024 per series), at most 10 points per second from the service.
            Full-rate data is in the run's record;{' '}
            <Anchor href={hrefOf({ page: 'results', runId })}>results</Anchor> when it ends.
          </Text>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
