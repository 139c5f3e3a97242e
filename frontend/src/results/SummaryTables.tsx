// Per-flow and per-path summary: mean ± σ goodput, stability σ/μ, retransmits, RTT; utilisation and Jain's index.
import { formatLimit } from '@lfnlab/metrics/limits';
import { ScrollArea, Table, Text } from '@mantine/core';
import type { RunSummary } from '../api/types';
import { flowStyles } from '../lib/colors';
import { fmt, fmtPct } from '../lib/format';
import { FlowNumberCells, NumTd, num, TableHead, TablePanel } from '../lib/tables';

export function FlowSummaryTable({ summary }: { summary: RunSummary }) {
  // The swatch is the flow's line on the charts: its stack's colour.
  const styles = flowStyles(summary.flows.map((f) => ({ name: f.name, stack: f.stack })));
  return (
    <TablePanel title="Flows">
      <ScrollArea type="auto">
        <Table striped style={{ minWidth: 820 }} data-testid="flow-summary">
          <TableHead
            columns={[
              'Flow',
              'Stack',
              'Path / dir.',
              num('Goodput mean ± σ'),
              num('Stability σ/μ'),
              num('Retransmits (segments)'),
              num('RTT mean (min-max)'),
              'Limited by',
            ]}
          />
          <Table.Tbody>
            {summary.flows.map((f) => (
              <Table.Tr key={f.name}>
                <Table.Td>
                  <span
                    aria-hidden
                    style={{
                      display: 'inline-block',
                      width: 10,
                      height: 10,
                      borderRadius: 5,
                      background: styles.get(f.name)?.color,
                      marginRight: 6,
                    }}
                  />
                  {f.name}
                  {f.streams > 1 ? ` (×${f.streams})` : ''}
                  {f.error && (
                    <Text size="xs" c="red.8">
                      {f.error}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  {f.stack}
                  {f.observedStacks.length > 0 && f.observedStacks.join() !== f.stack && (
                    <Text size="xs" c="red.8">
                      kernel saw {f.observedStacks.join(', ')}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  {f.path} / {f.direction}
                </Table.Td>
                <FlowNumberCells f={f} rttRange />
                <Table.Td c={f.limitedBy?.limitedBy === 'sender' ? 'red.8' : undefined}>
                  {formatLimit(f.limitedBy)}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </TablePanel>
  );
}

export function PathSummaryTable({ summary }: { summary: RunSummary }) {
  return (
    <TablePanel title="Paths">
      <ScrollArea type="auto">
        <Table striped style={{ minWidth: 720 }}>
          <TableHead
            columns={[
              'Path',
              num('Configured'),
              num('Buffer fwd (packets)'),
              num('Loaded RTT mean / max'),
              num('Utilisation fwd / rev'),
              num("Jain's index fwd / rev"),
            ]}
          />
          <Table.Tbody>
            {summary.paths.map((p) => (
              <Table.Tr key={p.name}>
                <Table.Td>{p.name}</Table.Td>
                <NumTd>
                  {fmt(p.configured.rateMbps, 'Mbit/s')}, {fmt(p.configured.rttMs, 'ms')}
                  {p.configured.ber ? `, BER ${p.configured.ber}` : ''}
                </NumTd>
                <NumTd>{fmt(p.configured.bufferPackets.forward, '', 6)}</NumTd>
                <NumTd>
                  {p.loadedRtt ? `${fmt(p.loadedRtt.meanMs)} / ${fmt(p.loadedRtt.maxMs, 'ms')}` : '—'}
                </NumTd>
                <NumTd>
                  {fmtPct(p.utilisation.forward)} / {fmtPct(p.utilisation.reverse)}
                </NumTd>
                <NumTd>
                  {fmt(p.jain.forward)} / {fmt(p.jain.reverse)}
                </NumTd>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </TablePanel>
  );
}
