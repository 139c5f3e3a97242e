// Every metric summary.json holds, with its title, unit and definition from the shared registry.
import { METRICS, type MetricDefinition } from '@lfnlab/metrics/registry';
import { ScrollArea, Stack, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { MetricValue, RunSummary } from '../api/types';
import { fmt, fmtRate } from '../lib/format';
import { NumTd, num, TableHead, TablePanel } from '../lib/tables';

/** A summary written by a newer service may carry ids this build does not know yet. */
const defOf = (id: string): MetricDefinition | undefined => (METRICS as Record<string, MetricDefinition>)[id];

export function fmtMetric(m: MetricValue): string {
  // NaN ("did not happen") reaches the browser as null: JSON has no NaN (metrics/registry.ts).
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
    ...summary.metrics.groups.flatMap((g) =>
      g.metrics.map((m) => ({ scope: `${g.path} ${g.direction} (${g.flows.join(', ')})`, m })),
    ),
    ...summary.metrics.flows.flatMap((f) => f.metrics.map((m) => ({ scope: f.flow, m }))),
    ...summary.flows.flatMap((f) => f.metrics.map((m) => ({ scope: f.name, m }))),
    ...summary.metrics.theory.flatMap((t) => t.metrics.map((m) => ({ scope: `${t.path} (theory)`, m }))),
  ];
  // On a phone a four-column table puts the values off-screen: one card per metric instead.
  const narrow = useMediaQuery('(max-width: 48em)');
  return (
    <TablePanel title="Fairness and other metrics">
      {rows.length === 0 ? (
        <Text c="dimmed" size="sm">
          This run's summary has no further metrics.
        </Text>
      ) : narrow ? (
        <Stack gap="xs" data-testid="metrics-list">
          {rows.map(({ scope, m }) => {
            const d = defOf(m.id);
            return (
              <div key={`${scope}/${m.id}`} style={{ borderBottom: '1px solid #e6e6e6', paddingBottom: 6 }}>
                <Text size="sm" fw={600}>
                  {d?.title ?? m.id}: <span style={{ fontFamily: 'monospace' }}>{fmtMetric(m)}</span>
                </Text>
                <Text size="xs" c="dimmed">
                  {scope}
                </Text>
                {d?.definition && <Text size="xs">{d.definition}</Text>}
              </div>
            );
          })}
        </Stack>
      ) : (
        <ScrollArea type="auto">
          <Table striped fz="sm" style={{ minWidth: 720 }} data-testid="metrics">
            <TableHead columns={['Metric', 'Of', num('Value'), 'Definition']} />
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
                    <NumTd style={{ whiteSpace: 'nowrap' }}>{fmtMetric(m)}</NumTd>
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
    </TablePanel>
  );
}
