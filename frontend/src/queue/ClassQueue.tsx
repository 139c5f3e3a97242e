// The queue as an instructor works it: their class's waiting runs in the order they will start,
// with when each should start, buttons to move a run earlier or later among the class's runs, and
// Stop. Other classes' runs show only as a count between, since they cannot be moved past.
import { ActionIcon, Alert, Badge, Button, Group, Paper, Table, Text, Title } from '@mantine/core';
import { useMoveRun, useQueueBoard, useStopRun } from '../api/queries';
import type { BoardEntry, MoveTo } from '../api/types';
import { hrefOf } from '../app/router';
import { runTitle } from '../runs/runTitle';
import { clockTime } from './waitText';

export function ClassQueue() {
  const board = useQueueBoard(3000);
  const move = useMoveRun();
  const stop = useStopRun();
  const lines = board.data?.labs ?? [];
  const total = lines.reduce((n, l) => n + l.waiting.length + (l.running ? 1 : 0), 0);
  return (
    <Paper withBorder p="sm" radius="md" data-testid="class-queue">
      <Title order={3} size="h5">
        Queue
      </Title>
      <Text size="xs" c="dimmed" mb="xs">
        One run at a time per lab; people take turns. Move your class's runs among themselves, or stop them.
      </Text>
      {board.error && <Alert color="red">{board.error.message}</Alert>}
      {(move.error || stop.error) && <Alert color="red">{(move.error ?? stop.error)?.message}</Alert>}
      {board.data && total === 0 && <Text size="sm">Nothing is running or waiting.</Text>}
      {lines.map((l) => (
        <Table key={l.lab} fz="sm" striped style={{ minWidth: 0 }} aria-label={`Queue of lab ${l.lab}`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={90}>#</Table.Th>
              <Table.Th>Run</Table.Th>
              <Table.Th>Student</Table.Th>
              <Table.Th>Starts</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {l.running?.runId && (
              <Row e={l.running} label="now" onMove={null} onStop={(id) => stop.mutate(id)} />
            )}
            {l.running && !l.running.runId && (
              <Table.Tr>
                <Table.Td colSpan={5}>
                  <Text size="xs" c="dimmed">
                    Running now: another person's run
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
            {groupHidden(l.waiting).map((g) =>
              'hidden' in g ? (
                <Table.Tr key={`h${g.from}`}>
                  <Table.Td colSpan={5}>
                    <Text size="xs" c="dimmed">
                      {g.hidden === 1 ? "1 other person's run" : `${g.hidden} other people's runs`}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ) : (
                <Row
                  key={g.runId}
                  e={g}
                  label={String(g.position)}
                  onMove={(id, to) => move.mutate({ id, to })}
                  onStop={(id) => stop.mutate(id)}
                />
              ),
            )}
          </Table.Tbody>
        </Table>
      ))}
    </Paper>
  );
}

type Group_ = BoardEntry | { hidden: number; from: number };

/** Consecutive runs the viewer cannot see become one "n other runs" row. */
function groupHidden(entries: BoardEntry[]): Group_[] {
  const out: Group_[] = [];
  entries.forEach((e, i) => {
    const last = out[out.length - 1];
    if (e.runId) out.push(e);
    else if (last && 'hidden' in last) last.hidden++;
    else out.push({ hidden: 1, from: i });
  });
  return out;
}

function Row({
  e,
  label,
  onMove,
  onStop,
}: {
  e: BoardEntry;
  label: string;
  onMove: ((id: string, to: MoveTo) => void) | null;
  onStop: (id: string) => void;
}) {
  const id = e.runId as string;
  const name = e.name ? runTitle({ name: e.name, label: e.label }) : '';
  return (
    <Table.Tr data-testid={`queue-row-${id}`}>
      <Table.Td>
        {e.status === 'running' ? (
          <Badge size="sm" style={{ overflow: 'visible' }}>
            running
          </Badge>
        ) : (
          label
        )}
      </Table.Td>
      <Table.Td>
        <a href={hrefOf({ page: 'live', runId: id })}>{name}</a>
      </Table.Td>
      <Table.Td>{e.owner}</Table.Td>
      <Table.Td>
        {e.estimatedStartAt ? `~${clockTime(e.estimatedStartAt)}` : e.status === 'running' ? 'started' : '—'}
      </Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          {onMove && (
            <>
              <ActionIcon
                variant="default"
                size="sm"
                aria-label={`Move ${name} (${e.owner}) to the front of the class's runs`}
                onClick={() => onMove(id, 'first')}
              >
                ⤒
              </ActionIcon>
              <ActionIcon
                variant="default"
                size="sm"
                aria-label={`Move ${name} (${e.owner}) earlier`}
                onClick={() => onMove(id, 'earlier')}
              >
                ↑
              </ActionIcon>
              <ActionIcon
                variant="default"
                size="sm"
                aria-label={`Move ${name} (${e.owner}) later`}
                onClick={() => onMove(id, 'later')}
              >
                ↓
              </ActionIcon>
            </>
          )}
          <Button
            size="compact-xs"
            color="red"
            variant="light"
            onClick={() => onStop(id)}
            aria-label={`Stop ${name} (${e.owner})`}
          >
            Stop
          </Button>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}
