// The TCP flows: stack (from the lab's real list), path, parallel streams and how they connect,
// schedule, direction and socket buffer (window).
import {
  ActionIcon,
  Button,
  Group,
  NumberInput,
  ScrollArea,
  Select,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { Controller, type FieldErrors, type UseFormReturn, useFieldArray, useWatch } from 'react-hook-form';
import { stackColor } from '../lib/colors';
import { errorAt } from './fieldError';
import { newFlow, type SpecForm } from './formModel';

/** iperf3 -P opens its streams a round trip apart, before any sends; `together` runs one iperf3 per stream. */
const CONNECT_CHOICES = [
  { value: 'serial', label: 'one by one' },
  { value: 'together', label: 'together' },
];

export function FlowsSection({
  form,
  errors,
  stacks,
}: {
  form: UseFormReturn<SpecForm>;
  errors: FieldErrors<SpecForm>;
  stacks: string[];
}) {
  const { control, register, getValues } = form;
  const { fields, append, remove } = useFieldArray({ control, name: 'flows' });
  const paths = useWatch({ control, name: 'paths' }) ?? [];
  const pathNames = paths.map((p) => p.name);
  const add = () =>
    append(
      newFlow(
        getValues('paths.0.name') ?? 'main',
        stacks.includes('cubic') ? 'cubic' : (stacks[0] ?? 'reno'),
      ),
    );

  return (
    <div>
      <Group justify="space-between" mb="xs">
        <Title order={3} size="h4">
          Flows
        </Title>
        <Button size="xs" variant="light" onClick={add} disabled={fields.length >= 64}>
          Add flow
        </Button>
      </Group>
      {errorAt(errors, 'flows.root') && (
        <Text c="red.8" size="sm" role="alert" mb="xs">
          {errorAt(errors, 'flows.root')}
        </Text>
      )}
      <ScrollArea type="auto">
        <Table verticalSpacing={4} horizontalSpacing={6} style={{ minWidth: 860 }}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th />
              <Table.Th>Name</Table.Th>
              <Table.Th>Stack</Table.Th>
              <Table.Th>Path</Table.Th>
              <Table.Th>Streams</Table.Th>
              <Table.Th>Connect</Table.Th>
              <Table.Th>Start</Table.Th>
              <Table.Th>Duration</Table.Th>
              <Table.Th>Direction</Table.Th>
              <Table.Th>Window</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {fields.map((f, i) => {
              const at = (name: string) => errorAt(errors, `flows.${i}.${name}`);
              const n = i + 1;
              return (
                <Table.Tr key={f.id} style={{ verticalAlign: 'top' }}>
                  <Table.Td>
                    <span
                      aria-hidden
                      style={{
                        display: 'inline-block',
                        width: 10,
                        height: 10,
                        marginTop: 12,
                        borderRadius: 5,
                        background: stackColor(f.stack),
                      }}
                    />
                  </Table.Td>
                  <Table.Td>
                    <TextInput
                      aria-label={`Flow ${n} name`}
                      placeholder={`stack-${n}`}
                      size="xs"
                      {...register(`flows.${i}.name`)}
                      error={at('name')}
                      w={110}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Controller
                      control={control}
                      name={`flows.${i}.stack`}
                      render={({ field }) => (
                        <Select
                          aria-label={`Flow ${n} stack`}
                          size="xs"
                          w={120}
                          searchable
                          allowDeselect={false}
                          data={stacks.includes(field.value) ? stacks : [...stacks, field.value]}
                          value={field.value}
                          onChange={(v) => field.onChange(v ?? field.value)}
                          error={at('stack')}
                        />
                      )}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Controller
                      control={control}
                      name={`flows.${i}.path`}
                      render={({ field }) => (
                        <Select
                          aria-label={`Flow ${n} path`}
                          size="xs"
                          w={100}
                          allowDeselect={false}
                          data={pathNames.includes(field.value) ? pathNames : [...pathNames, field.value]}
                          value={field.value}
                          onChange={(v) => field.onChange(v ?? field.value)}
                          error={at('path')}
                        />
                      )}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Controller
                      control={control}
                      name={`flows.${i}.streams`}
                      render={({ field }) => (
                        <NumberInput
                          aria-label={`Flow ${n} parallel streams`}
                          size="xs"
                          w={70}
                          min={1}
                          max={128}
                          allowDecimal={false}
                          value={field.value}
                          onChange={(v) => field.onChange(typeof v === 'number' ? v : Number(v))}
                          error={at('streams')}
                        />
                      )}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Controller
                      control={control}
                      name={`flows.${i}.connect`}
                      render={({ field }) => (
                        <Select
                          aria-label={`Flow ${n} streams connect (one by one with iperf3 -P, or together)`}
                          size="xs"
                          w={110}
                          allowDeselect={false}
                          data={CONNECT_CHOICES}
                          value={field.value}
                          onChange={(v) => field.onChange(v ?? 'serial')}
                          error={at('connect')}
                        />
                      )}
                    />
                  </Table.Td>
                  <Table.Td>
                    <TextInput
                      aria-label={`Flow ${n} start (time with unit)`}
                      size="xs"
                      w={70}
                      {...register(`flows.${i}.start`)}
                      error={at('start')}
                    />
                  </Table.Td>
                  <Table.Td>
                    <TextInput
                      aria-label={`Flow ${n} duration (time with unit; empty = to the end)`}
                      placeholder="to end"
                      size="xs"
                      w={80}
                      {...register(`flows.${i}.duration`)}
                      error={at('duration')}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Controller
                      control={control}
                      name={`flows.${i}.direction`}
                      render={({ field }) => (
                        <Select
                          aria-label={`Flow ${n} direction`}
                          size="xs"
                          w={100}
                          allowDeselect={false}
                          data={['forward', 'reverse']}
                          value={field.value}
                          onChange={(v) => field.onChange(v ?? 'forward')}
                          error={at('direction')}
                        />
                      )}
                    />
                  </Table.Td>
                  <Table.Td>
                    <TextInput
                      aria-label={`Flow ${n} window (socket buffer: size or BDP multiple)`}
                      placeholder="auto, 1.1bdp"
                      size="xs"
                      w={100}
                      {...register(`flows.${i}.window`)}
                      error={at('window')}
                    />
                  </Table.Td>
                  <Table.Td>
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={`Remove flow ${n}`}
                      onClick={() => remove(i)}
                      mt={4}
                    >
                      ✕
                    </ActionIcon>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      <Text size="xs" c="dimmed" mt={4}>
        Start and duration are times with a unit (5s, 2min); an empty duration sends until the run ends.
        Window caps the socket buffer: a size (4MiB) or a BDP multiple (1.1bdp).
      </Text>
    </div>
  );
}
