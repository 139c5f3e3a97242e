// Experiment designer: the spec as a form validated by the shared schema on every change, with
// live theory and topology beside it, file actions and a launch button.
import { quotaProblems, registerLabStacks, STACK_NAMES } from '@lfnlab/emulator/spec';
import { Alert, Button, Divider, Grid, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { ApiError, get } from '../api/client';
import { useLabs, useQuotas, useStacks, useStartRun } from '../api/queries';
import type { StoredSpec } from '../api/types';
import { navigate } from '../app/router';
import { useSessionUser } from '../auth/session';
import { pathTheory } from '../theory/specTheory';
import { FlowsSection } from './FlowsSection';
import { defaultSpecForm, type SpecForm } from './formModel';
import { PathsSection } from './PathsSection';
import { RunFields } from './RunFields';
import { SpecFileActions } from './SpecFileActions';
import { StackParamsSection } from './StackParamsSection';
import { checkSpecForm, specResolver } from './specResolver';
import { formToYaml, takeDraft, yamlToForm } from './specText';
import { TheoryPanel } from './TheoryPanel';
import { TopologySketch } from './TopologySketch';
import { loadWorkingCopy, saveWorkingCopy } from './workingCopy';

function initialForm(specId: string | undefined): SpecForm {
  const draft = takeDraft();
  if (draft) {
    try {
      return yamlToForm(draft);
    } catch {
      /* fall through */
    }
  }
  return loadWorkingCopy(specId) ?? defaultSpecForm();
}

export function DesignerPage({ specId }: { specId?: string }) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: read once per page (keyed by spec)
  const restored = useMemo(() => loadWorkingCopy(specId) !== null, []);
  const form = useForm<SpecForm>({
    // biome-ignore lint/correctness/useExhaustiveDependencies: the page is keyed by spec id
    defaultValues: useMemo(() => initialForm(specId), []),
    resolver: specResolver,
    mode: 'all',
  });
  const { control, trigger, reset, formState, handleSubmit, setError } = form;
  const values = useWatch({ control }) as SpecForm;
  const labs = useLabs();
  const start = useStartRun();
  const [loadError, setLoadError] = useState<string | null>(null);

  // The service's catalog is what its API validates against, labs up or down: the designer's copy of
  // the schema takes the same names (and added stacks' parameters), so both say the same things.
  const catalog = useStacks().data;
  // The lab's own list is what is offered: a stack whose module failed to load is not.
  const lab = labs.data?.find((l) => l.state !== 'down') ?? labs.data?.[0];
  const stacks = lab?.stacks.length ? lab.stacks : (catalog?.map((s) => s.name) ?? [...STACK_NAMES]);
  const known = [...(catalog?.map((s) => s.name) ?? []), ...stacks];
  const params = Object.fromEntries(
    (catalog ?? []).flatMap((s) => (s.params?.length ? [[s.name, s.params]] : [])),
  );
  // In render, not an effect: the validation effect below must already see them.
  const stackKey = `${known.join(',')} ${JSON.stringify(params)}`;
  // biome-ignore lint/correctness/useExhaustiveDependencies: stackKey stands for the list
  useMemo(() => registerLabStacks(known, params), [stackKey]);

  useEffect(() => {
    // A working copy of this spec (edited, then left) wins over the stored text.
    if (!specId || restored) return;
    get<StoredSpec>(`/api/specs/${encodeURIComponent(specId)}`)
      .then((s) => reset(yamlToForm(s.text)))
      .catch((e: Error) => setLoadError(e.message));
  }, [specId, reset, restored]);

  // Validate the whole spec on every change: cross-field rules (a flow starting after the run
  // ends) must show even when the field that broke them is another one.
  // biome-ignore lint/correctness/useExhaustiveDependencies: values (and the lab's stacks) trigger it
  useEffect(() => {
    void trigger();
    saveWorkingCopy(specId, values);
  }, [values, trigger, specId, stackKey]);

  const theory = useMemo(() => values.paths.map((p) => pathTheory(values, p)), [values]);
  const errors = formState.errors;
  // The role's quota, checked as the person types (the same rules the service applies at launch).
  const user = useSessionUser();
  const quotas = useQuotas(Boolean(user));
  const overQuota = useMemo(() => {
    const q = user && quotas.data?.[user.role];
    if (!q) return [];
    const checked = checkSpecForm(values);
    return checked.ok ? quotaProblems(checked.spec, q, user.role) : [];
  }, [values, quotas.data, user]);
  const problemCount = countErrors(errors) + overQuota.length;

  const launch = handleSubmit((f) =>
    start.mutate(
      { text: formToYaml(f) },
      {
        onSuccess: (run) => navigate({ page: 'live', runId: run.id }),
        onError: (e) => {
          // The service's message repeats its problems: show each problem once, or the message.
          const problems = e instanceof ApiError ? e.problems : [];
          setError('root.server', {
            type: 'server',
            message: problems.length ? problems.map((p) => `${p.path}: ${p.message}`).join('\n') : e.message,
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
      {overQuota.length > 0 && (
        <Alert color="red" mb="sm" title={`Over the ${user?.role} quota`} data-testid="quota-problems">
          {overQuota.map((p) => (
            <Text size="sm" key={`${p.path}:${p.message}`}>
              {p.path}: {p.message}
            </Text>
          ))}
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
        <Grid.Col span={12}>
          <StackParamsSection form={form} errors={errors} />
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
