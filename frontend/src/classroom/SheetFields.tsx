// The fields of a sheet a student may change: a number within its range (with its unit) or one of
// a few options. Each shows the service's problem for it, if any, under the input.
import { NumberInput, Select, SimpleGrid } from '@mantine/core';
import type { SheetField } from './api';

export type FieldValues = Record<string, number | string>;

export function SheetFields({
  fields,
  values,
  onChange,
  errors,
}: {
  fields: SheetField[];
  values: FieldValues;
  onChange: (v: FieldValues) => void;
  errors: Record<string, string>;
}) {
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
      {fields.map((f) => {
        const description = [f.help, f.options ? null : `${f.min} to ${f.max}${f.unit ? ` ${f.unit}` : ''}`]
          .filter(Boolean)
          .join(' · ');
        const error = errors[`values.${f.path}`];
        return f.options ? (
          <Select
            key={f.path}
            label={f.label}
            description={description}
            data={f.options}
            value={String(values[f.path] ?? '')}
            onChange={(v) => v && onChange({ ...values, [f.path]: v })}
            allowDeselect={false}
            error={error}
          />
        ) : (
          <NumberInput
            key={f.path}
            label={f.label}
            description={description}
            min={f.min}
            max={f.max}
            step={f.step}
            suffix={f.unit ? ` ${f.unit}` : undefined}
            value={values[f.path] ?? ''}
            onChange={(v) => onChange({ ...values, [f.path]: typeof v === 'number' ? v : Number(v) })}
            error={error}
          />
        );
      })}
    </SimpleGrid>
  );
}
