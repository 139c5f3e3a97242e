// A preset's findings on the card: where they were decided (my runs, or the committed results),
// each finding's verdict word with its test and n, ours (mean ± σ) beside the published value
// scaled to the lab with its scale factor, and what the lab cannot express of the experiment.
import { VERDICT_COLORS } from '@lfnlab/report/palette';
import { Loader, Stack, Table, Text } from '@mantine/core';
import { usePresetFindings } from '../api/queries';
import type { FindingCell, FindingsSource, FindingView } from '../api/types';
import { dash, fmt, fmtDate, fmtMeanSd } from '../lib/format';
import { FindingVerdict } from './FindingVerdict';

export function sourceText(s: FindingsSource): string {
  if (s.kind === 'committed')
    return `Decided on the published results (${s.runs} run${s.runs === 1 ? '' : 's'}, ${s.file}).`;
  const length = s.shortenedToS === null ? 'full length' : `shortened to ${s.shortenedToS} s`;
  return `Decided on your ${s.runs} completed run${s.runs === 1 ? '' : 's'} (${length}; newest ${fmtDate(s.newestAt)}).`;
}

/** "0.25 × 0.161 = 0.0402 Mbit/s": the paper's value, the scale factor, the value here. */
export function scaledText(c: FindingCell): string {
  const p = c.published;
  const value = fmtMeanSd(p.value, p.sd, '').trim();
  if (p.scale === 1) return fmtMeanSd(p.scaled, p.scaledSd, c.unit);
  return `${value} × ${fmt(p.scale)} = ${fmtMeanSd(p.scaled, p.scaledSd, c.unit)}`;
}

function oursText(c: FindingCell): string {
  if (!c.ours) return 'not measured by this preset';
  if (c.ours.mean === null) return `${dash} (n = 0)`;
  return `${fmtMeanSd(c.ours.mean, c.ours.sd, c.unit)} (n = ${c.ours.n})`;
}

function FindingCells({ cells }: { cells: FindingCell[] }) {
  if (!cells.length) return null;
  return (
    <Table.ScrollContainer minWidth={320} type="native">
      <Table fz="xs" verticalSpacing={2} horizontalSpacing={6} withRowBorders={false}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Number</Table.Th>
            <Table.Th>Ours (mean ± σ)</Table.Th>
            <Table.Th>Published × scale = here</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {cells.map((c) => (
            <Table.Tr key={c.id} data-testid={`cell-${c.id}`}>
              <Table.Td>
                {c.label}
                <Text span size="xs" c="dimmed">
                  {' '}
                  ({c.ref})
                </Text>
              </Table.Td>
              <Table.Td>{oursText(c)}</Table.Td>
              <Table.Td>{scaledText(c)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function Finding({ f }: { f: FindingView }) {
  return (
    <Stack gap={2}>
      <FindingVerdict finding={f} />
      {f.cells.length > 0 && (
        <details>
          <summary style={{ fontSize: 'var(--mantine-font-size-xs)', cursor: 'pointer' }}>
            Ours beside the published {f.cells.length === 1 ? 'number' : `${f.cells.length} numbers`}
          </summary>
          <FindingCells cells={f.cells} />
        </details>
      )}
    </Stack>
  );
}

/** What the lab cannot express, listed (the preset's own words). */
export function NotExpressed({ items }: { items: string[] }) {
  if (!items.length) return null;
  return (
    <section aria-label="What the lab cannot express">
      <Text size="xs" fw={700}>
        What the lab cannot express
      </Text>
      <ul style={{ margin: 0, paddingInlineStart: 18 }}>
        {items.map((x) => (
          <li key={x}>
            <Text size="xs">{x}</Text>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function PresetFindings({ presetId }: { presetId: string }) {
  const q = usePresetFindings(presetId);
  if (q.isPending) return <Loader size="xs" aria-label="Loading findings" />;
  if (q.error)
    return (
      <Text size="xs" c={VERDICT_COLORS.fails}>
        Findings could not be loaded: {q.error.message}
      </Text>
    );
  const v = q.data;
  return (
    <Stack gap={6}>
      <section aria-label="Findings, decided on our runs">
        <Text size="xs" fw={700}>
          Findings
        </Text>
        {v.source ? (
          <Stack gap={6}>
            <Text size="xs" c="dimmed">
              {sourceText(v.source)}
            </Text>
            {v.findings.map((f) => (
              <Finding key={f.id} f={f} />
            ))}
          </Stack>
        ) : (
          <Text size="xs" c="dimmed">
            {v.message}
          </Text>
        )}
      </section>
      <NotExpressed items={v.notExpressed} />
    </Stack>
  );
}
