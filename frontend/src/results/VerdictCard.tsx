// The fidelity verdict: did the emulated link do what the spec said? Reasons first, then each check.
import { movedMetricsText } from '@lfnlab/metrics/registry';
import { Alert, Badge, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { CheckStatus, RunSummary } from '../api/types';
import { VerdictBadge } from '../runs/RunStatusBadge';

const CHECK_COLOR: Record<CheckStatus, string> = { pass: 'teal', warn: 'yellow', fail: 'red', skip: 'gray' };
const MEANING = {
  valid: 'The emulated link did what the spec said; the numbers can be trusted.',
  suspect: 'Some checks warned: read the reasons before trusting the numbers.',
  invalid: 'The lab did not emulate the spec faithfully: these numbers are not a result.',
};

function CheckBadge({ status }: { status: CheckStatus }) {
  return (
    <Badge size="xs" color={CHECK_COLOR[status]} c={status === 'warn' ? 'dark' : undefined}>
      {status}
    </Badge>
  );
}

export function VerdictCard({ summary }: { summary: RunSummary }) {
  const narrow = useMediaQuery('(max-width: 48em)');
  const f = summary.fidelity;
  const verdict = summary.verdict ?? f?.verdict ?? null;
  return (
    <Paper withBorder p="sm" radius="md" data-testid="verdict">
      <Title order={3} size="h4" mb="xs">
        Fidelity verdict <VerdictBadge verdict={verdict} />
      </Title>
      {verdict && (
        <Alert color={verdict === 'valid' ? 'teal' : verdict === 'suspect' ? 'yellow' : 'red'} p="xs" mb="xs">
          <Text size="sm">{MEANING[verdict]}</Text>
          {f?.reasons.length ? (
            <ul style={{ margin: '4px 0 0', paddingLeft: 18 }}>
              {f.reasons.map((r) => (
                <li key={r}>
                  <Text size="sm">{r}</Text>
                </li>
              ))}
            </ul>
          ) : null}
        </Alert>
      )}
      {(summary.rejudged ?? []).map((n) => (
        <Text size="sm" mb="xs" key={n.at} data-testid="rejudged">
          Judged again on {n.at.slice(0, 10)} by {n.by}: it was {n.previousVerdict ?? 'not judged'}
          {n.changed.length
            ? `; ${n.changed.map((c) => `${c.id} ${c.before ?? 'absent'} → ${c.after ?? 'absent'}`).join('; ')}`
            : '; no check changed'}
          {n.metricsChanged?.length
            ? `; metrics computed again from the samples, these moved or are new: ${movedMetricsText(n.metricsChanged)}`
            : ''}
          .
        </Text>
      ))}
      {summary.clock && (
        <Text size="sm" mb="xs" data-testid="lab-clock">
          Lab clock: {summary.clock.mode}
          {summary.clock.mode === 'dilated' ? ' (instruction-driven: timers exact, wall time stretched)' : ''}
          {' · '}
          {summary.clock.guestS.toFixed(1)} s of lab time in {summary.clock.wallS.toFixed(1)} s of wall time
          {summary.clock.dilation ? ` (${summary.clock.dilation.toFixed(2)} lab s per wall s)` : ''}
        </Text>
      )}
      {f && f.checks.length > 0 && narrow && (
        // On a phone a four-column table runs off the screen (check ids do not wrap): one block per check.
        <Stack gap={6} data-testid="checks-list">
          {f.checks.map((c) => (
            <div key={c.id} style={{ borderBottom: '1px solid #e6e6e6', paddingBottom: 4 }}>
              <Group gap={6} wrap="nowrap" align="flex-start">
                <CheckBadge status={c.status} />
                <Text size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                  {c.id}
                </Text>
              </Group>
              <Text size="xs">{c.message}</Text>
              <Text size="xs" c="dimmed">
                expected: {c.expected}
              </Text>
            </div>
          ))}
        </Stack>
      )}
      {f && f.checks.length > 0 && !narrow && (
        <Table fz="xs" verticalSpacing={2}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Check</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Expected</Table.Th>
              <Table.Th>Measured</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {f.checks.map((c) => (
              <Table.Tr key={c.id}>
                <Table.Td ff="monospace">{c.id}</Table.Td>
                <Table.Td>
                  <CheckBadge status={c.status} />
                </Table.Td>
                <Table.Td>{c.expected}</Table.Td>
                <Table.Td>{c.message}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}
