// The class table of one assignment: who ran, who is waiting, who is stuck (and why), which runs
// were invalid, each checkpoint and the grade (next to the name, so a phone shows it without
// scrolling); refreshed while the class works, exported as CSV.
import { Alert, Anchor, Button, Group, Loader, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { type StudentState, tableCsvUrl, useClassTable } from './api';
import { classroomHref } from './links';
import { StudentRow } from './StudentRow';

const STATES: StudentState[] = ['not started', 'waiting', 'graded', 'stuck'];

export function ClassTablePage({ assignmentId }: { assignmentId: string }) {
  const q = useClassTable(assignmentId);
  const [only, setOnly] = useState<string | null>(null);
  if (q.isPending) return <Loader aria-label="Loading class table" />;
  if (q.error) return <Alert color="red">{q.error.message}</Alert>;
  const { assignment, rows } = q.data;
  const { sheet } = assignment;
  const count = (s: StudentState) => rows.filter((r) => r.grade.state === s).length;
  const invalid = rows.reduce((a, r) => a + r.grade.invalidRuns, 0);
  const shown = only ? rows.filter((r) => r.grade.state === only) : rows;
  return (
    <Stack>
      <div>
        <Title order={2}>
          Class table: {sheet.title} ({assignment.className})
        </Title>
        <Text size="sm" c="dimmed">
          <Anchor href={classroomHref.assignment(assignment.id)}>The sheet</Anchor> · refreshed every 5 s
        </Text>
      </div>
      <Group gap="lg" data-testid="table-counts" wrap="wrap">
        <Text size="sm">
          <b>{rows.length}</b> students
        </Text>
        {STATES.map((s) => (
          <Text size="sm" key={s} data-testid={`count-${s.replace(' ', '-')}`} data-count={count(s)}>
            <b>{count(s)}</b> {s}
          </Text>
        ))}
        <Text size="sm">
          <b>{invalid}</b> invalid runs
        </Text>
      </Group>
      <Group align="flex-end" wrap="wrap">
        <Select
          label="Show"
          placeholder="every student"
          clearable
          data={STATES}
          value={only}
          onChange={setOnly}
          w={180}
        />
        <Button component="a" href={tableCsvUrl(assignment.id)} download variant="light">
          Export CSV
        </Button>
      </Group>
      <Table.ScrollContainer minWidth={720}>
        <Table striped highlightOnHover data-testid="class-table" fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Student</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th ta="right">Grade</Table.Th>
              <Table.Th ta="right">Runs</Table.Th>
              <Table.Th>Last run</Table.Th>
              {sheet.checkpoints.map((c) => (
                <Table.Th key={c.id}>
                  <abbr title={c.text}>{c.id}</abbr>
                </Table.Th>
              ))}
              <Table.Th ta="right">Answers</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((r) => (
              <StudentRow key={r.studentId} row={r} sheet={sheet} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Text size="xs" c="dimmed" component="div" data-testid="checkpoint-legend">
        {sheet.checkpoints.map((c) => (
          <div key={c.id}>
            <b>{c.id}</b> ({c.points} {c.points === 1 ? 'point' : 'points'}): {c.text}
          </div>
        ))}
      </Text>
    </Stack>
  );
}
