// A preset's published numbers (the paper's own, with their table/figure), shown beside ours.
import { Loader, Paper, ScrollArea, Table, Text, Title } from '@mantine/core';
import { usePreset } from '../api/queries';
import type { PublishedTable, PublishedValue } from '../api/types';

const refText = (ref?: Record<string, string>) => (ref ? Object.values(ref).join(', ') : '');

export function PublishedNumbers({ presetId }: { presetId: string }) {
  const preset = usePreset(presetId);
  if (preset.isPending) return <Loader size="sm" aria-label="Loading published numbers" />;
  const pub = preset.data?.published;
  const values: PublishedValue[] = Array.isArray(pub) ? pub : (pub?.values ?? []);
  const tables: PublishedTable[] = Array.isArray(pub) ? [] : (pub?.tables ?? []);
  return (
    <Paper withBorder p="sm" radius="md" data-testid="published">
      <Title order={3} size="h4">
        Published numbers: {preset.data?.title ?? presetId}
      </Title>
      <Text size="xs" c="dimmed" mb="xs">
        The paper's values as published (unscaled unless noted); compare shares of capacity with ours.
      </Text>
      {tables.map((t) => (
        <ScrollArea key={t.id} type="auto" mb="sm">
          <Text size="sm" fw={600}>
            {refText(t.ref)} {t.unit ? `(${t.unit})` : ''}
          </Text>
          <Table fz="xs" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th />
                {t.columns.map((c) => (
                  <Table.Th key={c.key} ta="right">
                    {c.label}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {t.rows.map((r) => (
                <Table.Tr key={r.key}>
                  <Table.Th scope="row">{r.label}</Table.Th>
                  {r.values.map((v, i) => (
                    <Table.Td key={t.columns[i]?.key ?? i} ta="right" ff="monospace">
                      {String(v)}
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      ))}
      {values.length > 0 && (
        <Table fz="xs" striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>What</Table.Th>
              <Table.Th ta="right">Published</Table.Th>
              <Table.Th>Where</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {values.map((v) => (
              <Table.Tr key={v.id}>
                <Table.Td>
                  {v.label ?? v.name ?? v.id}
                  {v.note && (
                    <Text size="xs" c="dimmed">
                      {v.note}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ta="right" ff="monospace" style={{ whiteSpace: 'nowrap' }}>
                  {String(v.value)} {v.unit}
                </Table.Td>
                <Table.Td>{refText(v.ref)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {values.length === 0 && tables.length === 0 && (
        <Text size="sm" c="dimmed">
          No published numbers for this preset.
        </Text>
      )}
    </Paper>
  );
}
