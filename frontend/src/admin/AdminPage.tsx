// Users, roles and quotas. Admins edit; instructors see their class (the service filters).
import {
  Alert,
  Button,
  Grid,
  Group,
  NumberInput,
  Paper,
  PasswordInput,
  ScrollArea,
  Select,
  Stack,
  Table,
  TextInput,
  Title,
} from '@mantine/core';
import { type FormEvent, useEffect, useState } from 'react';
import {
  useCreateUser,
  useDeleteUser,
  useQuotas,
  useSetQuota,
  useUpdateUser,
  useUsers,
} from '../api/queries';
import type { Quota, Role } from '../api/types';
import { useSession } from '../auth/session';
import { useClasses } from '../classroom/api';

const ROLES: Role[] = ['student', 'instructor', 'admin'];

function NewUserForm() {
  const create = useCreateUser();
  const classes = useClasses();
  const [u, setU] = useState({ username: '', password: '', role: 'student' as Role, class: '' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { username: u.username, password: u.password, role: u.role, ...(u.class ? { class: u.class } : {}) },
      { onSuccess: () => setU({ username: '', password: '', role: u.role, class: u.class }) },
    );
  };
  return (
    <form onSubmit={submit} aria-label="New user">
      <Group align="flex-end" gap="xs" wrap="wrap">
        <TextInput
          label="User name"
          required
          size="xs"
          value={u.username}
          onChange={(e) => setU({ ...u, username: e.currentTarget.value })}
        />
        <PasswordInput
          label="Password"
          required
          size="xs"
          w={160}
          value={u.password}
          onChange={(e) => setU({ ...u, password: e.currentTarget.value })}
        />
        <Select
          label="Role"
          size="xs"
          w={120}
          data={ROLES}
          value={u.role}
          allowDeselect={false}
          onChange={(r) => setU({ ...u, role: (r as Role) ?? 'student' })}
        />
        {/* Classes are records: pick one, so a typo cannot name a class that does not exist. */}
        <Select
          label="Class"
          size="xs"
          w={140}
          placeholder={classes.data?.length ? 'none' : 'no classes yet'}
          data={(classes.data ?? []).map((c) => c.name)}
          value={u.class || null}
          clearable
          onChange={(c) => setU({ ...u, class: c ?? '' })}
        />
        <Button type="submit" size="xs" loading={create.isPending}>
          Add user
        </Button>
      </Group>
      {create.error && (
        <Alert color="red" mt="xs" p="xs">
          {create.error.message}
        </Alert>
      )}
    </form>
  );
}

function QuotaRow({ role, quota, editable }: { role: Role; quota: Quota; editable: boolean }) {
  const set = useSetQuota();
  const [q, setQ] = useState(quota);
  useEffect(() => setQ(quota), [quota]);
  const field = (k: keyof Quota, label: string) => (
    <Table.Td>
      <NumberInput
        aria-label={`${role} ${label}`}
        size="xs"
        w={88}
        min={0}
        value={q[k]}
        disabled={!editable}
        onChange={(v) => setQ({ ...q, [k]: Number(v) })}
      />
    </Table.Td>
  );
  return (
    <Table.Tr>
      <Table.Th scope="row">{role}</Table.Th>
      {field('concurrentRuns', 'concurrent runs')}
      {field('maxDurationS', 'max duration (s)')}
      {field('maxRateMbps', 'max rate (Mbit/s)')}
      {field('maxFlows', 'max flows')}
      <Table.Td>
        {editable && (
          <Button
            size="xs"
            variant="light"
            loading={set.isPending}
            onClick={() => set.mutate({ role, quota: q })}
          >
            Save
          </Button>
        )}
        {set.error && <span role="alert"> {set.error.message}</span>}
      </Table.Td>
    </Table.Tr>
  );
}

export function AdminPage() {
  const { user } = useSession();
  const isAdmin = user?.role === 'admin';
  const users = useUsers();
  const quotas = useQuotas();
  const update = useUpdateUser();
  const remove = useDeleteUser();
  return (
    <Stack>
      <Title order={2}>{isAdmin ? 'Users, roles and quotas' : `Class ${user?.class ?? ''}`}</Title>
      <Grid>
        <Grid.Col span={{ base: 12, xl: 7 }}>
          <Paper withBorder p="sm" radius="md">
            <Title order={3} size="h4" mb="xs">
              Users
            </Title>
            {isAdmin && <NewUserForm />}
            {users.error && <Alert color="red">{users.error.message}</Alert>}
            <Table mt="sm" striped data-testid="users">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>User</Table.Th>
                  <Table.Th>Role</Table.Th>
                  <Table.Th>Class</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {(users.data ?? []).map((u) => (
                  <Table.Tr key={u.id}>
                    <Table.Td>{u.username}</Table.Td>
                    <Table.Td>
                      {isAdmin && u.id !== user?.id ? (
                        <Select
                          aria-label={`Role of ${u.username}`}
                          size="xs"
                          w={120}
                          data={ROLES}
                          value={u.role}
                          allowDeselect={false}
                          onChange={(r) => r && update.mutate({ id: u.id, role: r as Role })}
                        />
                      ) : (
                        u.role
                      )}
                    </Table.Td>
                    <Table.Td>{u.class ?? '—'}</Table.Td>
                    <Table.Td>
                      {isAdmin && u.id !== user?.id && (
                        <Button
                          size="compact-xs"
                          color="red"
                          variant="subtle"
                          onClick={() => window.confirm(`Delete ${u.username}?`) && remove.mutate(u.id)}
                        >
                          Delete
                        </Button>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, xl: 5 }}>
          <Paper withBorder p="sm" radius="md">
            <Title order={3} size="h4" mb="xs">
              Quotas per role
            </Title>
            {quotas.error && <Alert color="red">{quotas.error.message}</Alert>}
            {/* Its own scroller: five number inputs made the whole page 1629 px wide at 1440. */}
            {quotas.data && (
              <ScrollArea type="auto">
                <Table fz="xs" style={{ minWidth: 560 }}>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Role</Table.Th>
                      <Table.Th>Concurrent runs</Table.Th>
                      <Table.Th>Max duration (s)</Table.Th>
                      <Table.Th>Max rate (Mbit/s)</Table.Th>
                      <Table.Th>Max flows</Table.Th>
                      <Table.Th />
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {ROLES.map(
                      (r) =>
                        quotas.data[r] && (
                          <QuotaRow key={r} role={r} quota={quotas.data[r]} editable={isAdmin} />
                        ),
                    )}
                  </Table.Tbody>
                </Table>
              </ScrollArea>
            )}
          </Paper>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
