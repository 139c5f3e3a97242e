import { Badge, Paper, ScrollArea, Table, Text, Title } from '@mantine/core';
import { fmt } from '../lib/format';
import { TableHead } from '../lib/tables';
import type { LiveEvent } from './liveModel';

const COLOR: Record<string, string> = {
  'flow-started': 'teal',
  'flow-ended': 'gray',
  'loss-burst': 'orange',
  error: 'red',
  verdict: 'violet',
  done: 'blue',
};

export function EventsList({ events }: { events: LiveEvent[] }) {
  return (
    <Paper withBorder p="xs" radius="md">
      <Title order={3} size="h5" mb={4}>
        Events
      </Title>
      {events.length === 0 ? (
        <Text size="sm" c="dimmed">
          Waiting for the first event…
        </Text>
      ) : (
        <ScrollArea h={260} type="auto">
          <Table fz="xs" verticalSpacing={2} aria-live="polite">
            <TableHead columns={[{ label: 't (s)', key: 't', w: 70 }, 'Event']} />
            <Table.Tbody>
              {[...events].reverse().map((e) => (
                <Table.Tr key={`${e.seq}-${e.kind}`}>
                  <Table.Td ff="monospace">{fmt(e.tS)}</Table.Td>
                  <Table.Td>
                    <Badge size="xs" variant="light" color={COLOR[e.kind] ?? 'gray'} mr={6}>
                      {e.kind}
                    </Badge>
                    {e.text}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      )}
    </Paper>
  );
}
