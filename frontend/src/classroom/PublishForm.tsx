// Publishing a lab sheet to a class: a shipped sheet as it is, or customised as YAML (fields,
// ranges, questions, checkpoints in the checkpoint language). The service checks the sheet and
// that the class can run it; each problem is listed with the field it names.
import {
  Alert,
  Anchor,
  Button,
  Group,
  List,
  Paper,
  Select,
  Switch,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { parse, stringify } from 'yaml';
import { ApiError } from '../api/client';
import { type Sheet, useClasses, usePublish, useSheets } from './api';
import { CheckpointReference } from './CheckpointReference';
import { classroomHref } from './links';

/** The YAML as a sheet object, or why it is not one. */
function readYaml(text: string): { sheet: Sheet } | { error: string } {
  try {
    const doc = parse(text);
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
      return { error: 'the sheet must be a YAML mapping (id, title, template, checkpoints, …)' };
    return { sheet: doc as Sheet };
  } catch (e) {
    return { error: `not valid YAML: ${(e as Error).message}` };
  }
}

export function PublishForm() {
  const classes = useClasses();
  const sheets = useSheets();
  const publish = usePublish();
  const [classId, setClassId] = useState<string | null>(null);
  const [sheetId, setSheetId] = useState<string | null>(null);
  const [custom, setCustom] = useState(false);
  const [yamlText, setYamlText] = useState('');
  const [yamlError, setYamlError] = useState<string | null>(null);
  /** datetime-local text (the browser's time zone), or '' for no due date. */
  const [due, setDue] = useState('');
  const sheet = sheets.data?.find((s) => s.id === sheetId);
  const problems = publish.error instanceof ApiError ? publish.error.problems : [];

  const chooseSheet = (id: string | null) => {
    setSheetId(id);
    const s = sheets.data?.find((x) => x.id === id);
    if (s) setYamlText(stringify(s));
  };
  const submit = () => {
    if (!classId || !sheetId) return;
    setYamlError(null);
    const dueAt = due ? { due: new Date(due).toISOString() } : {};
    if (!custom) return publish.mutate({ classId, sheetId, ...dueAt });
    const r = readYaml(yamlText);
    if ('error' in r) return setYamlError(r.error);
    publish.mutate({ classId, sheet: r.sheet, ...dueAt });
  };

  if (classes.data && classes.data.length === 0)
    return (
      <Paper withBorder p="sm" radius="md">
        <Text size="sm">
          You teach no class yet. <Anchor href={classroomHref.classes()}>Create one under Classes</Anchor>.
        </Text>
      </Paper>
    );
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby="publish-title">
      <Title order={3} size="h4" id="publish-title" mb="xs">
        Publish a lab sheet
      </Title>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Group align="flex-end" wrap="wrap" gap="sm">
          <Select
            label="Class"
            placeholder="Choose a class"
            data={(classes.data ?? []).map((c) => ({
              value: c.id,
              label: `${c.name} (${c.students} students)`,
            }))}
            value={classId}
            onChange={setClassId}
            w={240}
            required
          />
          <Select
            label="Sheet"
            placeholder="Choose a sheet"
            data={(sheets.data ?? []).map((s) => ({ value: s.id, label: s.title }))}
            value={sheetId}
            onChange={chooseSheet}
            w={320}
            maw="100%"
            required
          />
          <TextInput
            type="datetime-local"
            label="Due (optional)"
            value={due}
            onChange={(e) => setDue(e.currentTarget.value)}
            error={problems.find((p) => p.path === 'due')?.message}
            w={220}
          />
          <Button type="submit" loading={publish.isPending} disabled={!classId || !sheetId}>
            Publish
          </Button>
        </Group>
        {sheet && (
          <Text size="sm" c="dimmed" mt="xs">
            {sheet.summary} {sheet.basedOn && `Built on the preset ${sheet.basedOn}.`}{' '}
            {sheet.checkpoints.length} checkpoints, {sheet.questions.length} questions.
          </Text>
        )}
        <Switch
          mt="sm"
          label="Customise the sheet (YAML): fields and ranges, questions, checkpoints"
          checked={custom}
          onChange={(e) => setCustom(e.currentTarget.checked)}
          disabled={!sheet}
        />
        {custom && sheet && (
          <Textarea
            mt="xs"
            label="Sheet (YAML)"
            description={
              'Checkpoints compare the run’s summary, e.g. jain() >= 0.9, share("cubic") > share("reno"), ' +
              'metric("recovery.time", "reno") within 20% of theory("responsiveness"). Every function is listed below.'
            }
            autosize
            minRows={8}
            maxRows={24}
            value={yamlText}
            onChange={(e) => setYamlText(e.currentTarget.value)}
            error={yamlError}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 12 } }}
          />
        )}
        {custom && sheet && <CheckpointReference />}
        {publish.error && (
          <Alert color="red" mt="xs" title="Not published">
            {problems.length ? (
              <List size="sm" data-testid="publish-problems">
                {problems.map((p) => (
                  <List.Item key={`${p.path}:${p.message}`}>
                    <code>{p.path}</code>: {p.message}
                  </List.Item>
                ))}
              </List>
            ) : (
              publish.error.message
            )}
          </Alert>
        )}
        {publish.isSuccess && (
          <Alert color="blue" mt="xs">
            Published “{publish.data.sheet.title}” to {publish.data.className}.{' '}
            <Anchor href={classroomHref.table(publish.data.id)}>Open its class table</Anchor>
          </Alert>
        )}
      </form>
    </Paper>
  );
}
