import { Alert, Button, Group, Loader, Select, Stack, Title } from '@mantine/core';
import { useState } from 'react';
import { useRuns } from '../api/queries';
import { navigate } from '../app/router';
import { RunsTable } from './RunsTable';

export function RunsPage() {
  const [status, setStatus] = useState<string | null>(null);
  const [verdict, setVerdict] = useState<string | null>(null);
  const runs = useRuns({ ...(status ? { status } : {}), ...(verdict ? { verdict } : {}) });
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const toggle = (id: string) =>
    setPicked((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Runs</Title>
        <Button disabled={picked.size < 2} onClick={() => navigate({ page: 'compare', runIds: [...picked] })}>
          Compare {picked.size > 0 ? picked.size : ''} selected
        </Button>
      </Group>
      <Group>
        <Select
          label="Status"
          clearable
          placeholder="any"
          size="xs"
          w={150}
          data={['queued', 'running', 'completed', 'failed', 'aborted']}
          value={status}
          onChange={setStatus}
        />
        <Select
          label="Verdict"
          clearable
          placeholder="any"
          size="xs"
          w={150}
          data={['valid', 'suspect', 'invalid']}
          value={verdict}
          onChange={setVerdict}
        />
      </Group>
      {runs.isPending && <Loader aria-label="Loading runs" />}
      {runs.error && <Alert color="red">{runs.error.message}</Alert>}
      {runs.data && <RunsTable runs={runs.data} selected={picked} onToggle={toggle} />}
    </Stack>
  );
}
