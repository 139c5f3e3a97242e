// The experiment-wide fields: name, description, run length and sampling.
import { Grid, NumberInput, Select, Textarea, TextInput } from '@mantine/core';
import { Controller, type FieldErrors, type UseFormReturn } from 'react-hook-form';
import { errorAt } from './fieldError';
import type { SpecForm } from './formModel';

export function RunFields({
  form,
  errors,
}: {
  form: UseFormReturn<SpecForm>;
  errors: FieldErrors<SpecForm>;
}) {
  const { register, control } = form;
  return (
    <Grid gap="sm">
      <Grid.Col span={{ base: 12, sm: 6 }}>
        <TextInput
          label="Name"
          description="letters, digits, _ . - (≤ 32)"
          {...register('name')}
          error={errorAt(errors, 'name')}
        />
      </Grid.Col>
      <Grid.Col span={{ base: 12, sm: 6 }}>
        <TextInput
          label="Duration"
          description="run length with unit, e.g. 30s, 5min"
          {...register('duration')}
          error={errorAt(errors, 'duration')}
        />
      </Grid.Col>
      <Grid.Col span={{ base: 12, sm: 6 }}>
        <Controller
          control={control}
          name="sampleHz"
          render={({ field }) => (
            <NumberInput
              label="Sample rate (Hz)"
              description="TCP state, queue and RTT samplers; 10-20 Hz under TCG"
              min={1}
              max={100}
              allowDecimal={false}
              value={field.value}
              onChange={(v) => field.onChange(typeof v === 'number' ? v : Number(v))}
              onBlur={field.onBlur}
              error={errorAt(errors, 'sampleHz')}
            />
          )}
        />
      </Grid.Col>
      <Grid.Col span={{ base: 12, sm: 6 }}>
        <TextInput
          label="Report interval"
          description="iperf3's per-flow goodput interval, e.g. 1s"
          {...register('sampleInterval')}
          error={errorAt(errors, 'sampleInterval')}
        />
      </Grid.Col>
      <Grid.Col span={{ base: 12, sm: 6 }}>
        <Controller
          control={control}
          name="clock"
          render={({ field }) => (
            <Select
              label="Lab clock"
              description="dilated: exact packet timing under software emulation; wall time stretches"
              data={[
                { value: 'auto', label: 'auto (dilated under TCG, realtime under KVM)' },
                { value: 'dilated', label: 'dilated (instruction-driven, TCG only)' },
                { value: 'realtime', label: 'realtime (host wall clock)' },
              ]}
              allowDeselect={false}
              value={field.value}
              onChange={(v) => field.onChange(v ?? 'auto')}
              onBlur={field.onBlur}
              error={errorAt(errors, 'clock')}
            />
          )}
        />
      </Grid.Col>
      <Grid.Col span={12}>
        <Textarea
          label="Description"
          autosize
          minRows={1}
          maxRows={4}
          {...register('description')}
          error={errorAt(errors, 'description')}
        />
      </Grid.Col>
    </Grid>
  );
}
