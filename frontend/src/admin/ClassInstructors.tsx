// Who teaches a class (admins only): instructors chosen from the accounts. An instructor who makes a
// class teaches it already; this is for classes an admin makes or hands over.
import { Alert, Button, Group, MultiSelect, Paper, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useUsers } from '../api/queries';
import { type ClassDetail, useSetClassInstructors } from '../classroom/api';

export function ClassInstructors({ cls }: { cls: ClassDetail }) {
  const users = useUsers();
  const save = useSetClassInstructors(cls.id);
  const current = cls.instructors.map((i) => i.id);
  const [ids, setIds] = useState<string[]>(current);
  const currentKey = current.join(',');
  useEffect(() => setIds(currentKey ? currentKey.split(',') : []), [currentKey]);
  const instructors = (users.data ?? []).filter((u) => u.role === 'instructor');
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby="instructors-title">
      <Title order={3} size="h4" id="instructors-title">
        Instructors
      </Title>
      <Text size="xs" c="dimmed" mb="xs">
        They see this class’s students, runs and assignments, import students and set its quota.
      </Text>
      <Group align="flex-end" gap="xs" wrap="wrap">
        <MultiSelect
          label="Taught by"
          data={instructors.map((u) => ({ value: u.id, label: u.username }))}
          value={ids}
          onChange={setIds}
          searchable
          w={320}
          maw="100%"
        />
        <Button size="xs" onClick={() => save.mutate(ids)} loading={save.isPending}>
          Save instructors
        </Button>
        {save.isSuccess && !save.isPending && (
          <Text size="sm" role="status">
            Saved.
          </Text>
        )}
      </Group>
      {save.error && <Alert color="red">{save.error.message}</Alert>}
    </Paper>
  );
}
