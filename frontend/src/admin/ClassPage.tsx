// One class: import students from a CSV list (printing the sign-in sheet with their generated
// passwords), reset a student's password, and set the class's quota within the admin's.
import {
  Alert,
  Anchor,
  Button,
  FileButton,
  Grid,
  Group,
  Loader,
  NumberInput,
  Paper,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { useEffect, useState } from 'react';
import { ApiError } from '../api/client';
import type { Quota } from '../api/types';
import { useSession } from '../auth/session';
import {
  type ClassDetail,
  type IssuedPassword,
  useClass,
  useImportStudents,
  useResetPassword,
  useSetClassQuota,
} from '../classroom/api';
import { classroomHref } from '../classroom/links';
import { ClassInstructors } from './ClassInstructors';
import { SignInSheet } from './SignInSheet';

const QUOTA_FIELDS: { key: keyof Quota; label: string; unit: string }[] = [
  { key: 'concurrentRuns', label: 'Runs at a time', unit: '' },
  { key: 'maxDurationS', label: 'Longest run', unit: 's' },
  { key: 'maxRateMbps', label: 'Highest rate', unit: 'Mbit/s' },
  { key: 'maxFlows', label: 'Most flows', unit: '' },
];

function ImportPanel({ cls, onIssued }: { cls: ClassDetail; onIssued: (p: IssuedPassword[]) => void }) {
  const [csv, setCsv] = useState('');
  const imp = useImportStudents(cls.id);
  const problems = imp.error instanceof ApiError ? imp.error.problems : [];
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby="import-title">
      <Title order={3} size="h4" id="import-title" mb="xs">
        Import students
      </Title>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          imp.mutate(csv, {
            onSuccess: (r) => {
              setCsv('');
              onIssued(r.created);
            },
          });
        }}
      >
        <Stack gap="xs">
          <Textarea
            label="Class list (CSV)"
            description="One student per line: username[,display name]. A header line is skipped. Each student gets a generated password."
            placeholder={'username,display\nada,Ada Lovelace\nalan,Alan Turing'}
            autosize
            minRows={4}
            maxRows={12}
            value={csv}
            onChange={(e) => setCsv(e.currentTarget.value)}
            error={problems.length ? problems.map((p) => p.message).join('\n') : imp.error?.message}
            styles={{ error: { whiteSpace: 'pre-wrap' } }}
          />
          <Group gap="xs">
            <Button type="submit" loading={imp.isPending} disabled={!csv.trim()}>
              Import and make passwords
            </Button>
            <FileButton accept=".csv,text/csv,text/plain" onChange={(f) => f?.text().then(setCsv)}>
              {(props) => (
                <Button variant="light" {...props}>
                  Read a CSV file
                </Button>
              )}
            </FileButton>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

function QuotaPanel({ cls }: { cls: ClassDetail }) {
  const set = useSetClassQuota(cls.id);
  const [q, setQ] = useState<Quota>(cls.quota ?? cls.roleQuota);
  useEffect(() => setQ(cls.quota ?? cls.roleQuota), [cls.quota, cls.roleQuota]);
  const problems = set.error instanceof ApiError ? set.error.problems : [];
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby="quota-title">
      <Title order={3} size="h4" id="quota-title">
        Quota for this class
      </Title>
      <Text size="xs" c="dimmed" mb="xs">
        {cls.quota ? 'Tighter than the admin’s student quota.' : 'Now: the admin’s student quota.'} Each limit
        may be at most the admin’s.
      </Text>
      <SimpleGrid cols={{ base: 2, md: 4 }} spacing="xs">
        {QUOTA_FIELDS.map((f) => (
          <NumberInput
            key={f.key}
            label={f.label}
            description={`at most ${cls.roleQuota[f.key]}${f.unit ? ` ${f.unit}` : ''}`}
            min={f.key === 'concurrentRuns' ? 0 : 1}
            max={cls.roleQuota[f.key]}
            value={q[f.key]}
            onChange={(v) => setQ({ ...q, [f.key]: Number(v) })}
            error={problems.find((p) => p.path === `quota.${f.key}`)?.message}
          />
        ))}
      </SimpleGrid>
      <Group mt="xs" gap="xs">
        <Button size="xs" onClick={() => set.mutate(q)} loading={set.isPending}>
          Save quota
        </Button>
        {cls.quota && (
          <Button size="xs" variant="subtle" onClick={() => set.mutate(null)}>
            Use the admin’s quota
          </Button>
        )}
        {set.isSuccess && !set.isPending && (
          <Text size="sm" role="status">
            Saved.
          </Text>
        )}
      </Group>
      {set.error && !problems.length && <Alert color="red">{set.error.message}</Alert>}
    </Paper>
  );
}

function Roster({ cls, onIssued }: { cls: ClassDetail; onIssued: (p: IssuedPassword[]) => void }) {
  const reset = useResetPassword(cls.id);
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby="roster-title">
      <Title order={3} size="h4" id="roster-title" mb="xs">
        Students ({cls.roster.length})
      </Title>
      {reset.error && <Alert color="red">{reset.error.message}</Alert>}
      <Table.ScrollContainer minWidth={360}>
        <Table striped fz="sm" data-testid="roster">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Username</Table.Th>
              <Table.Th>Name</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {cls.roster.map((s) => (
              <Table.Tr key={s.id}>
                <Table.Td ff="monospace">{s.username}</Table.Td>
                <Table.Td>{s.display ?? '—'}</Table.Td>
                <Table.Td ta="right">
                  <Button
                    size="compact-xs"
                    variant="subtle"
                    aria-label={`Reset the password of ${s.username}`}
                    loading={reset.isPending && reset.variables === s.id}
                    onClick={() =>
                      window.confirm(`Give ${s.username} a new password? Their old one stops working.`) &&
                      reset.mutate(s.id, { onSuccess: (p) => onIssued([p]) })
                    }
                  >
                    Reset password
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

export function ClassPage({ classId }: { classId: string }) {
  const q = useClass(classId);
  const { user } = useSession();
  const [issued, setIssued] = useState<IssuedPassword[] | null>(null);
  if (q.isPending) return <Loader aria-label="Loading class" />;
  if (q.error) return <Alert color="red">{q.error.message}</Alert>;
  const cls = q.data;
  const show = (p: IssuedPassword[]) => {
    setIssued(p);
    void q.refetch();
  };
  return (
    <Stack>
      <div>
        <Title order={2}>Class {cls.name}</Title>
        <Text size="sm" c="dimmed">
          <Anchor href={classroomHref.classes()}>All classes</Anchor> · taught by{' '}
          {cls.instructors.map((i) => i.username).join(', ') || 'nobody yet'}
        </Text>
      </div>
      {issued && <SignInSheet className={cls.name} issued={issued} onClose={() => setIssued(null)} />}
      <Grid>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <Stack>
            <ImportPanel cls={cls} onIssued={show} />
            <QuotaPanel cls={cls} />
            {user?.role === 'admin' && <ClassInstructors cls={cls} />}
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <Roster cls={cls} onIssued={show} />
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
