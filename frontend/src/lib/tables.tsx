// The pieces the results and compare tables are made of: a titled panel, a header row, number
// cells that line up (right-aligned, monospace), and the numbers every flow summary shows.
import { Paper, Table, type TableTdProps, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import type { FlowSummary } from '../api/types';
import { fmt, fmtMeanSd } from './format';

/** A header cell: plain text, or numeric (right-aligned like its cells) and/or of a fixed width. */
export type Column = string | { label: ReactNode; key: string; numeric?: boolean; w?: number };

/** A numeric column headed `label`. */
export const num = (label: string): Column => ({ label, key: label, numeric: true });

export function TableHead({ columns }: { columns: readonly Column[] }) {
  return (
    <Table.Thead>
      <Table.Tr>
        {columns.map((c) =>
          typeof c === 'string' ? (
            <Table.Th key={c}>{c}</Table.Th>
          ) : (
            <Table.Th key={c.key} ta={c.numeric ? 'right' : undefined} w={c.w}>
              {c.label}
            </Table.Th>
          ),
        )}
      </Table.Tr>
    </Table.Thead>
  );
}

/** A number cell. */
export function NumTd(props: TableTdProps) {
  return <Table.Td ta="right" ff="monospace" {...props} />;
}

/** A bordered panel with a table's title and, optionally, a line saying what it shows. */
export function TablePanel({
  title,
  note,
  children,
  testId,
}: {
  title: ReactNode;
  note?: ReactNode;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <Paper withBorder p="sm" radius="md" data-testid={testId}>
      <Title order={3} size="h4" mb={note ? undefined : 'xs'}>
        {title}
      </Title>
      {note && (
        <Text size="xs" c="dimmed" mb="xs">
          {note}
        </Text>
      )}
      {children}
    </Paper>
  );
}

/** A flow's goodput mean ± σ, stability σ/μ, retransmits and RTT mean (with its range if asked). */
export function FlowNumberCells({ f, rttRange = false }: { f: FlowSummary; rttRange?: boolean }) {
  return (
    <>
      <NumTd>{fmtMeanSd(f.goodputMbps.mean, f.goodputMbps.sd, 'Mbit/s')}</NumTd>
      <NumTd>{fmt(f.stability)}</NumTd>
      <NumTd>{fmt(f.retransmits, '', 6)}</NumTd>
      <NumTd>
        {fmt(f.rttMs.mean, 'ms')}
        {rttRange && ` (${fmt(f.rttMs.min)}-${fmt(f.rttMs.max)})`}
      </NumTd>
    </>
  );
}
