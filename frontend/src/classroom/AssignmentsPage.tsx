// Assignments: students see their class's with where they stand; instructors publish a lab sheet
// to a class they teach and open each assignment's class table.
import { Alert, Anchor, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useSession } from '../auth/session';
import { useAssignments } from './api';
import { classroomHref } from './links';
import { PublishForm } from './PublishForm';
import { StateBadge } from './StateBadge';

export function AssignmentsPage() {
  const { user } = useSession();
  const teaches = user?.role === 'instructor' || user?.role === 'admin';
  const list = useAssignments();
  return (
    <Stack>
      <Title order={2}>Assignments</Title>
      {teaches && <PublishForm />}
      {list.isPending && <Loader aria-label="Loading assignments" />}
      {list.error && <Alert color="red">{list.error.message}</Alert>}
      {list.data && list.data.length === 0 && (
        <Text c="dimmed">
          {teaches ? 'Nothing published yet.' : 'Your instructor has not published anything yet.'}
        </Text>
      )}
      {list.data && list.data.length > 0 && (
        <Table.ScrollContainer minWidth={520}>
          <Table striped data-testid="assignments">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Sheet</Table.Th>
                <Table.Th>Class</Table.Th>
                <Table.Th>Due</Table.Th>
                <Table.Th>{teaches ? '' : 'You'}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.map((a) => (
                <Table.Tr key={a.id}>
                  <Table.Td>
                    <Anchor href={classroomHref.assignment(a.id)} fw={600}>
                      {a.title}
                    </Anchor>
                    <Text size="xs" c="dimmed" lineClamp={2}>
                      {a.summary}
                    </Text>
                  </Table.Td>
                  <Table.Td>{a.className}</Table.Td>
                  <Table.Td>{a.due ? new Date(a.due).toLocaleString() : '—'}</Table.Td>
                  <Table.Td>
                    {a.mine ? (
                      <Group gap={6} wrap="nowrap">
                        <StateBadge state={a.mine.state} />
                        <Text size="sm" ff="monospace">
                          {a.mine.score}/{a.mine.maxScore}
                        </Text>
                      </Group>
                    ) : (
                      <Anchor href={classroomHref.table(a.id)} size="sm">
                        Class table
                      </Anchor>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
