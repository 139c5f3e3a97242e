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
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { ApiError } from '../api/client';
import { keys, useReplay, useRun, useStopRun } from '../api/queries';
import type { LiveSample, Run } from '../api/types';
import { NotFound } from '../app/NotFound';
import { hrefOf } from '../app/router';
import { fmtDuration } from '../lib/format';
import { QueuePanel } from '../queue/QueuePanel';
import { LabelText } from '../runs/LabelText';
import { RunStatusBadge } from '../runs/RunStatusBadge';
import { runTitle } from '../runs/runTitle';
import { chartReferences } from './chartReferences';
import { EventsList } from './EventsList';
import { LiveCharts } from './LiveCharts';
import { LiveModel } from './liveModel';
import { connectLive } from './liveSocket';
import { stylesOfRun } from './runStyles';
import { useThrottledVersion } from './useThrottled';

const ENDED = new Set<Run['status']>(['completed', 'failed', 'aborted']);

export function LivePage({ runId }: { runId: string }) {
  // One model per run (the page is also keyed by run id).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runId identifies the model
  const model = useMemo(() => new LiveModel(), [runId]);
  const [socketState, setSocketState] = useState<'connecting' | 'open' | 'closed'>('connecting');
  const run = useRun(runId, (q) => (!q.state.data || ENDED.has(q.state.data.status) ? false : 2000));
  const stop = useStopRun();
  const qc = useQueryClient();
  useThrottledVersion(model.subscribe, model.getVersion, 250);
  const known = run.isSuccess;

  useEffect(() => {
    // Only for a run that exists: the socket of an unknown id would retry for ever.
    if (!known) return;
    const conn = connectLive(runId, model, { onState: setSocketState });
    return () => conn.close();
  }, [runId, model, known]);

  // The socket says "done" before the run record is final: fetch it once more then.
  const refetchRun = run.refetch;
  useEffect(() => {
    if (model.done) void refetchRun();
  }, [model.done, refetchRun]);

  // The header's lab badge follows the run at once (not at its next poll) when it starts or ends.
  const status = run.data?.status;
  useEffect(() => {
    if (status) void qc.invalidateQueries({ queryKey: keys.labs });
  }, [status, qc]);

  const spec = run.data?.spec;
  const styleOf = useMemo(() => stylesOfRun(spec), [spec]);
  const references = useMemo(() => chartReferences(spec), [spec]);

  const finished = model.done || (status !== undefined && ENDED.has(status));
  // The socket's "started" arrives before the next poll of the run: charts from that moment.
  const started = model.events.some((e) => e.kind === 'started');
  const queued = status === 'queued' && !model.done && !started;
  // An old run has no live window: draw its recorded samples instead of four empty charts.
  const needReplay = finished && model.caughtUp && !model.hasData && !model.replayed;
  const replay = useReplay(runId, needReplay);
  useEffect(() => {
    if (replay.data && !model.replayed) model.replay(replay.data.samples as unknown as LiveSample[]);
  }, [replay.data, model]);

  if (run.error instanceof ApiError && run.error.status === 404) return <NotFound what="run" id={runId} />;
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
          <Title order={2}>
            Live: <LabelText text={run.data ? runTitle(run.data) : runId} />
          </Title>
          {status && <RunStatusBadge status={status} />}
          {!queued && (
            <Badge
              variant="outline"
              color={socketState === 'open' && !finished ? 'teal' : 'gray'}
              aria-label={`live connection ${socketState}`}
            >
              {model.replayed
                ? 'recorded samples'
                : finished
                  ? 'stream ended'
                  : socketState === 'open'
                    ? 'streaming'
                    : socketState}
            </Badge>
          )}
        </Group>
        <Group gap="xs">
          {finished ? (
            <Button component="a" href={hrefOf({ page: 'results', runId })}>
              See results
            </Button>
          ) : run.data ? (
            <Button color="red" variant="filled" onClick={() => stop.mutate(runId)} loading={stop.isPending}>
              {queued ? 'Leave the queue' : 'Stop run'}
            </Button>
          ) : null}
        </Group>
      </Group>
      {queued && run.data && <QueuePanel run={run.data} />}
      {!queued && (
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
      )}
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
          {queued ? (
            <Text c="dimmed" size="sm">
              Throughput, congestion window, RTT and queue charts appear here when the run starts.
            </Text>
          ) : (
            <LiveCharts model={model} styleOf={styleOf} references={references} />
          )}
          {replay.error && (
            <Alert color="red" mt="xs">
              The recorded samples could not be loaded: {replay.error.message}
            </Alert>
          )}
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
