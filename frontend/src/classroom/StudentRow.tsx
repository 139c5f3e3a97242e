// One student's row of the class table, and (on request) what they wrote: their last prediction,
// their answers, and the numbers behind each checkpoint, for reading free-text answers and
// explaining a grade.
import { Anchor, Button, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { hrefOf } from '../app/router';
import { NumTd } from '../lib/tables';
import type { Sheet, TableRow } from './api';
import { StateBadge } from './StateBadge';

const mark = (passed: boolean | null) => (passed === null ? 'n/a' : passed ? 'pass' : 'fail');

export function StudentRow({ row: r, sheet }: { row: TableRow; sheet: Sheet }) {
  const [open, setOpen] = useState(false);
  const columns = 6 + sheet.checkpoints.length;
  const detailsId = `details-${r.studentId}`;
  return (
    <>
      <Table.Tr data-testid={`row-${r.username}`}>
        <Table.Td>
          <Button
            variant="subtle"
            size="compact-sm"
            px={4}
            onClick={() => setOpen(!open)}
            aria-expanded={open}
            aria-controls={open ? detailsId : undefined}
            aria-label={`${open ? 'Hide' : 'Show'} the work of ${r.username}`}
          >
            {r.username}
          </Button>
          {r.display && (
            <Text size="xs" c="dimmed" px={4}>
              {r.display}
            </Text>
          )}
        </Table.Td>
        <Table.Td>
          <StateBadge state={r.grade.state} />
          {r.grade.stuckReason && (
            <Text size="xs" c="dimmed" maw={220}>
              {r.grade.stuckReason}
            </Text>
          )}
        </Table.Td>
        <NumTd data-testid={`grade-${r.username}`}>
          {r.grade.score}/{r.grade.maxScore}
        </NumTd>
        <NumTd>
          {r.grade.runs}
          {r.grade.invalidRuns > 0 && ` (${r.grade.invalidRuns} invalid)`}
        </NumTd>
        <Table.Td>
          {r.grade.lastRun ? (
            <Anchor href={hrefOf({ page: 'results', runId: r.grade.lastRun.id })} size="sm">
              {r.grade.lastRun.status}
              {r.grade.lastRun.verdict ? `, ${r.grade.lastRun.verdict}` : ''}
            </Anchor>
          ) : (
            '—'
          )}
        </Table.Td>
        {r.grade.checkpoints.map((c) => (
          <Table.Td key={c.id} title={c.detail}>
            {r.grade.runs ? mark(c.passed) : '—'}
          </Table.Td>
        ))}
        <NumTd>
          {r.grade.answered}/{r.grade.questions}
        </NumTd>
      </Table.Tr>
      {open && (
        <Table.Tr id={detailsId} data-testid={`details-${r.username}`}>
          <Table.Td colSpan={columns}>
            <Stack gap={6} maw="90ch">
              <Text size="sm">
                <b>Prediction:</b> {r.prediction ?? '—'}
              </Text>
              {sheet.questions.map((q, i) => (
                <Text size="sm" key={q.id}>
                  <b>
                    {i + 1}. {q.text}
                  </b>{' '}
                  {r.answers[q.id]?.trim() || '—'}
                </Text>
              ))}
              {r.grade.checkpoints.map((c) => (
                <Text size="xs" key={c.id} ff="monospace">
                  {c.id}: {mark(c.passed)} — {c.detail}
                </Text>
              ))}
            </Stack>
          </Table.Td>
        </Table.Tr>
      )}
    </>
  );
}
