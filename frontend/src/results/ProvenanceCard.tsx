// Where and with what a run ran: the lfnlab code that ran and judged it, the lab (accelerator,
// clock source is in the verdict card), kernel, image and tools. What a reader needs to trust a
// number or to run it again; the same facts head the HTML report.
import { Code, Paper, Table, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import type { RunEnvironment } from '../api/types';

const ACCEL: Record<string, string> = {
  tcg: 'TCG (software emulation, no KVM)',
  kvm: 'KVM',
  remote: 'a lab PC (real NIC)',
};

function lfnlabText(id: RunEnvironment['lfnlab']) {
  if (!id?.version)
    return (
      <Text span c="dimmed">
        not recorded (the run predates lfnlab noting its version)
      </Text>
    );
  return (
    <>
      {id.version}
      {id.commit ? (
        <>
          {' · commit '}
          <Code>{id.commit}</Code>
          {id.modified ? ' (with uncommitted changes)' : ''}
        </>
      ) : null}
    </>
  );
}

export function ProvenanceCard({ environment }: { environment: RunEnvironment }) {
  const lab = environment.lab;
  const kernel = environment.image?.kernel;
  const labParts = [
    lab?.accel ? (ACCEL[lab.accel] ?? lab.accel) : null,
    lab?.cpus ? `${lab.cpus} vCPU` : null,
    lab?.memMb ? `${lab.memMb} MiB` : null,
    (lab?.qemuVersion ?? environment.host?.qemu)?.replace(/^QEMU emulator version /, 'QEMU ') ?? null,
  ].filter((x): x is string => Boolean(x));
  const tools = Object.entries(environment.toolVersions ?? {});
  const rows: [string, ReactNode][] = [
    ['lfnlab', lfnlabText(environment.lfnlab)],
    ['Lab', labParts.length ? labParts.join(' · ') : '—'],
    [
      'Kernel',
      kernel?.abi
        ? `${kernel.abi}${kernel.version ? ` (${kernel.package ?? 'linux-image'} ${kernel.version}${kernel.hz ? `, HZ=${kernel.hz}` : ''})` : ''}`
        : '—',
    ],
    ['Image', <Code key="image">{environment.image?.id ?? lab?.imageId ?? '—'}</Code>],
    ['Seed', String(environment.seed ?? '—')],
  ];
  return (
    <Paper withBorder p="sm" radius="md" data-testid="provenance">
      <Title order={3} size="h4" mb="xs">
        Where it ran
      </Title>
      <Table fz="sm" verticalSpacing={2} variant="vertical" layout="fixed">
        <Table.Tbody>
          {rows.map(([k, v]) => (
            <Table.Tr key={k}>
              <Table.Th w={110}>{k}</Table.Th>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>{v}</Table.Td>
            </Table.Tr>
          ))}
          {tools.length > 0 && (
            <Table.Tr>
              <Table.Th w={110}>Tools</Table.Th>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>
                {tools.map(([name, version]) => `${name}: ${version}`).join(' · ')}
              </Table.Td>
            </Table.Tr>
          )}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}
