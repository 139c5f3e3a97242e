// Per-flow and per-path summary: mean ± σ goodput, stability σ/μ, retransmits, RTT; utilisation and Jain's index.
import { Paper, ScrollArea, Table, Text, Title } from '@mantine/core';
import type { RunSummary } from '../api/types';
import { colorOf } from '../lib/colors';
import { fmt, fmtMeanSd, fmtPct } from '../lib/format';

export function FlowSummaryTable({ summary }: { summary: RunSummary }) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Title order={3} size="h4" mb="xs">
        Flows
      </Title>
      <ScrollArea type="auto">
        <Table striped style={{ minWidth: 820 }} data-testid="flow-summary">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Flow</Table.Th>
              <Table.Th>Stack</Table.Th>
              <Table.Th>Path / dir.</Table.Th>
              <Table.Th ta="right">Goodput mean ± σ</Table.Th>
              <Table.Th ta="right">Stability σ/μ</Table.Th>
              <Table.Th ta="right">Retransmits (segments)</Table.Th>
              <Table.Th ta="right">RTT mean (min-max)</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {summary.flows.map((f, i) => (
              <Table.Tr key={f.name}>
                <Table.Td>
                  <span
                    aria-hidden
                    style={{
                      display: 'inline-block',
                      width: 10,
                      height: 10,
                      borderRadius: 5,
                      background: colorOf(i),
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
                <Table.Td ta="right" ff="monospace">
                  {fmtMeanSd(f.goodputMbps.mean, f.goodputMbps.sd, 'Mbit/s')}
                </Table.Td>
                <Table.Td ta="right" ff="monospace">
                  {fmt(f.stability)}
                </Table.Td>
                <Table.Td ta="right" ff="monospace">
                  {fmt(f.retransmits, '', 6)}
                </Table.Td>
                <Table.Td ta="right" ff="monospace">
                  {fmt(f.rttMs.mean, 'ms')} ({fmt(f.rttMs.min)}-{fmt(f.rttMs.max)})
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </Paper>
  );
}

export function PathSummaryTable({ summary }: { summary: RunSummary }) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Title order={3} size="h4" mb="xs">
        Paths
      </Title>
      <ScrollArea type="auto">
        <Table striped style={{ minWidth: 720 }}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Path</Table.Th>
              <Table.Th ta="right">Configured</Table.Th>
              <Table.Th ta="right">Buffer fwd (packets)</Table.Th>
              <Table.Th ta="right">Loaded RTT mean / max</Table.Th>
              <Table.Th ta="right">Utilisation fwd / rev</Table.Th>
              <Table.Th ta="right">Jain's index fwd / rev</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {summary.paths.map((p) => (
              <Table.Tr key={p.name}>
                <Table.Td>{p.name}</Table.Td>
                <Table.Td ta="right" ff="monospace">
                  {fmt(p.configured.rateMbps, 'Mbit/s')}, {fmt(p.configured.rttMs, 'ms')}
                  {p.configured.ber ? `, BER ${p.configured.ber}` : ''}
                </Table.Td>
                <Table.Td ta="right" ff="monospace">
                  {fmt(p.configured.bufferPackets.forward, '', 6)}
                </Table.Td>
                <Table.Td ta="right" ff="monospace">
                  {p.loadedRtt ? `${fmt(p.loadedRtt.meanMs)} / ${fmt(p.loadedRtt.maxMs, 'ms')}` : '—'}
                </Table.Td>
                <Table.Td ta="right" ff="monospace">
                  {fmtPct(p.utilisation.forward)} / {fmtPct(p.utilisation.reverse)}
                </Table.Td>
                <Table.Td ta="right" ff="monospace">
                  {fmt(p.jain.forward)} / {fmt(p.jain.reverse)}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </Paper>
  );
}
