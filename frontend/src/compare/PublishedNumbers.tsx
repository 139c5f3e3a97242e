// A preset's published numbers (the paper's own, with their table/figure), shown beside ours.
import { Loader, ScrollArea, Table, Text } from '@mantine/core';
import { usePreset } from '../api/queries';
import type { PublishedTable, PublishedValue } from '../api/types';
import { NumTd, num, TableHead, TablePanel } from '../lib/tables';

const refText = (ref?: Record<string, string>) => (ref ? Object.values(ref).join(', ') : '');

export function PublishedNumbers({ presetId }: { presetId: string }) {
  const preset = usePreset(presetId);
  if (preset.isPending) return <Loader size="sm" aria-label="Loading published numbers" />;
  const pub = preset.data?.published;
  const values: PublishedValue[] = Array.isArray(pub) ? pub : (pub?.values ?? []);
  const tables: PublishedTable[] = Array.isArray(pub) ? [] : (pub?.tables ?? []);
  return (
    <TablePanel
      testId="published"
      title={`Published numbers: ${preset.data?.title ?? presetId}`}
      note="The paper's values as published (unscaled unless noted); compare shares of capacity with ours."
    >
      {tables.map((t) => (
        <ScrollArea key={t.id} type="auto" mb="sm">
          <Text size="sm" fw={600}>
            {refText(t.ref)} {t.unit ? `(${t.unit})` : ''}
          </Text>
          <Table fz="xs" striped>
            <TableHead
              columns={[{ label: null, key: '' }, ...t.columns.map((c) => ({ ...c, numeric: true }))]}
            />
            <Table.Tbody>
              {t.rows.map((r) => (
                <Table.Tr key={r.key}>
                  <Table.Th scope="row">{r.label}</Table.Th>
                  {r.values.map((v, i) => (
                    <NumTd key={t.columns[i]?.key ?? i}>{String(v)}</NumTd>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      ))}
      {values.length > 0 && (
        <Table fz="xs" striped>
          <TableHead columns={['What', num('Published'), 'Where']} />
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
                <NumTd style={{ whiteSpace: 'nowrap' }}>
                  {String(v.value)} {v.unit}
                </NumTd>
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
    </TablePanel>
  );
}
