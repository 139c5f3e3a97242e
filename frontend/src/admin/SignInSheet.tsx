// A printable sign-in sheet: where to sign in, and each student's username and generated password
// (known only in the reply that made them, so printed now or never). Printing shows this alone.
import { Button, Group, Paper, Table, Text, Title } from '@mantine/core';
import type { IssuedPassword } from '../classroom/api';

const PRINT_ONLY_SHEET = `@media print {
  body * { visibility: hidden; }
  .lfn-sign-in-sheet, .lfn-sign-in-sheet * { visibility: visible; }
  .lfn-sign-in-sheet { position: absolute; inset: 0 auto auto 0; width: 100%; border: 0; }
  .lfn-no-print { display: none !important; }
}`;

/** A password broken across two lines gets typed wrong. */
const NO_WRAP = { whiteSpace: 'nowrap' } as const;

export function SignInSheet({
  className,
  issued,
  onClose,
}: {
  className: string;
  issued: IssuedPassword[];
  onClose: () => void;
}) {
  return (
    <Paper withBorder p="md" radius="md" className="lfn-sign-in-sheet" data-testid="sign-in-sheet">
      <style>{PRINT_ONLY_SHEET}</style>
      <Group justify="space-between" mb="xs" wrap="wrap">
        <Title order={3} size="h4">
          Sign-in sheet: {className}
        </Title>
        <Group gap="xs" className="lfn-no-print">
          <Button onClick={() => window.print()}>Print</Button>
          <Button variant="subtle" onClick={onClose}>
            Close
          </Button>
        </Group>
      </Group>
      <Text size="sm" mb="xs">
        Sign in at <b>{window.location.origin}</b> and change your password under Account.
      </Text>
      <Text size="xs" c="dimmed" mb="xs" className="lfn-no-print">
        These passwords are shown only now. Print the sheet (or reset a password later).
      </Text>
      <Table.ScrollContainer minWidth={320}>
        <Table withTableBorder withColumnBorders fz="md">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Username</Table.Th>
              <Table.Th>Password</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {issued.map((s) => (
              <Table.Tr key={s.id}>
                <Table.Td>{s.display ?? ''}</Table.Td>
                <Table.Td ff="monospace" style={NO_WRAP}>
                  {s.username}
                </Table.Td>
                <Table.Td ff="monospace" style={NO_WRAP} data-testid={`password-${s.username}`}>
                  {s.password}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}
