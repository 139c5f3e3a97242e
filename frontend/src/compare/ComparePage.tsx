// Compare runs: pick runs (or all runs of a preset), overlay their time series, and read them in
// the papers' table layouts with the published numbers beside ours.
import {
  Alert,
  Button,
  Group,
  Loader,
  MultiSelect,
  ScrollArea,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useQueries, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { get } from '../api/client';
import { keys, useRuns } from '../api/queries';
import type { Run, RunSummary } from '../api/types';
import { hrefOf, navigate } from '../app/router';
import { FlowNumberCells, num, TableHead, TablePanel } from '../lib/tables';
import { TimeSeriesChart } from '../live/TimeSeriesChart';
import { VerdictBadge } from '../runs/RunStatusBadge';
import { loadOverlay } from './overlay';
import { AsymmetryTable, StackPathWindowTable } from './PaperTables';
import { PublishedNumbers } from './PublishedNumbers';
import { asymmetryMatrix, type RunResult, stackPathWindowTable } from './paperTables';

const noSubscribe = () => () => {};
const shortId = (id: string) => id.slice(-4);

export function ComparePage({ runIds }: { runIds: string[] }) {
  const runs = useRuns({}, 10000);
  const finished = (runs.data ?? []).filter((r) => r.status === 'completed' || r.status === 'aborted');
  const byId = new Map((runs.data ?? []).map((r) => [r.id, r]));
  const presets = [...new Set(finished.map((r) => r.preset).filter((p): p is string => Boolean(p)))];

  const summaries = useQueries({
    queries: runIds.map((id) => ({
      queryKey: keys.summary(id),
      queryFn: () => get<RunSummary>(`/api/runs/${encodeURIComponent(id)}/summary`),
    })),
  });
  const details = useQueries({
    queries: runIds.map((id) => ({
      queryKey: keys.run(id),
      queryFn: () => get<Run>(`/api/runs/${encodeURIComponent(id)}`),
    })),
  });

  const results: RunResult[] = runIds.flatMap((id, k) => {
    const summary = summaries[k]?.data;
    const run = details[k]?.data ?? byId.get(id);
    return summary && run ? [{ id, name: `${run.name} #${shortId(id)}`, spec: run.spec, summary }] : [];
  });
  // Run names repeat (re-runs, campaign variants): the id's random tail tells them apart.
  const labelled = runIds.map((id, k) => ({
    id,
    label: `${details[k]?.data?.name ?? 'run'} #${shortId(id)}`,
  }));
  const detailsReady = details.every((d) => d.data);
  const overlay = useQuery({
    queryKey: ['overlay', runIds],
    queryFn: () => loadOverlay(labelled),
    enabled: detailsReady && runIds.length > 0 && runIds.length <= 8,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const names = useMemo(() => overlay.data?.throughput.names ?? [], [overlay.data]);
  const colorIndex = useMemo(() => (n: string) => Math.max(0, names.indexOf(n)), [names]);
  const sharedPreset =
    results.length && results.every((r) => byId.get(r.id)?.preset === byId.get(results[0]?.id ?? '')?.preset)
      ? byId.get(results[0]?.id ?? '')?.preset
      : null;

  const setRuns = (ids: string[]) => navigate({ page: 'compare', runIds: ids });

  return (
    <Stack gap="md">
      <Title order={2}>Compare runs</Title>
      <Group align="flex-end" wrap="wrap">
        <MultiSelect
          label="Runs"
          placeholder="Pick two or more finished runs"
          searchable
          w={{ base: '100%', md: 520 }}
          data={finished.map((r) => ({
            value: r.id,
            label: `${r.name} · ${r.stacks.join('/')} · #${shortId(r.id)}`,
          }))}
          value={runIds}
          onChange={setRuns}
        />
        <Select
          label="Or a preset (campaign)"
          placeholder="all its runs"
          clearable
          w={240}
          data={presets}
          value={null}
          onChange={(p) => p && setRuns(finished.filter((r) => r.preset === p).map((r) => r.id))}
        />
        <Button variant="default" disabled={runIds.length === 0} onClick={() => setRuns([])}>
          Clear
        </Button>
      </Group>
      {runIds.length === 0 && <Text c="dimmed">Pick runs above, or tick them on the Runs page.</Text>}
      {summaries.some((s) => s.isPending) && runIds.length > 0 && (
        <Loader size="sm" aria-label="Loading summaries" />
      )}
      {summaries.map(
        (s, k) => s.error && <Alert key={runIds[k]} color="red">{`${runIds[k]}: ${s.error.message}`}</Alert>,
      )}

      {results.length > 0 && (
        <TablePanel title="Side by side">
          <ScrollArea type="auto">
            <Table striped fz="sm" style={{ minWidth: 760 }} data-testid="compare-summary">
              <TableHead
                columns={[
                  'Run',
                  { label: 'Verdict', key: 'verdict', w: 100 },
                  'Flow (stack)',
                  num('Goodput mean ± σ'),
                  num('Stability σ/μ'),
                  num('Retransmits'),
                  num('RTT mean'),
                ]}
              />
              <Table.Tbody>
                {results.flatMap((r) =>
                  r.summary.flows.map((f, i) => (
                    <Table.Tr key={`${r.id}/${f.name}`}>
                      <Table.Td>
                        {i === 0 ? <a href={hrefOf({ page: 'results', runId: r.id })}>{r.name}</a> : ''}
                      </Table.Td>
                      <Table.Td>{i === 0 ? <VerdictBadge verdict={r.summary.verdict} /> : ''}</Table.Td>
                      <Table.Td>
                        {f.name} ({f.stack})
                      </Table.Td>
                      <FlowNumberCells f={f} />
                    </Table.Tr>
                  )),
                )}
              </Table.Tbody>
            </Table>
          </ScrollArea>
        </TablePanel>
      )}

      {overlay.isPending && runIds.length > 0 && <Loader size="sm" aria-label="Loading time series" />}
      {overlay.error && <Alert color="yellow">Time series unavailable: {overlay.error.message}</Alert>}
      {overlay.data && (
        <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="sm">
          <TimeSeriesChart
            title="Throughput, overlaid"
            yLabel="Goodput (Mbit/s)"
            series={overlay.data.throughput}
            colorIndex={colorIndex}
            subscribe={noSubscribe}
          />
          <TimeSeriesChart
            title="RTT, overlaid"
            yLabel="RTT (ms)"
            series={overlay.data.rtt}
            colorIndex={colorIndex}
            subscribe={noSubscribe}
          />
        </SimpleGrid>
      )}

      {results.length > 0 && (
        <SimpleGrid cols={{ base: 1, xl: 2 }} spacing="md">
          <StackPathWindowTable table={stackPathWindowTable(results)} />
          <AsymmetryTable m={asymmetryMatrix(results)} />
        </SimpleGrid>
      )}
      {sharedPreset && <PublishedNumbers presetId={sharedPreset} />}
    </Stack>
  );
}
