// Every metric summary.json holds, with its title, unit and definition from the shared registry.
import { METRICS } from '@lfnlab/metrics/registry';
import { Paper, ScrollArea, Table, Text, Title } from '@mantine/core';
import type { MetricValue, RunSummary } from '../api/types';
import { fmt, fmtRate } from '../lib/format';

interface Def {
  title: string;
  unit: string;
  definition: string;
  source?: string;
}
const defOf = (id: string): Def | undefined => (METRICS as unknown as Record<string, Def>)[id];

export function fmtMetric(m: MetricValue): string {
  if (m.value === null) return 'not reached';
  if (m.unit === 'bit/s') return fmtRate(m.value);
  if (m.unit === 'ratio') return fmt(m.value);
  return fmt(m.value, m.unit);
}

interface Row {
  scope: string;
  m: MetricValue;
}

export function MetricsTable({ summary }: { summary: RunSummary }) {
  const rows: Row[] = [
    ...(summary.metrics?.groups ?? []).flatMap((g) =>
      g.metrics.map((m) => ({ scope: `${g.path} ${g.direction} (${g.flows.join(', ')})`, m })),
    ),
    ...(summary.metrics?.flows ?? []).flatMap((f) => f.metrics.map((m) => ({ scope: f.flow, m }))),
    ...summary.flows.flatMap((f) => f.metrics.map((m) => ({ scope: f.name, m }))),
    ...(summary.metrics?.theory ?? []).flatMap((t) =>
      t.metrics.map((m) => ({ scope: `${t.path} (theory)`, m })),
    ),
  ];
  return (
    <Paper withBorder p="sm" radius="md">
      <Title order={3} size="h4" mb="xs">
        Fairness and other metrics
      </Title>
      {rows.length === 0 ? (
        <Text c="dimmed" size="sm">
          This run's summary has no further metrics.
        </Text>
      ) : (
        <ScrollArea type="auto">
          <Table striped fz="sm" style={{ minWidth: 720 }} data-testid="metrics">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Metric</Table.Th>
                <Table.Th>Of</Table.Th>
                <Table.Th ta="right">Value</Table.Th>
                <Table.Th>Definition</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map(({ scope, m }) => {
                const d = defOf(m.id);
                return (
                  <Table.Tr key={`${scope}/${m.id}`}>
                    <Table.Td>
                      {d?.title ?? m.id}
                      <Text size="xs" c="dimmed" ff="monospace">
                        {m.id}
                      </Text>
                    </Table.Td>
                    <Table.Td>{scope}</Table.Td>
                    <Table.Td ta="right" ff="monospace" style={{ whiteSpace: 'nowrap' }}>
                      {fmtMetric(m)}
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs">{d?.definition ?? ''}</Text>
                      {d?.source && (
                        <Text size="xs" c="dimmed">
                          {d.source}
                        </Text>
                      )}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      )}
    </Paper>
  );
}
