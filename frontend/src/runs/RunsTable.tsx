// A table of runs with links to their live view or results and optional selection for Compare.
import { Anchor, Checkbox, Group, ScrollArea, Table, Text } from '@mantine/core';
import type { Run } from '../api/types';
import { hrefOf } from '../app/router';
import { fmtDate, fmtDuration } from '../lib/format';
import { clockTime } from '../queue/waitText';
import { LabelText } from './LabelText';
import { RunStatusBadge, VerdictBadge } from './RunStatusBadge';
import { runTitle } from './runTitle';

export function RunsTable({
  runs,
  selected,
  onToggle,
  showOwner = true,
}: {
  runs: Run[];
  selected?: Set<string>;
  onToggle?: (id: string) => void;
  showOwner?: boolean;
}) {
  if (runs.length === 0) return <Text c="dimmed">No runs yet.</Text>;
  return (
    <ScrollArea type="auto">
      <Table striped highlightOnHover style={{ minWidth: 760 }}>
        <Table.Thead>
          <Table.Tr>
            {onToggle && <Table.Th w={40}>Pick</Table.Th>}
            <Table.Th>Name</Table.Th>
            {showOwner && <Table.Th>Owner</Table.Th>}
            <Table.Th>Stacks</Table.Th>
            {/* Wide enough for a whole badge ("completed", "no verdict") beside a long run title. */}
            <Table.Th miw={132}>Status</Table.Th>
            <Table.Th miw={112}>Verdict</Table.Th>
            <Table.Th>Length</Table.Th>
            <Table.Th>Created</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {runs.map((r) => {
            const live = r.status === 'running' || r.status === 'queued';
            return (
              <Table.Tr key={r.id}>
                {onToggle && (
                  <Table.Td>
                    <Checkbox
                      aria-label={`Pick run ${runTitle(r)} (${r.id}) for comparison`}
                      checked={selected?.has(r.id) ?? false}
                      onChange={() => onToggle(r.id)}
                    />
                  </Table.Td>
                )}
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <Anchor
                      href={hrefOf(live ? { page: 'live', runId: r.id } : { page: 'results', runId: r.id })}
                    >
                      <LabelText text={runTitle(r)} />
                    </Anchor>
                    <Text size="xs" c="dimmed">
                      {r.id.slice(0, 8)}
                    </Text>
                  </Group>
                  {r.preset && (
                    <Text size="xs" c="dimmed">
                      preset {r.preset}
                    </Text>
                  )}
                </Table.Td>
                {showOwner && <Table.Td>{r.owner}</Table.Td>}
                <Table.Td>{r.stacks.join(', ')}</Table.Td>
                <Table.Td>
                  <RunStatusBadge status={r.status} />
                  {r.status === 'running' && r.progress.totalS > 0 && (
                    <Text size="xs" c="dimmed" data-testid="run-progress">
                      {Math.min(100, Math.round((100 * r.progress.elapsedS) / r.progress.totalS))} % of{' '}
                      {fmtDuration(r.progress.totalS)}
                    </Text>
                  )}
                  {r.status === 'queued' && r.queue && (
                    <Text size="xs" c="dimmed" data-testid="queue-place">
                      #{r.queue.position} · {r.queue.ahead} ahead · ~{clockTime(r.queue.estimatedStartAt)}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <VerdictBadge verdict={r.verdict} />
                </Table.Td>
                <Table.Td>{fmtDuration(r.progress?.totalS)}</Table.Td>
                <Table.Td>{fmtDate(r.createdAt)}</Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}
