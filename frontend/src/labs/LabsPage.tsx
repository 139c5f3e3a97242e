// The labs page: this service's own labs (state, accelerator, cores, kernel, boot time) and the
// `lfnlab worker` processes it has heard from, each with its labs busy or idle and when it was
// last heard from. States are words with a mark as well as a colour (blue / orange / grey: told
// apart with any colour vision); admins also see which run each worker lab runs.
import { Alert, Anchor, Badge, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useLabs, useWorkers } from '../api/queries';
import type { Lab, WorkerStatus } from '../api/types';
import { hrefOf } from '../app/router';

const LAB_STATE: Record<Lab['state'], { color: string; mark: string }> = {
  down: { color: 'gray', mark: '○' },
  booting: { color: 'orange', mark: '◐' },
  ready: { color: 'teal', mark: '●' },
  busy: { color: 'blue', mark: '■' },
};

const WORKER_STATE: Record<WorkerStatus['state'], { color: string; mark: string; says: string }> = {
  idle: { color: 'gray', mark: '○', says: 'idle' },
  busy: { color: 'blue', mark: '■', says: 'busy' },
  away: { color: 'orange', mark: '!', says: 'away' },
};

/** "4 s ago", "3 min ago", "2 h ago". */
export function ago(seconds: number): string {
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  return `${Math.floor(seconds / 3600)} h ago`;
}

function StateBadge({ color, mark, text }: { color: string; mark: string; text: string }) {
  return (
    <Badge color={color} variant={color === 'gray' ? 'outline' : 'filled'}>
      <span aria-hidden="true">{mark} </span>
      {text}
    </Badge>
  );
}

function ServiceLabs() {
  const labs = useLabs();
  if (labs.isError)
    return <Alert color="red">The service’s labs could not be read: {labs.error.message}</Alert>;
  if (!labs.data) return <Text c="dimmed">Reading the labs…</Text>;
  if (labs.data.length === 0) return <Text c="dimmed">This service has no lab of its own.</Text>;
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table striped data-testid="service-labs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Lab</Table.Th>
            <Table.Th>State</Table.Th>
            <Table.Th>Accelerator</Table.Th>
            <Table.Th>vCPUs</Table.Th>
            <Table.Th>Kernel</Table.Th>
            <Table.Th>Boot time (s)</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {labs.data.map((l) => {
            const st = LAB_STATE[l.state];
            return (
              <Table.Tr key={l.name}>
                <Table.Td>{l.name}</Table.Td>
                <Table.Td>
                  <StateBadge color={st.color} mark={st.mark} text={l.state} />
                </Table.Td>
                <Table.Td>{l.accel ? l.accel.toUpperCase() : '—'}</Table.Td>
                <Table.Td>{l.cpus ?? '—'}</Table.Td>
                <Table.Td>{l.kernel ?? '—'}</Table.Td>
                <Table.Td>{l.bootMs === null ? '—' : (l.bootMs / 1000).toFixed(1)}</Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function WorkerLabs({ w }: { w: WorkerStatus }) {
  const busy = w.labs.filter((l) => l.state === 'busy').length;
  return (
    <Stack gap={4}>
      <Text size="sm">
        {busy} of {w.labs.length} lab{w.labs.length === 1 ? '' : 's'} busy
      </Text>
      <Group gap={6}>
        {w.labs.map((l) => (
          <Group key={l.name} gap={4} wrap="nowrap">
            <StateBadge
              color={l.state === 'busy' ? 'blue' : 'gray'}
              mark={l.state === 'busy' ? '■' : '○'}
              text={`${l.name} ${l.state}`}
            />
            {l.runId && (
              <Anchor size="xs" href={hrefOf({ page: 'live', runId: l.runId })}>
                {l.runId}
              </Anchor>
            )}
          </Group>
        ))}
      </Group>
    </Stack>
  );
}

function Workers() {
  const health = useWorkers();
  if (health.isError)
    return <Alert color="red">The list of workers could not be read: {health.error.message}</Alert>;
  if (!health.data) return <Text c="dimmed">Reading the workers…</Text>;
  const workers = health.data.workers ?? [];
  if (workers.length === 0)
    return (
      <Text c="dimmed">
        No <code>lfnlab worker</code> has reported lately: runs go to this service’s own labs (see
        docs/DEPLOY.md to add lab hosts).
      </Text>
    );
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped data-testid="workers">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Worker</Table.Th>
            <Table.Th>Machine</Table.Th>
            <Table.Th>State</Table.Th>
            <Table.Th>Labs</Table.Th>
            <Table.Th>Last seen</Table.Th>
            <Table.Th>Version</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {workers.map((w) => {
            const st = WORKER_STATE[w.state];
            return (
              <Table.Tr key={`${w.name}/${w.host}/${w.lastSeenAt}`}>
                <Table.Td>{w.name}</Table.Td>
                <Table.Td>{w.host}</Table.Td>
                <Table.Td>
                  <StateBadge color={st.color} mark={st.mark} text={st.says} />
                </Table.Td>
                <Table.Td>
                  <WorkerLabs w={w} />
                </Table.Td>
                <Table.Td>
                  <time dateTime={w.lastSeenAt} title={new Date(w.lastSeenAt).toLocaleString()}>
                    {ago(w.lastSeenS)}
                  </time>
                </Table.Td>
                <Table.Td>{w.version}</Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function LabsPage() {
  return (
    <Stack gap="lg">
      <Title order={2}>Labs</Title>
      <Stack gap="xs">
        <Title order={3}>This service’s labs</Title>
        <ServiceLabs />
      </Stack>
      <Stack gap="xs">
        <Title order={3}>Workers on lab hosts</Title>
        <Workers />
      </Stack>
    </Stack>
  );
}
