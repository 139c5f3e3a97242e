import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../api/client';
import { useSession } from './session';

export function LoginPage() {
  const { login } = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login(username, password);
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? 'Wrong user name or password'
          : (err as Error).message,
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <Center mih="100vh" bg="gray.0" p="md">
      <Paper withBorder shadow="sm" p="xl" radius="md" w={380} component="main">
        <form onSubmit={submit} aria-labelledby="login-title">
          <Stack>
            <div>
              <Title order={1} size="h2" id="login-title">
                lfnlab
              </Title>
              <Text size="sm" c="dimmed">
                TCP stacks over long fat networks. Sign in to design and run experiments.
              </Text>
            </div>
            <TextInput
              label="User name"
              autoComplete="username"
              required
              value={username}
              onChange={(e) => setUsername(e.currentTarget.value)}
              autoFocus
            />
            <PasswordInput
              label="Password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
            />
            {error && (
              <Alert color="red" role="alert" p="xs">
                {error}
              </Alert>
            )}
            <Button type="submit" loading={busy}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
