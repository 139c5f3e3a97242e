// Campaigns: runs started together from a campaign file or a preset share `campaign` (the service
// queues one run per variant). Progress counts those runs; "resume" queues again those that
// failed or were stopped (their specs, one by one); the collected table is stack × path × window.
import { Alert, Badge, Button, Group, Paper, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { useQueries } from '@tanstack/react-query';
import { stringify } from 'yaml';
import { get } from '../api/client';
import { keys, useRuns, useSpecs, useStartRun, useStopRun } from '../api/queries';
import type { Run, RunSummary } from '../api/types';
import { hrefOf } from '../app/router';
import { StackPathWindowTable } from '../compare/PaperTables';
import { stackPathWindowTable } from '../compare/paperTables';
import { toSpecInput } from '../lib/specInput';
import { variantTitle } from '../runs/runTitle';
import { CampaignRuns } from './CampaignRuns';

function CampaignGroup({ campaign, runs }: { campaign: string; runs: Run[] }) {
  const start = useStartRun();
  const stop = useStopRun();
  const done = runs.filter((r) => r.status === 'completed').length;
  // One lab runs one experiment at a time: "running" is only the run that has it.
  const running = runs.filter((r) => r.status === 'running').length;
  const queued = runs.filter((r) => r.status === 'queued');
  const nextUp = queued.reduce<Run | null>(
    (best, r) => (r.queue && (!best?.queue || r.queue.position < best.queue.position) ? r : best),
    null,
  );
  const failed = runs.filter((r) => r.status === 'failed' || r.status === 'aborted').length;
  const completed = runs.filter((r) => r.status === 'completed');
  const unfinished = runs.filter((r) => r.status === 'failed' || r.status === 'aborted');
  const pending = runs.filter((r) => r.status === 'running' || r.status === 'queued');
  const stopRest = async () => {
    for (const r of pending) await stop.mutateAsync(r.id);
  };
  const resume = async () => {
    for (const r of unfinished) await start.mutateAsync({ text: stringify(toSpecInput(r.spec)) });
  };
  const summaries = useQueries({
    queries: completed.map((r) => ({
      queryKey: keys.summary(r.id),
      queryFn: () => get<RunSummary>(`/api/runs/${encodeURIComponent(r.id)}/summary`),
    })),
  });
  const results = completed.flatMap((r, k) => {
    const s = summaries[k]?.data;
    return s ? [{ id: r.id, name: variantTitle(r), spec: r.spec, summary: s }] : [];
  });
  return (
    <Paper withBorder p="sm" radius="md">
      <Group justify="space-between" mb="xs">
        <Title order={3} size="h4">
          {campaign}
        </Title>
        <Group gap="xs">
          <Badge color="teal">{done} done</Badge>
          {running > 0 && (
            <Badge color="blue" data-testid="campaign-running">
              {running} running
            </Badge>
          )}
          {queued.length > 0 && (
            <Badge color="gray" variant="light" data-testid="campaign-queued">
              {queued.length} queued{nextUp?.queue ? ` · next ${nextUp.queue.ahead} ahead` : ''}
            </Badge>
          )}
          {failed > 0 && <Badge color="red">{failed} failed/stopped</Badge>}
          {pending.length > 0 && (
            <Button
              size="xs"
              color="red"
              variant="light"
              loading={stop.isPending}
              onClick={() => void stopRest()}
            >
              Stop the rest ({pending.length})
            </Button>
          )}
          <Button
            size="xs"
            variant="light"
            loading={start.isPending}
            disabled={unfinished.length === 0}
            onClick={() => void resume()}
          >
            Resume ({unfinished.length})
          </Button>
          <Button
            size="xs"
            variant="default"
            component="a"
            href={hrefOf({ page: 'compare', runIds: completed.map((r) => r.id) })}
          >
            Compare all
          </Button>
        </Group>
      </Group>
      <Progress
        value={runs.length ? (100 * done) / runs.length : 0}
        aria-label={`${campaign}: ${done} of ${runs.length} runs done`}
        mb="xs"
      />
      {start.error && <Alert color="red">{start.error.message}</Alert>}
      <CampaignRuns campaign={campaign} runs={runs} />
      {results.length > 0 && <StackPathWindowTable table={stackPathWindowTable(results)} />}
    </Paper>
  );
}

export function CampaignsPage() {
  const runs = useRuns();
  const specs = useSpecs();
  const groups = new Map<string, Run[]>();
  for (const r of runs.data ?? []) {
    const key = r.campaign ?? null;
    if (key) groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const campaignFiles = (specs.data ?? []).filter((s) => s.kind === 'campaign');
  return (
    <Stack>
      <Title order={2}>Campaigns</Title>
      <Text size="sm" c="dimmed">
        A campaign is a base spec × varied fields × repetitions, one run each. Campaign and preset launches
        are grouped here with their progress and the table collected so far.
      </Text>
      {runs.error && <Alert color="red">{runs.error.message}</Alert>}
      {groups.size === 0 && <Text c="dimmed">No campaign runs yet: launch one from Paper presets.</Text>}
      {[...groups.entries()].map(([campaign, rs]) => (
        <CampaignGroup key={campaign} campaign={campaign} runs={rs} />
      ))}
      <Title order={3} size="h4">
        Stored campaign files
      </Title>
      {campaignFiles.length === 0 ? (
        <Text c="dimmed" size="sm">
          None saved.
        </Text>
      ) : (
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Owner</Table.Th>
              <Table.Th>Updated</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {campaignFiles.map((s) => (
              <Table.Tr key={s.id}>
                <Table.Td>{s.name}</Table.Td>
                <Table.Td>{s.owner}</Table.Td>
                <Table.Td>{s.updatedAt}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
