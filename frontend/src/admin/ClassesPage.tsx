// Classes an instructor teaches (an admin: all): create one, open one to import students, hand out
// passwords and set its quota. A class is a record: students can only be put in one that exists.
import {
  Alert,
  Anchor,
  Button,
  Group,
  Loader,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { useClasses, useCreateClass } from '../classroom/api';
import { classroomHref } from '../classroom/links';

export function ClassesPage() {
  const classes = useClasses();
  const create = useCreateClass();
  const [name, setName] = useState('');
  return (
    <Stack>
      <Title order={2}>Classes</Title>
      <Paper withBorder p="sm" radius="md">
        <form
          aria-label="Create a class"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate(name.trim(), {
              onSuccess: (c) => {
                setName('');
                window.location.hash = classroomHref.class(c.id);
              },
            });
          }}
        >
          <Group align="flex-end" wrap="wrap">
            <TextInput
              label="New class"
              description="1-64 letters, digits, spaces, _ . -"
              placeholder="net101 autumn"
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={create.error?.message}
              required
              w={280}
            />
            <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
              Create class
            </Button>
          </Group>
        </form>
      </Paper>
      {classes.isPending && <Loader aria-label="Loading classes" />}
      {classes.error && <Alert color="red">{classes.error.message}</Alert>}
      {classes.data && classes.data.length === 0 && <Text c="dimmed">No classes yet.</Text>}
      {classes.data && classes.data.length > 0 && (
        <Table.ScrollContainer minWidth={480}>
          <Table striped data-testid="classes">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Class</Table.Th>
                <Table.Th ta="right">Students</Table.Th>
                <Table.Th>Instructors</Table.Th>
                <Table.Th>Quota</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {classes.data.map((c) => (
                <Table.Tr key={c.id}>
                  <Table.Td>
                    <Anchor href={classroomHref.class(c.id)} fw={600}>
                      {c.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td ta="right">{c.students}</Table.Td>
                  <Table.Td>{c.instructors.map((i) => i.username).join(', ') || '—'}</Table.Td>
                  <Table.Td>
                    {c.quota
                      ? `${c.quota.concurrentRuns} at a time, ≤ ${c.quota.maxDurationS} s, ≤ ${c.quota.maxRateMbps} Mbit/s, ≤ ${c.quota.maxFlows} flows`
                      : "the admin's student quota"}
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
