// The experiment-wide fields: name, description, run length, sampling, the clock and whether the
// lab is a bump in the wire between two hosts it does not own.
import { Grid, NumberInput, Select, Switch, Textarea, TextInput } from '@mantine/core';
import { Controller, type FieldErrors, type UseFormReturn, useWatch } from 'react-hook-form';
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
  const wired = useWatch({ control, name: 'wire.on' });
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
              description={
                wired
                  ? 'a wire runs in wall time (auto is realtime): its hosts are not in the lab'
                  : 'dilated: exact packet timing under software emulation; wall time stretches'
              }
              data={[
                {
                  value: 'auto',
                  label: wired
                    ? 'auto (realtime with a wire)'
                    : 'auto (dilated under TCG, realtime under KVM)',
                },
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
        <Controller
          control={control}
          name="wire.on"
          render={({ field }) => (
            <Switch
              label="The lab as a bump in the wire"
              description="shape the path between two hosts the lab does not own (namespaces on this machine, running its kernel's stacks), to qualify a device or a stack from outside"
              checked={field.value}
              onChange={(e) => field.onChange(e.currentTarget.checked)}
              onBlur={field.onBlur}
              error={errorAt(errors, 'wire.on')}
            />
          )}
        />
      </Grid.Col>
      {wired && (
        <>
          <Grid.Col span={{ base: 12, sm: 6 }}>
            <TextInput
              label="Port a (sender's side)"
              description="the lab's port toward the sending host, e.g. eth0"
              {...register('wire.a')}
              error={errorAt(errors, 'wire.a')}
            />
          </Grid.Col>
          <Grid.Col span={{ base: 12, sm: 6 }}>
            <TextInput
              label="Port b (receiver's side)"
              description="the lab's port toward the receiving host, e.g. eth1"
              {...register('wire.b')}
              error={errorAt(errors, 'wire.b')}
            />
          </Grid.Col>
        </>
      )}
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
