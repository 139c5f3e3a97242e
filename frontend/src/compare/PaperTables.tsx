import { ScrollArea, Table, Text } from '@mantine/core';
import { fmt, fmtMeanSd } from '../lib/format';
import { NumTd, num, TableHead, TablePanel } from '../lib/tables';
import type { Asymmetry, StackTable } from './paperTables';

export function StackPathWindowTable({ table }: { table: StackTable }) {
  return (
    <TablePanel
      title="Goodput by stack × path × window"
      note="Mean ± σ of the per-interval goodput, Mbit/s (seed 000 Table 1 layout); averaged when several runs match."
    >
      <ScrollArea type="auto">
        <Table striped fz="sm" data-testid="stack-table">
          <TableHead columns={['Path', 'Window', ...table.stacks.map(num)]} />
          <Table.Tbody>
            {table.rows.map((r) => (
              <Table.Tr key={r.key}>
                <Table.Td>{r.path}</Table.Td>
                <Table.Td>{r.window}</Table.Td>
                {table.stacks.map((s) => (
                  <NumTd key={s}>
                    {r.cells[s] ? fmtMeanSd(r.cells[s].mean, r.cells[s].sd, 'Mbit/s') : ''}
                  </NumTd>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </TablePanel>
  );
}

export function AsymmetryTable({ m }: { m: Asymmetry }) {
  return (
    <TablePanel
      title="Asymmetry matrix"
      note="Row stack's goodput ÷ column stack's when the two share a path (seed 000 Table 3); 1 is a fair share."
    >
      {m.stacks.length === 0 ? (
        <Text size="sm" c="dimmed">
          Needs runs with exactly two forward flows on a path.
        </Text>
      ) : (
        <ScrollArea type="auto">
          <Table fz="sm" data-testid="asymmetry">
            <TableHead columns={['row ÷ column', ...m.stacks.map(num)]} />
            <Table.Tbody>
              {m.stacks.map((a) => (
                <Table.Tr key={a}>
                  <Table.Th scope="row">{a}</Table.Th>
                  {m.stacks.map((b) => {
                    const v = m.ratio[a]?.[b];
                    return (
                      <NumTd
                        key={b}
                        bg={
                          v === undefined ? undefined : v > 1.2 ? 'orange.1' : v < 0.83 ? 'blue.1' : undefined
                        }
                      >
                        {v === undefined ? '' : `${fmt(v)}×`}
                      </NumTd>
                    );
                  })}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      )}
    </TablePanel>
  );
}
