// The module parameters of the stacks the flows use (spec `stackParams`), each with its meaning,
// unit, range and the module's own value; empty means the module's own value. In force for the run
// only: the lab restores each after it.
import { settableParams } from '@lfnlab/emulator/spec';
import { Button, Grid, Group, Paper, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { type FieldErrors, type UseFormReturn, useWatch } from 'react-hook-form';
import { errorAt } from './fieldError';
import type { SpecForm } from './formModel';

/** The parameters the spec sets for a stack (non-empty fields). */
const setNames = (params: Record<string, string> | undefined) =>
  Object.entries(params ?? {}).flatMap(([k, v]) => (String(v ?? '').trim() === '' ? [] : [k]));

/** The stacks to show: every flow's (in flow order), then any the spec sets that no flow uses. */
function stacksWithParams(form: Pick<SpecForm, 'flows' | 'stackParams'>): string[] {
  const named = [...form.flows.map((f) => f.stack), ...Object.keys(form.stackParams ?? {})];
  return [...new Set(named)].filter(
    (s) => settableParams(s).length > 0 || setNames(form.stackParams?.[s]).length > 0,
  );
}

export function StackParamsSection({
  form,
  errors,
}: {
  form: UseFormReturn<SpecForm>;
  errors: FieldErrors<SpecForm>;
}) {
  const { control, register } = form;
  const flows = useWatch({ control, name: 'flows' }) ?? [];
  const set = useWatch({ control, name: 'stackParams' }) ?? {};
  const stacks = stacksWithParams({ flows, stackParams: set });
  const count = stacks.reduce((n, st) => n + setNames(set[st]).length, 0);
  // Folded until wanted: opened when a spec that sets some arrives, and shown while one is wrong.
  const anySet = count > 0;
  const [open, setOpen] = useState(anySet);
  useEffect(() => {
    if (anySet) setOpen(true);
  }, [anySet]);
  const wrong = errors.stackParams !== undefined;
  const shown = open || wrong;
  if (stacks.length === 0) return null;
  return (
    <Paper withBorder p="sm" radius="md">
      <Group justify="space-between" wrap="wrap">
        <Title order={3} size="h4">
          Stack parameters
        </Title>
        <Button
          size="xs"
          variant="subtle"
          aria-expanded={shown}
          aria-controls="stack-params"
          onClick={() => setOpen(!shown)}
          disabled={wrong}
        >
          {shown ? 'Hide' : `Show (${stacks.join(', ')})`}
        </Button>
      </Group>
      {shown && (
        <div id="stack-params">
          <Text size="sm" c="dimmed" mb="xs">
            Module parameters of the stacks in use, in force for this run only ({count} set). Empty keeps the
            module's own value.
          </Text>
          {stacks.map((stack) => {
            const catalog = settableParams(stack);
            // A parameter the spec sets that the catalog does not offer still gets a field, for its error.
            const others = setNames(set[stack]).filter((n) => !catalog.some((p) => p.name === n));
            return (
              <fieldset
                key={stack}
                style={{ border: 0, padding: 0, margin: '0 0 var(--mantine-spacing-sm)' }}
              >
                <Text component="legend" fw={600} size="sm" mb={4}>
                  {stack}
                </Text>
                <Grid gap="sm">
                  {catalog.map((p) => (
                    <Grid.Col key={p.name} span={{ base: 12, sm: 6, lg: 4 }}>
                      <TextInput
                        label={p.name}
                        aria-label={`${stack} ${p.name}`}
                        description={`${p.meaning} · ${p.unit}, ${p.min} to ${p.max}`}
                        placeholder={`module's own: ${p.default}`}
                        inputMode="numeric"
                        {...register(`stackParams.${stack}.${p.name}`)}
                        error={errorAt(errors, `stackParams.${stack}.${p.name}`)}
                      />
                    </Grid.Col>
                  ))}
                  {others.map((name) => (
                    <Grid.Col key={name} span={{ base: 12, sm: 6, lg: 4 }}>
                      <TextInput
                        label={name}
                        aria-label={`${stack} ${name}`}
                        description="not a parameter the lab offers for this stack; clear it to drop it"
                        {...register(`stackParams.${stack}.${name}`)}
                        error={errorAt(errors, `stackParams.${stack}.${name}`)}
                      />
                    </Grid.Col>
                  ))}
                </Grid>
              </fieldset>
            );
          })}
        </div>
      )}
    </Paper>
  );
}
