// One assignment. Students: read the theory, set the fields they may change, write a prediction,
// run, then read the checkpoints and answer the questions. Instructors: the same sheet as a preview,
// with a link to the class table.
import {
  Alert,
  Anchor,
  Button,
  Code,
  Group,
  Loader,
  Paper,
  Spoiler,
  Stack,
  Table,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { type ReactNode, useEffect, useState } from 'react';
import { ApiError } from '../api/client';
import { hrefOf } from '../app/router';
import { useSession } from '../auth/session';
import { type AssignmentView, useAssignment, useLaunch, useSaveAnswers } from './api';
import { Checkpoints } from './Checkpoints';
import { classroomHref } from './links';
import { type FieldValues, SheetFields } from './SheetFields';
import { StateBadge } from './StateBadge';
import { TheoryText } from './TheoryText';

function Section({ title, children, id }: { title: string; children: ReactNode; id: string }) {
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby={id}>
      <Title order={3} size="h4" id={id} mb="xs">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

/** Problems from the service keyed by field path; the rest to show as one message. */
function splitProblems(err: unknown): { byPath: Record<string, string>; message: string | null } {
  if (!(err instanceof ApiError)) return { byPath: {}, message: err ? String((err as Error).message) : null };
  const byPath: Record<string, string> = {};
  const rest: string[] = [];
  for (const p of err.problems)
    if (p.path.startsWith('values.') || p.path === 'prediction') byPath[p.path] = p.message;
    else rest.push(`${p.path}: ${p.message}`);
  return { byPath, message: rest.length ? rest.join('; ') : err.problems.length ? null : err.message };
}

function RunStep({ view, assignmentId }: { view: AssignmentView; assignmentId: string }) {
  const { sheet } = view.assignment;
  const initial = Object.fromEntries(
    Object.entries(view.template.values).filter((e): e is [string, number | string] => e[1] !== null),
  );
  const [values, setValues] = useState<FieldValues>(initial);
  const [prediction, setPrediction] = useState('');
  const launch = useLaunch(assignmentId);
  const { byPath, message } = splitProblems(launch.error);
  const started = launch.data;
  return (
    <Section title="Predict, then run" id="run-step">
      <Stack gap="sm">
        {sheet.fields.length > 0 && (
          <SheetFields fields={sheet.fields} values={values} onChange={setValues} errors={byPath} />
        )}
        <Textarea
          label="Your prediction"
          description={sheet.prediction}
          autosize
          minRows={2}
          value={prediction}
          onChange={(e) => setPrediction(e.currentTarget.value)}
          error={byPath.prediction}
          required
        />
        <Group>
          <Button
            onClick={() => launch.mutate({ prediction, values })}
            loading={launch.isPending}
            disabled={prediction.trim() === ''}
          >
            Run the experiment
          </Button>
          {prediction.trim() === '' && (
            <Text size="sm" c="dimmed">
              Write your prediction first.
            </Text>
          )}
        </Group>
        {message && (
          <Alert color="red" title="Not started">
            {message}
          </Alert>
        )}
        {started && view.grade?.state === 'waiting' && (
          <Alert color="blue" title="Queued">
            Run {started.id} is{' '}
            {view.grade.lastRun?.id === started.id ? view.grade.lastRun.status : started.status}.{' '}
            <Anchor href={hrefOf({ page: 'live', runId: started.id })}>Watch it live</Anchor>; the checkpoints
            below are graded when it ends.
          </Alert>
        )}
      </Stack>
    </Section>
  );
}

function Answers({ view, assignmentId }: { view: AssignmentView; assignmentId: string }) {
  const { questions } = view.assignment.sheet;
  const [answers, setAnswers] = useState<Record<string, string>>(view.submission?.answers ?? {});
  const save = useSaveAnswers(assignmentId);
  useEffect(() => {
    if (view.submission?.answers) setAnswers((a) => ({ ...view.submission?.answers, ...a }));
  }, [view.submission?.answers]);
  return (
    <Section title="Questions" id="questions">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(answers);
        }}
      >
        <Stack gap="sm">
          {questions.map((q, i) => (
            <Textarea
              key={q.id}
              label={`${i + 1}. ${q.text}`}
              autosize
              minRows={2}
              value={answers[q.id] ?? ''}
              onChange={(e) => setAnswers({ ...answers, [q.id]: e.currentTarget.value })}
            />
          ))}
          <Group>
            <Button type="submit" variant="light" loading={save.isPending}>
              Save answers
            </Button>
            {save.isSuccess && !save.isPending && (
              <Text size="sm" role="status">
                Saved at {new Date(save.data.answeredAt ?? Date.now()).toLocaleTimeString()}.
              </Text>
            )}
          </Group>
          {save.error && <Alert color="red">{save.error.message}</Alert>}
        </Stack>
      </form>
    </Section>
  );
}

function Attempts({ view }: { view: AssignmentView }) {
  const attempts = view.submission?.attempts ?? [];
  if (!attempts.length) return null;
  return (
    <Table.ScrollContainer minWidth={480}>
      <Table fz="sm" data-testid="attempts">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Run</Table.Th>
            <Table.Th>Values</Table.Th>
            <Table.Th>Your prediction</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {[...attempts].reverse().map((a) => (
            <Table.Tr key={a.runId}>
              <Table.Td>
                <Anchor href={hrefOf({ page: 'results', runId: a.runId })} ff="monospace" size="sm">
                  {a.runId}
                </Anchor>
              </Table.Td>
              <Table.Td>
                {Object.entries(a.values)
                  .map(([k, v]) => `${k} = ${v}`)
                  .join(', ') || 'as given'}
              </Table.Td>
              <Table.Td>{a.prediction}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function AssignmentPage({ assignmentId }: { assignmentId: string }) {
  const { user } = useSession();
  const q = useAssignment(assignmentId);
  if (q.isPending) return <Loader aria-label="Loading assignment" />;
  if (q.error) return <Alert color="red">{q.error.message}</Alert>;
  const view = q.data;
  const { sheet } = view.assignment;
  const student = user?.role === 'student';
  const grade = view.grade;
  return (
    <Stack>
      <div>
        <Title order={2}>{sheet.title}</Title>
        <Text c="dimmed" size="sm">
          Class {view.assignment.className}
          {view.assignment.due && ` · due ${new Date(view.assignment.due).toLocaleString()}`}
          {sheet.basedOn && (
            <>
              {' · built on the preset '}
              <Anchor href={hrefOf({ page: 'presets' })}>{sheet.basedOn}</Anchor>
            </>
          )}
          {!student && (
            <>
              {' · '}
              <Anchor href={classroomHref.table(assignmentId)}>Class table</Anchor>
            </>
          )}
        </Text>
      </div>
      <Text>{sheet.summary}</Text>
      <Section title="Theory" id="theory">
        <TheoryText text={sheet.theory} />
      </Section>
      <Section title="The experiment" id="experiment">
        <Text size="sm" mb="xs">
          The experiment is fixed except for the fields below{student ? '' : ' (students set them)'}.
        </Text>
        <Spoiler maxHeight={90} showLabel="Show the whole spec" hideLabel="Show less">
          <Code block>{view.template.text}</Code>
        </Spoiler>
      </Section>
      {student && <RunStep view={view} assignmentId={assignmentId} />}
      <Section title="Checkpoints" id="checkpoints-title">
        {grade && (
          <Group gap="xs" mb="xs">
            <StateBadge state={grade.state} />
            <Text size="sm" fw={600} data-testid="score" data-state={grade.state}>
              {grade.score} of {grade.maxScore} points
            </Text>
            {grade.stuckReason && (
              <Text size="sm" c="dimmed">
                {grade.stuckReason}
              </Text>
            )}
          </Group>
        )}
        <Checkpoints sheet={sheet} grades={grade ? grade.checkpoints : null} />
        {student && <Attempts view={view} />}
      </Section>
      {student && sheet.questions.length > 0 && <Answers view={view} assignmentId={assignmentId} />}
    </Stack>
  );
}
