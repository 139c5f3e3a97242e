// UDP cross traffic of one path: CBR, sinusoidal or self-similar, rates absolute or as a share.
import { ActionIcon, Button, Grid, Group, Paper, Select, Text, TextInput } from '@mantine/core';
import { Controller, type FieldErrors, type UseFormReturn, useFieldArray, useWatch } from 'react-hook-form';
import { errorAt } from './fieldError';
import { newCross, type SpecForm } from './formModel';

const PATTERNS = [
  { value: 'cbr', label: 'CBR (constant rate)' },
  { value: 'sine', label: 'Sine (mean ± amplitude)' },
  { value: 'selfsimilar', label: 'Self-similar (Hurst)' },
];

export function CrossFields({
  form,
  errors,
  pathIndex,
}: {
  form: UseFormReturn<SpecForm>;
  errors: FieldErrors<SpecForm>;
  pathIndex: number;
}) {
  const { control, register } = form;
  const { fields, append, remove } = useFieldArray({ control, name: `paths.${pathIndex}.cross` });
  const patterns = useWatch({ control, name: `paths.${pathIndex}.cross` }) ?? [];
  const at = (k: number, f: string) => `paths.${pathIndex}.cross.${k}.${f}` as const;
  return (
    <div>
      <Group justify="space-between" mb={4}>
        <Text fw={600} size="sm">
          UDP cross traffic
        </Text>
        <Button
          size="compact-xs"
          variant="light"
          onClick={() => append(newCross('cbr'))}
          disabled={fields.length >= 8}
        >
          Add UDP source
        </Button>
      </Group>
      {fields.length === 0 && (
        <Text size="xs" c="dimmed">
          None. Rates may be absolute (20Mbit) or a share of the bottleneck (10%).
        </Text>
      )}
      {fields.map((f, k) => {
        const pattern = patterns[k]?.pattern ?? 'cbr';
        const prefix = `paths.${pathIndex}.cross.${k}` as const;
        return (
          <Paper key={f.id} withBorder p="xs" mb="xs">
            <Grid gap="xs" align="flex-end">
              <Grid.Col span={{ base: 12, sm: 4 }}>
                <Controller
                  control={control}
                  name={`${prefix}.pattern`}
                  render={({ field }) => (
                    <Select
                      label={`Source ${k + 1} pattern`}
                      data={PATTERNS}
                      allowDeselect={false}
                      value={field.value}
                      onChange={(v) => field.onChange(v ?? 'cbr')}
                      error={errorAt(errors, at(k, 'pattern'))}
                    />
                  )}
                />
              </Grid.Col>
              {pattern === 'cbr' ? (
                <Grid.Col span={{ base: 6, sm: 3 }}>
                  <TextInput
                    label="Rate"
                    description="Mbit or %"
                    {...register(`${prefix}.rate`)}
                    error={errorAt(errors, at(k, 'rate'))}
                  />
                </Grid.Col>
              ) : (
                <Grid.Col span={{ base: 6, sm: 3 }}>
                  <TextInput
                    label="Mean rate"
                    description="Mbit or %"
                    {...register(`${prefix}.mean`)}
                    error={errorAt(errors, at(k, 'mean'))}
                  />
                </Grid.Col>
              )}
              {pattern === 'sine' && (
                <>
                  <Grid.Col span={{ base: 6, sm: 2 }}>
                    <TextInput
                      label="Amplitude"
                      description="Mbit or %"
                      {...register(`${prefix}.amplitude`)}
                      error={errorAt(errors, at(k, 'amplitude'))}
                    />
                  </Grid.Col>
                  <Grid.Col span={{ base: 6, sm: 2 }}>
                    <TextInput
                      label="Period"
                      description="e.g. 10s"
                      {...register(`${prefix}.period`)}
                      error={errorAt(errors, at(k, 'period'))}
                    />
                  </Grid.Col>
                </>
              )}
              {pattern === 'selfsimilar' && (
                <Grid.Col span={{ base: 6, sm: 2 }}>
                  <TextInput
                    label="Hurst"
                    description="0.5-0.99"
                    {...register(`${prefix}.hurst`)}
                    error={errorAt(errors, at(k, 'hurst'))}
                  />
                </Grid.Col>
              )}
              <Grid.Col span={{ base: 6, sm: 'auto' }}>
                <TextInput
                  label="Start"
                  description="e.g. 5s"
                  {...register(`${prefix}.start`)}
                  error={errorAt(errors, at(k, 'start'))}
                />
              </Grid.Col>
              <Grid.Col span="content">
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`Remove UDP source ${k + 1}`}
                  onClick={() => remove(k)}
                  mb={4}
                >
                  ✕
                </ActionIcon>
              </Grid.Col>
            </Grid>
          </Paper>
        );
      })}
    </div>
  );
}
