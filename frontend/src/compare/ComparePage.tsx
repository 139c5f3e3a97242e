// Compare runs: pick runs (or all runs of a preset), overlay their time series, and read them in
// the papers' table layouts with the published numbers beside ours.
import {
  Alert,
  Button,
  Group,
  Loader,
  MultiSelect,
  ScrollArea,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useQueries, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { get } from '../api/client';
import { keys, useRuns } from '../api/queries';
import type { Run, RunSummary } from '../api/types';
import { hrefOf, navigate } from '../app/router';
import { fmtPct } from '../lib/format';
import { FlowNumberCells, NumTd, num, TableHead, TablePanel } from '../lib/tables';
import { TimeSeriesChart } from '../live/TimeSeriesChart';
import { VerdictBadge } from '../runs/RunStatusBadge';
import { runTitle } from '../runs/runTitle';
import { type CompareMetric, loadOverlay } from './overlay';
import { AsymmetryTable, StackPathWindowTable } from './PaperTables';
import { PublishedNumbers } from './PublishedNumbers';
import { asymmetryMatrix, type RunResult, stackPathWindowTable } from './paperTables';
import { SummaryCharts } from './SummaryCharts';
import { relativeDelta } from './stats';

const noSubscribe = () => () => {};

const METRICS: { value: CompareMetric; label: string; yLabel: string }[] = [
  { value: 'throughput', label: 'Throughput', yLabel: 'Goodput (Mbit/s)' },
  { value: 'cwnd', label: 'cwnd', yLabel: 'cwnd (packets)' },
  { value: 'rtt', label: 'RTT', yLabel: 'srtt (ms)' },
  { value: 'queue', label: 'Queue', yLabel: 'Backlog (packets)' },
];
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
    return summary && run ? [{ id, name: `${runTitle(run)} #${shortId(id)}`, spec: run.spec, summary }] : [];
  });
  // Run names repeat (re-runs, campaign variants): the id's random tail tells them apart.
  const labelled = runIds.map((id, k) => {
    const run = details[k]?.data;
    return { id, label: `${run ? runTitle(run) : 'run'} #${shortId(id)}`, spec: run?.spec };
  });
  const [metric, setMetric] = useState<CompareMetric>('throughput');
  const [view, setView] = useState<'multiples' | 'overlay'>('multiples');
  const [baselineId, setBaselineId] = useState<string | null>(null);
  const baseline = results.find((r) => r.id === baselineId) ?? results[0];
  /** The baseline's mean goodput for a flow: same name, else the same stack. */
  const baselineMean = (name: string, stack: string) => {
    const fl = baseline?.summary.flows ?? [];
    return (fl.find((f) => f.name === name) ?? fl.find((f) => f.stack === stack))?.goodputMbps.mean ?? null;
  };
  const detailsReady = details.every((d) => d.data);
  const overlay = useQuery({
    queryKey: ['overlay', runIds],
    queryFn: () => loadOverlay(labelled.map((l) => ({ ...l, spec: l.spec as Run['spec'] }))),
    enabled: detailsReady && runIds.length > 0 && runIds.length <= 8,
    staleTime: Number.POSITIVE_INFINITY,
  });
  // One style function per run, kept across renders (a new function would rebuild its chart).
  const perRunStyle = useMemo(() => {
    const o = overlay.data;
    return new Map(
      (o?.perRun ?? []).map((r) => [
        r.id,
        (n: string) => o?.styleOf(`${r.label}: ${n}`) ?? { color: '#4D4D4D', dash: [] },
      ]),
    );
  }, [overlay.data]);
  const metricInfo = METRICS.find((m) => m.value === metric) ?? METRICS[0];
  // Small multiples share one y scale, so heights compare across panels.
  const sharedMax = useMemo(() => {
    let max = 0;
    for (const r of overlay.data?.perRun ?? [])
      for (const col of r.charts[metric].toColumns().slice(1))
        for (const v of col) if (typeof v === 'number' && v > max) max = v;
    return max;
  }, [overlay.data, metric]);
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
            label: `${runTitle(r)} · ${r.stacks.join('/')} · #${shortId(r.id)}`,
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

      {results.length > 1 && (
        <Select
          label="Baseline for Δ"
          w={{ base: '100%', md: 360 }}
          data={results.map((r) => ({ value: r.id, label: r.name }))}
          value={baseline?.id ?? null}
          onChange={setBaselineId}
          allowDeselect={false}
        />
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
                  num(`Δ goodput vs ${baseline ? `#${shortId(baseline.id)}` : 'baseline'}`),
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
                      <NumTd>
                        {r.id === baseline?.id
                          ? 'baseline'
                          : deltaText(relativeDelta(f.goodputMbps.mean, baselineMean(f.name, f.stack)))}
                      </NumTd>
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
        <Stack gap="xs">
          <Group gap="sm" wrap="wrap">
            <SegmentedControl
              aria-label="Metric"
              data={METRICS.map((m) => ({ value: m.value, label: m.label }))}
              value={metric}
              onChange={(v) => setMetric(v as CompareMetric)}
            />
            <SegmentedControl
              aria-label="Layout"
              data={[
                { value: 'multiples', label: 'One chart per run' },
                { value: 'overlay', label: 'Overlaid' },
              ]}
              value={view}
              onChange={(v) => setView(v as 'multiples' | 'overlay')}
            />
          </Group>
          {view === 'overlay' ? (
            <TimeSeriesChart
              title={`${metricInfo?.label}, overlaid (colour: stack, dashes: run)`}
              yLabel={metricInfo?.yLabel ?? ''}
              series={overlay.data.overlaid[metric]}
              styleOf={overlay.data.styleOf}
              subscribe={noSubscribe}
              height={280}
            />
          ) : (
            <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }} spacing="sm" data-testid="small-multiples">
              {overlay.data.perRun.map((r) => (
                <TimeSeriesChart
                  key={r.id}
                  title={`${r.label}: ${metricInfo?.label}`}
                  yLabel={metricInfo?.yLabel ?? ''}
                  series={r.charts[metric]}
                  styleOf={perRunStyle.get(r.id) ?? overlay.data.styleOf}
                  yMax={sharedMax}
                  subscribe={noSubscribe}
                  height={180}
                />
              ))}
            </SimpleGrid>
          )}
          <SummaryCharts runs={overlay.data.perRun} styleOf={overlay.data.styleOf} />
        </Stack>
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

const deltaText = (d: number | null) =>
  d === null ? '—' : `${d > 0 ? '+' : d < 0 ? '−' : '±'}${fmtPct(Math.abs(d))}`;
