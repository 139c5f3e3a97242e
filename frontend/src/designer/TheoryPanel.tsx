// Live theory for each path as the spec is typed: pipe size, PER from BER, Reno's responsiveness,
// the Mathis bound and the expected link use with N flows.
import { Paper, Stack, Table, Text, Title, Tooltip, UnstyledButton } from '@mantine/core';
import { fmt, fmtBytes, fmtDuration, fmtPct, fmtProb, fmtRate } from '../lib/format';
import type { PathTheory } from '../theory/specTheory';

function Row({ label, title, value }: { label: string; title: string; value: string }) {
  return (
    <Table.Tr>
      <Table.Th scope="row" fw={500}>
        <Tooltip label={title} multiline w={260} withArrow>
          {/* A button so keyboard users can focus it and get the definition too. */}
          <UnstyledButton
            type="button"
            fz="sm"
            fw={500}
            style={{ borderBottom: '1px dotted currentColor', cursor: 'help' }}
          >
            {label}
          </UnstyledButton>
        </Tooltip>
      </Table.Th>
      <Table.Td ta="right" style={{ whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>
        {value}
      </Table.Td>
    </Table.Tr>
  );
}

export function TheoryPanel({ theory }: { theory: PathTheory[] }) {
  return (
    <Paper withBorder p="sm" radius="md" aria-labelledby="theory-title">
      <Title order={3} size="h5" id="theory-title" mb="xs">
        Theory
      </Title>
      <Stack gap="sm">
        {theory.map((t) => (
          <div key={t.path} data-testid={`theory-${t.path}`}>
            <Text size="sm" fw={600}>
              {t.path}: {fmtRate(t.rateBps)}, {fmt(t.rttMs, 'ms')} RTT
            </Text>
            <Table fz="sm" verticalSpacing={2}>
              <Table.Tbody>
                <Row
                  label="BDP"
                  title="Bandwidth-delay product C·RTT/8: the bytes in flight that fill the pipe."
                  value={`${fmtBytes(t.bdpBytes)} · ${fmt(t.bdpPackets, 'packets')}`}
                />
                <Row
                  label="Buffer"
                  title="The bottleneck buffer in packets of the MTU, and as a multiple of the BDP."
                  value={`${fmt(t.bufferPackets, 'packets')}${t.bufferPackets !== null && t.bdpPackets ? ` · ${fmt(t.bufferPackets / t.bdpPackets, '× BDP')}` : ''}`}
                />
                <Row
                  label="Reno recovery ρ"
                  title="ρ = C·RTT²/(2·MSS): time for Reno to climb back from half the pipe to all of it at one MSS per RTT."
                  value={fmtDuration(t.renoResponsivenessS)}
                />
                <Row
                  label="Mathis bound"
                  title="(MSS/RTT)·√(3/2)/√p with p the line-error PER at the MTU: the most a loss-limited Reno flow can carry."
                  value={t.mathisBps === null ? 'no line loss' : fmtRate(t.mathisBps)}
                />
                <Row
                  label={`Link use, N = ${t.forwardConnections}`}
                  title="1 − 1/2^(N+1): average use of the link by N synchronised Reno connections (seed 003 eq. 12)."
                  value={fmtPct(t.expectedLinkUse)}
                />
              </Table.Tbody>
            </Table>
            {t.per && (
              <Table
                fz="xs"
                verticalSpacing={1}
                mt={4}
                aria-label={`Packet error rate by packet size on ${t.path}`}
              >
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Packet size</Table.Th>
                    {t.per.map((p) => (
                      <Table.Th key={p.bytes} ta="right">
                        {p.bytes} B
                      </Table.Th>
                    ))}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  <Table.Tr>
                    <Table.Th scope="row">PER</Table.Th>
                    {t.per.map((p) => (
                      <Table.Td key={p.bytes} ta="right" style={{ fontVariantNumeric: 'tabular-nums' }}>
                        {fmtProb(p.per)}
                      </Table.Td>
                    ))}
                  </Table.Tr>
                </Table.Tbody>
              </Table>
            )}
          </div>
        ))}
      </Stack>
    </Paper>
  );
}
