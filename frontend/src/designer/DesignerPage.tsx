// Experiment designer: the spec as a form validated by the shared schema on every change, with
// live theory and topology beside it, file actions and a launch button.
import { STACK_NAMES } from '@lfnlab/emulator/spec';
import { Alert, Button, Divider, Grid, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { ApiError, get } from '../api/client';
import { useLabs, useStartRun } from '../api/queries';
import type { StoredSpec } from '../api/types';
import { navigate } from '../app/router';
import { pathTheory } from '../theory/specTheory';
import { FlowsSection } from './FlowsSection';
import { defaultSpecForm, type SpecForm } from './formModel';
import { PathsSection } from './PathsSection';
import { RunFields } from './RunFields';
import { SpecFileActions } from './SpecFileActions';
import { specResolver } from './specResolver';
import { formToYaml, takeDraft, yamlToForm } from './specText';
import { TheoryPanel } from './TheoryPanel';
import { TopologySketch } from './TopologySketch';

function initialForm(): SpecForm {
  const draft = takeDraft();
  if (draft) {
    try {
      return yamlToForm(draft);
    } catch {
      /* fall through to the default spec */
    }
  }
  return defaultSpecForm();
}

export function DesignerPage({ specId }: { specId?: string }) {
  const form = useForm<SpecForm>({
    defaultValues: useMemo(initialForm, []),
    resolver: specResolver,
    mode: 'all',
  });
  const { control, trigger, reset, formState, handleSubmit, setError } = form;
  const values = useWatch({ control }) as SpecForm;
  const labs = useLabs();
  const start = useStartRun();
  const [loadError, setLoadError] = useState<string | null>(null);

  // The lab's own list: a stack whose module failed to load is not offered.
  const lab = labs.data?.find((l) => l.state !== 'down') ?? labs.data?.[0];
  const stacks = lab?.stacks.length ? lab.stacks : [...STACK_NAMES];

  useEffect(() => {
    if (!specId) return;
    get<StoredSpec>(`/api/specs/${encodeURIComponent(specId)}`)
      .then((s) => reset(yamlToForm(s.text)))
      .catch((e: Error) => setLoadError(e.message));
  }, [specId, reset]);

  // Validate the whole spec on every change: cross-field rules (a flow starting after the run
  // ends) must show even when the field that broke them is another one.
  // biome-ignore lint/correctness/useExhaustiveDependencies: values is the trigger
  useEffect(() => {
    void trigger();
  }, [values, trigger]);

  const theory = useMemo(() => values.paths.map((p) => pathTheory(values, p)), [values]);
  const errors = formState.errors;
  const problemCount = countErrors(errors);

  const launch = handleSubmit((f) =>
    start.mutate(
      { text: formToYaml(f) },
      {
        onSuccess: (run) => navigate({ page: 'live', runId: run.id }),
        onError: (e) => {
          // The service names fields the same way the schema does; show its problems too.
          const problems = e instanceof ApiError ? e.problems : [];
          setError('root.server', {
            type: 'server',
            message: [e.message, ...problems.map((p) => `${p.path}: ${p.message}`)].join('\n'),
          });
        },
      },
    ),
  );

  return (
    <form onSubmit={launch} noValidate aria-label="Experiment designer">
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={2}>Experiment designer</Title>
        <Group gap="xs">
          <Text size="sm" c={problemCount ? 'red.8' : 'teal.8'} role="status" aria-live="polite">
            {problemCount ? `${problemCount} problem${problemCount > 1 ? 's' : ''} to fix` : 'Spec is valid'}
          </Text>
          <Button type="submit" loading={start.isPending} disabled={problemCount > 0}>
            Launch run
          </Button>
        </Group>
      </Group>
      {loadError && (
        <Alert color="red" mb="sm" title="Could not open the saved spec">
          {loadError}
        </Alert>
      )}
      {(errors.root?.message || errors.root?.server?.message) && (
        <Alert color="red" mb="sm" title="Problems" role="alert" style={{ whiteSpace: 'pre-wrap' }}>
          {[errors.root?.message, errors.root?.server?.message].filter(Boolean).join('\n')}
        </Alert>
      )}
      <Grid gap="md">
        <Grid.Col span={{ base: 12, lg: 8 }}>
          <Stack gap="md">
            <Paper withBorder p="sm" radius="md">
              <Title order={3} size="h4" mb="xs">
                Run
              </Title>
              <RunFields form={form} errors={errors} />
            </Paper>
            <PathsSection form={form} errors={errors} />
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          {/* Beside the form on wide screens; two across under it on a laptop. */}
          <SimpleGrid cols={{ base: 1, md: 2, lg: 1 }} spacing="md" style={{ position: 'sticky', top: 70 }}>
            <TheoryPanel theory={theory} />
            <Stack gap="md">
              <TopologySketch form={values} />
              <SpecFileActions form={values} specId={specId} onLoad={(f) => reset(f)} />
            </Stack>
          </SimpleGrid>
        </Grid.Col>
        <Grid.Col span={12}>
          <Divider mb="md" />
          <FlowsSection form={form} errors={errors} stacks={stacks} />
        </Grid.Col>
      </Grid>
    </form>
  );
}

/** Leaf error messages in react-hook-form's nested error object. */
export function countErrors(node: unknown): number {
  if (!node || typeof node !== 'object') return 0;
  const o = node as Record<string, unknown>;
  if (typeof o.message === 'string' && o.type !== 'server') return 1;
  return Object.entries(o).reduce((n, [k, v]) => (k === 'ref' ? n : n + countErrors(v)), 0);
}
