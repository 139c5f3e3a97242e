// Assignments: students see their class's with where they stand; instructors publish a lab sheet
// to a class they teach and open each assignment's class table.
import {
  Alert,
  Anchor,
  Button,
  Group,
  Loader,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { useSession } from '../auth/session';
import { useAssignments, useClasses, usePublish, useSheets } from './api';
import { classroomHref } from './links';
import { StateBadge } from './StateBadge';

function PublishForm() {
  const classes = useClasses();
  const sheets = useSheets();
  const publish = usePublish();
  const [classId, setClassId] = useState<string | null>(null);
  const [sheetId, setSheetId] = useState<string | null>(null);
  const sheet = sheets.data?.find((s) => s.id === sheetId);
  const noClasses = classes.data && classes.data.length === 0;
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby="publish-title">
      <Title order={3} size="h4" id="publish-title" mb="xs">
        Publish a lab sheet
      </Title>
      {noClasses ? (
        <Text size="sm">
          You teach no class yet. <Anchor href={classroomHref.classes()}>Create one under Classes</Anchor>.
        </Text>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (classId && sheetId) publish.mutate({ classId, sheetId });
          }}
        >
          <Group align="flex-end" wrap="wrap" gap="sm">
            <Select
              label="Class"
              placeholder="Choose a class"
              data={(classes.data ?? []).map((c) => ({
                value: c.id,
                label: `${c.name} (${c.students} students)`,
              }))}
              value={classId}
              onChange={setClassId}
              w={240}
              required
            />
            <Select
              label="Sheet"
              placeholder="Choose a sheet"
              data={(sheets.data ?? []).map((s) => ({ value: s.id, label: s.title }))}
              value={sheetId}
              onChange={setSheetId}
              w={320}
              required
            />
            <Button type="submit" loading={publish.isPending} disabled={!classId || !sheetId}>
              Publish
            </Button>
          </Group>
          {sheet && (
            <Text size="sm" c="dimmed" mt="xs">
              {sheet.summary} {sheet.basedOn && `Built on the preset ${sheet.basedOn}.`}{' '}
              {sheet.checkpoints.length} checkpoints, {sheet.questions.length} questions.
            </Text>
          )}
          {publish.error && (
            <Alert color="red" mt="xs" title="Not published">
              {publish.error.message}
            </Alert>
          )}
          {publish.isSuccess && (
            <Alert color="blue" mt="xs">
              Published “{publish.data.sheet.title}” to {publish.data.className}.{' '}
              <Anchor href={classroomHref.table(publish.data.id)}>Open its class table</Anchor>
            </Alert>
          )}
        </form>
      )}
    </Paper>
  );
}

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
                <Table.Th>Published</Table.Th>
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
                  <Table.Td>{new Date(a.publishedAt).toLocaleDateString()}</Table.Td>
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
