import { Paper, ScrollArea, Table, Text, Title } from '@mantine/core';
import { fmt, fmtMeanSd } from '../lib/format';
import type { Asymmetry, StackTable } from './paperTables';

export function StackPathWindowTable({ table }: { table: StackTable }) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Title order={3} size="h4">
        Goodput by stack × path × window
      </Title>
      <Text size="xs" c="dimmed" mb="xs">
        Mean ± σ of the per-interval goodput, Mbit/s (seed 000 Table 1 layout); averaged when several runs
        match.
      </Text>
      <ScrollArea type="auto">
        <Table striped fz="sm" data-testid="stack-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Path</Table.Th>
              <Table.Th>Window</Table.Th>
              {table.stacks.map((s) => (
                <Table.Th key={s} ta="right">
                  {s}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {table.rows.map((r) => (
              <Table.Tr key={r.key}>
                <Table.Td>{r.path}</Table.Td>
                <Table.Td>{r.window}</Table.Td>
                {table.stacks.map((s) => (
                  <Table.Td key={s} ta="right" ff="monospace">
                    {r.cells[s] ? fmtMeanSd(r.cells[s].mean, r.cells[s].sd, 'Mbit/s') : ''}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </Paper>
  );
}

export function AsymmetryTable({ m }: { m: Asymmetry }) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Title order={3} size="h4">
        Asymmetry matrix
      </Title>
      <Text size="xs" c="dimmed" mb="xs">
        Row stack's goodput ÷ column stack's when the two share a path (seed 000 Table 3); 1 is a fair share.
      </Text>
      {m.stacks.length === 0 ? (
        <Text size="sm" c="dimmed">
          Needs runs with exactly two forward flows on a path.
        </Text>
      ) : (
        <ScrollArea type="auto">
          <Table fz="sm" data-testid="asymmetry">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>row ÷ column</Table.Th>
                {m.stacks.map((s) => (
                  <Table.Th key={s} ta="right">
                    {s}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {m.stacks.map((a) => (
                <Table.Tr key={a}>
                  <Table.Th scope="row">{a}</Table.Th>
                  {m.stacks.map((b) => {
                    const v = m.ratio[a]?.[b];
                    return (
                      <Table.Td
                        key={b}
                        ta="right"
                        ff="monospace"
                        bg={
                          v === undefined ? undefined : v > 1.2 ? 'orange.1' : v < 0.83 ? 'blue.1' : undefined
                        }
                      >
                        {v === undefined ? '' : `${fmt(v)}×`}
                      </Table.Td>
                    );
                  })}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      )}
    </Paper>
  );
}
