import { Badge } from '@mantine/core';
import type { RunStatus, Verdict } from '../api/types';

const STATUS_COLOR: Record<RunStatus, string> = {
  queued: 'gray',
  running: 'blue',
  completed: 'teal',
  failed: 'red',
  aborted: 'orange',
};

export const RunStatusBadge = ({ status }: { status: RunStatus }) => (
  <Badge color={STATUS_COLOR[status] ?? 'gray'} variant="light">
    {status}
  </Badge>
);

const VERDICT_COLOR: Record<Verdict, string> = { valid: 'teal', suspect: 'yellow', invalid: 'red' };

export const VerdictBadge = ({ verdict }: { verdict: Verdict | null }) =>
  verdict ? (
    <Badge color={VERDICT_COLOR[verdict]} variant="filled" c={verdict === 'suspect' ? 'dark' : undefined}>
      {verdict}
    </Badge>
  ) : (
    <Badge color="gray" variant="outline">
      no verdict
    </Badge>
  );
