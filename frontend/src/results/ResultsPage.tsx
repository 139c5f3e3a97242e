import { Alert, Anchor, Button, Grid, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { ApiError } from '../api/client';
import { useRun, useRunRecord, useSummary } from '../api/queries';
import { NotFound } from '../app/NotFound';
import { hrefOf } from '../app/router';
import { fmtDate, fmtDuration } from '../lib/format';
import { LabelText } from '../runs/LabelText';
import { RunStatusBadge } from '../runs/RunStatusBadge';
import { runTitle } from '../runs/runTitle';
import { MetricsTable } from './MetricsTable';
import { ProvenanceCard } from './ProvenanceCard';
import { RunActions } from './RunActions';
import { RunCharts } from './RunCharts';
import { FlowSummaryTable, PathSummaryTable } from './SummaryTables';
import { VerdictCard } from './VerdictCard';

export function ResultsPage({ runId }: { runId: string }) {
  const run = useRun(runId, (q) =>
    q.state.data?.status === 'running' || q.state.data?.status === 'queued' ? 2000 : false,
  );
  const finished = run.data && !['running', 'queued'].includes(run.data.status);
  const summary = useSummary(runId, Boolean(finished));
  // Written when the lab was set up; a run that failed before that has none (the card stays away).
  const record = useRunRecord(runId, Boolean(finished));

  if (run.error instanceof ApiError && run.error.status === 404) return <NotFound what="run" id={runId} />;
  if (run.isPending) return <Loader aria-label="Loading run" />;
  if (run.error) return <Alert color="red">{run.error.message}</Alert>;
  const r = run.data;
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <div>
          <Group gap="sm">
            <Title order={2}>
              Results: <LabelText text={runTitle(r)} />
            </Title>
            <RunStatusBadge status={r.status} />
          </Group>
          <Text size="sm" c="dimmed">
            {r.owner} · {fmtDate(r.startedAt ?? r.createdAt)} · {fmtDuration(r.progress?.totalS)} · stacks{' '}
            {r.stacks.join(', ')}
            {r.preset ? ` · preset ${r.preset}` : ''}
            {r.partial ? ' · partial (stopped early)' : ''}
          </Text>
        </div>
        <Button component="a" variant="default" href={hrefOf({ page: 'compare', runIds: [runId] })}>
          Compare with…
        </Button>
      </Group>
      {!finished && (
        <Alert color="blue">
          The run is still {r.status}. <Anchor href={hrefOf({ page: 'live', runId })}>Watch it live</Anchor>.
        </Alert>
      )}
      {r.error && (
        <Alert color="red" title="Run error">
          {r.error}
        </Alert>
      )}
      {summary.isPending && finished && <Loader aria-label="Loading summary" />}
      {summary.error && <Alert color="red">Summary: {summary.error.message}</Alert>}
      <RunActions run={r} />
      {summary.data && (
        <Grid gap="md">
          {/* Full width: beside the verdict the flow table hid its RTT column at 1440 px. */}
          <Grid.Col span={12}>
            <Stack gap="md">
              <FlowSummaryTable summary={summary.data} />
              <PathSummaryTable summary={summary.data} />
            </Stack>
          </Grid.Col>
          <Grid.Col span={12}>
            <RunCharts run={r} />
          </Grid.Col>
          <Grid.Col span={12}>
            <VerdictCard summary={summary.data} />
          </Grid.Col>
          <Grid.Col span={12}>
            <MetricsTable summary={summary.data} />
          </Grid.Col>
          {record.data?.environment && (
            <Grid.Col span={12}>
              <ProvenanceCard environment={record.data.environment} />
            </Grid.Col>
          )}
        </Grid>
      )}
    </Stack>
  );
}
