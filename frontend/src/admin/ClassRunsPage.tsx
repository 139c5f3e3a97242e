// An instructor's view of their class: every student's runs, filterable by student and verdict.
import { Alert, Group, Loader, Select, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useRuns, useUsers } from '../api/queries';
import { useSession } from '../auth/session';
import { ClassQueue } from '../queue/ClassQueue';
import { RunsTable } from '../runs/RunsTable';

export function ClassRunsPage() {
  const { user } = useSession();
  const users = useUsers();
  const [owner, setOwner] = useState<string | null>(null);
  const [verdict, setVerdict] = useState<string | null>(null);
  // The service lists an instructor's own students only (every class they teach).
  const students = (users.data ?? []).filter((u) => u.role === 'student');
  const runs = useRuns({ ...(owner ? { owner } : {}), ...(verdict ? { verdict } : {}) });
  const names = new Set(students.map((s) => s.username));
  const classRuns = (runs.data ?? []).filter((r) => names.has(r.owner));
  return (
    <Stack>
      <Title order={2}>Class runs{user?.class ? `: ${user.class}` : ''}</Title>
      <Text size="sm" c="dimmed">
        {students.length} students, {classRuns.length} runs.
      </Text>
      <ClassQueue />
      <Group>
        <Select
          label="Student"
          clearable
          placeholder="all"
          size="xs"
          w={180}
          data={students.map((s) => s.username)}
          value={owner}
          onChange={setOwner}
          searchable
        />
        <Select
          label="Verdict"
          clearable
          placeholder="any"
          size="xs"
          w={140}
          data={['valid', 'suspect', 'invalid']}
          value={verdict}
          onChange={setVerdict}
        />
      </Group>
      {(runs.isPending || users.isPending) && <Loader aria-label="Loading class runs" />}
      {runs.error && <Alert color="red">{runs.error.message}</Alert>}
      <RunsTable runs={classRuns} />
    </Stack>
  );
}
