// The paths (bottlenecks) of the experiment: RTT, rate, buffer, bit error rate, jitter, AQM and
// their UDP cross traffic. Renaming a path renames it in every flow that uses it.
import {
  ActionIcon,
  Button,
  Grid,
  Group,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { Controller, type FieldErrors, type UseFormReturn, useFieldArray } from 'react-hook-form';
import { CrossFields } from './CrossFields';
import { errorAt } from './fieldError';
import { type BufferUnit, newPath, type SpecForm } from './formModel';

const AQMS = ['fifo', 'red', 'codel', 'fq_codel', 'pie', 'cake'];

const BUFFER_HINT: Record<BufferUnit, string> = {
  packets: 'whole packets, e.g. 100',
  bdp: 'multiple of the BDP, e.g. 0.2',
  size: 'bytes with unit, e.g. 256KiB',
};

export function PathsSection({
  form,
  errors,
}: {
  form: UseFormReturn<SpecForm>;
  errors: FieldErrors<SpecForm>;
}) {
  const { control, register, getValues, setValue } = form;
  const { fields, append, remove } = useFieldArray({ control, name: 'paths' });

  const rename = (i: number, next: string) => {
    const prev = getValues(`paths.${i}.name`);
    getValues('flows').forEach((f, k) => {
      if (f.path === prev) setValue(`flows.${k}.path`, next);
    });
  };

  const addPath = () => {
    const names = new Set(getValues('paths').map((p) => p.name));
    let n = fields.length + 1;
    while (names.has(`path${n}`)) n++;
    append(newPath(`path${n}`));
  };

  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={3} size="h4">
          Paths
        </Title>
        <Button size="xs" variant="light" onClick={addPath} disabled={fields.length >= 8}>
          Add path
        </Button>
      </Group>
      {errorAt(errors, 'paths.root') && (
        <Text c="red.8" size="sm" role="alert">
          {errorAt(errors, 'paths.root')}
        </Text>
      )}
      {fields.map((f, i) => {
        const at = (name: string) => errorAt(errors, `paths.${i}.${name}`);
        return (
          <Paper key={f.id} withBorder p="sm" radius="md" data-testid={`path-${i}`}>
            <Grid gap="sm">
              <Grid.Col span={{ base: 12, sm: 4 }}>
                <Controller
                  control={control}
                  name={`paths.${i}.name`}
                  render={({ field }) => (
                    <TextInput
                      label="Path name"
                      value={field.value}
                      onChange={(e) => {
                        rename(i, e.currentTarget.value);
                        field.onChange(e.currentTarget.value);
                      }}
                      onBlur={field.onBlur}
                      error={at('name')}
                    />
                  )}
                />
              </Grid.Col>
              <Grid.Col span={{ base: 6, sm: 4 }}>
                <TextInput
                  label="RTT"
                  description="propagation, e.g. 70ms"
                  {...register(`paths.${i}.rtt`)}
                  error={at('rtt')}
                />
              </Grid.Col>
              <Grid.Col span={{ base: 6, sm: 4 }}>
                <TextInput
                  label="Bottleneck rate"
                  description="e.g. 100Mbit, 1Gbit"
                  {...register(`paths.${i}.rate`)}
                  error={at('rate')}
                />
              </Grid.Col>
              <Grid.Col span={{ base: 12, sm: 6 }}>
                <Controller
                  control={control}
                  name={`paths.${i}.bufferUnit`}
                  render={({ field: unit }) => (
                    <Stack gap={4}>
                      <TextInput
                        label="Bottleneck buffer"
                        description={BUFFER_HINT[unit.value]}
                        {...register(`paths.${i}.buffer`)}
                        error={at('buffer')}
                        rightSectionWidth={56}
                        rightSection={
                          <Text size="xs" c="dimmed">
                            {unit.value === 'bdp' ? '× BDP' : unit.value === 'packets' ? 'pkts' : ''}
                          </Text>
                        }
                      />
                      <SegmentedControl
                        size="xs"
                        aria-label="Buffer unit"
                        value={unit.value}
                        onChange={(v) => unit.onChange(v as BufferUnit)}
                        data={[
                          { value: 'packets', label: 'packets' },
                          { value: 'bdp', label: '× BDP' },
                          { value: 'size', label: 'bytes' },
                        ]}
                      />
                    </Stack>
                  )}
                />
              </Grid.Col>
              <Grid.Col span={{ base: 6, sm: 3 }}>
                <TextInput
                  label="Bit error rate"
                  description="0 to 1e-3, e.g. 1e-7"
                  {...register(`paths.${i}.ber`)}
                  error={at('ber')}
                />
              </Grid.Col>
              <Grid.Col span={{ base: 6, sm: 3 }}>
                <TextInput
                  label="Jitter"
                  description="per direction, e.g. 2ms"
                  {...register(`paths.${i}.jitter`)}
                  error={at('jitter')}
                />
              </Grid.Col>
              <Grid.Col span={{ base: 6, sm: 4 }}>
                <Controller
                  control={control}
                  name={`paths.${i}.aqm`}
                  render={({ field }) => (
                    <Select
                      label="Queue discipline"
                      data={AQMS}
                      allowDeselect={false}
                      value={field.value}
                      onChange={(v) => field.onChange(v ?? 'fifo')}
                      error={at('aqm')}
                    />
                  )}
                />
              </Grid.Col>
              <Grid.Col
                span={{ base: 6, sm: 8 }}
                style={{ display: 'flex', alignItems: 'flex-end', justifyContent: 'flex-end' }}
              >
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`Remove path ${f.name}`}
                  disabled={fields.length === 1}
                  onClick={() => remove(i)}
                >
                  ✕
                </ActionIcon>
              </Grid.Col>
              <Grid.Col span={12}>
                <CrossFields form={form} errors={errors} pathIndex={i} />
              </Grid.Col>
            </Grid>
          </Paper>
        );
      })}
    </Stack>
  );
}
