// The signed-in user's own account: change the password (giving the current one), and API tokens
// for scripts (the secret is shown once, when made; revoking one ends it at once).
import {
  Alert,
  Button,
  Code,
  CopyButton,
  Grid,
  Group,
  Paper,
  PasswordInput,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../api/client';
import { useSession } from '../auth/session';
import { useChangePassword, useCreateToken, useRevokeToken, useTokens } from '../classroom/api';

function PasswordForm({ userId, username }: { userId: string; username: string }) {
  const change = useChangePassword(userId);
  const [f, setF] = useState({ current: '', next: '', again: '' });
  const mismatch = f.again !== '' && f.next !== f.again;
  const problems = change.error instanceof ApiError ? change.error.problems : [];
  const problem = (path: string) => problems.find((p) => p.path === path)?.message;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (mismatch) return;
    change.mutate(
      { currentPassword: f.current, password: f.next },
      { onSuccess: () => setF({ current: '', next: '', again: '' }) },
    );
  };
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby="password-title">
      <Title order={3} size="h4" id="password-title" mb="xs">
        Change your password
      </Title>
      <form onSubmit={submit}>
        <Stack gap="xs" maw={360}>
          {/* A hidden username lets password managers file the new password under the right account. */}
          <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            required
            value={f.current}
            onChange={(e) => setF({ ...f, current: e.currentTarget.value })}
            error={problem('currentPassword')}
          />
          <PasswordInput
            label="New password"
            description="At least 10 characters, not your username, not a common password"
            autoComplete="new-password"
            required
            value={f.next}
            onChange={(e) => setF({ ...f, next: e.currentTarget.value })}
            error={problem('password')}
          />
          <PasswordInput
            label="New password again"
            autoComplete="new-password"
            required
            value={f.again}
            onChange={(e) => setF({ ...f, again: e.currentTarget.value })}
            error={mismatch ? 'does not match the new password' : undefined}
          />
          <Group>
            <Button type="submit" loading={change.isPending} disabled={mismatch}>
              Change password
            </Button>
          </Group>
          {change.isSuccess && (
            <Text size="sm" role="status">
              Password changed. Your other sessions and API tokens have ended.
            </Text>
          )}
          {change.error && !problems.length && <Alert color="red">{change.error.message}</Alert>}
        </Stack>
      </form>
    </Paper>
  );
}

function Tokens() {
  const tokens = useTokens();
  const create = useCreateToken();
  const revoke = useRevokeToken();
  const [name, setName] = useState('');
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby="tokens-title">
      <Title order={3} size="h4" id="tokens-title">
        API tokens
      </Title>
      <Text size="xs" c="dimmed" mb="xs">
        For scripts: send <Code>Authorization: Bearer lfn_…</Code>. A token acts as you; changing your
        password revokes them all.
      </Text>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate(name.trim(), { onSuccess: () => setName('') });
        }}
      >
        <Group align="flex-end" gap="xs" wrap="wrap">
          <TextInput
            label="Name"
            placeholder="grading script"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={create.error?.message}
            required
            w={220}
          />
          <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
            New token
          </Button>
        </Group>
      </form>
      {create.data && (
        <Alert color="blue" mt="xs" title={`Token “${create.data.name}”: copy it now, it is not shown again`}>
          <Group gap="xs" wrap="nowrap">
            <Code style={{ wordBreak: 'break-all' }} data-testid="new-token">
              {create.data.token}
            </Code>
            <CopyButton value={create.data.token}>
              {({ copied, copy }) => (
                <Button size="compact-xs" variant="light" onClick={copy}>
                  {copied ? 'Copied' : 'Copy'}
                </Button>
              )}
            </CopyButton>
          </Group>
        </Alert>
      )}
      {revoke.error && <Alert color="red">{revoke.error.message}</Alert>}
      <Table.ScrollContainer minWidth={360}>
        <Table mt="xs" fz="sm" data-testid="tokens">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Made</Table.Th>
              <Table.Th>Last used</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(tokens.data ?? []).map((t) => (
              <Table.Tr key={t.id}>
                <Table.Td>{t.name}</Table.Td>
                <Table.Td>{new Date(t.createdAt).toLocaleString()}</Table.Td>
                <Table.Td>{t.lastUsedAt ? new Date(t.lastUsedAt).toLocaleString() : 'never'}</Table.Td>
                <Table.Td ta="right">
                  <Button
                    size="compact-xs"
                    color="red"
                    variant="subtle"
                    aria-label={`Revoke token ${t.name}`}
                    onClick={() => revoke.mutate(t.id)}
                  >
                    Revoke
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
            {tokens.data?.length === 0 && (
              <Table.Tr>
                <Table.Td colSpan={4}>
                  <Text size="sm" c="dimmed">
                    No tokens.
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

export function AccountPage() {
  const { user } = useSession();
  if (!user) return null;
  return (
    <Stack>
      <Title order={2}>Your account</Title>
      <Text size="sm" c="dimmed">
        Signed in as {user.username} ({user.role}
        {user.class ? `, class ${user.class}` : ''}).
      </Text>
      <Grid>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <PasswordForm userId={user.id} username={user.username} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <Tokens />
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
