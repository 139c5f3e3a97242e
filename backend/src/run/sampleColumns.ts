// The contract's one table of sample names (JSON key, InfluxDB field, CSV header), held to the
// sample types: a key renamed in samples.ts and not in the table fails to compile here. The
// InfluxDB writer and the CSV export both read it through this module.
import { SAMPLE_COLUMNS } from '@lfnlab/grafana';
import type { Sample, SampleKind } from './samples.js';

export type SampleOf<K extends SampleKind> = Extract<Sample, { kind: K }>;

export interface SampleColumnOf<K extends SampleKind> {
  readonly json: keyof SampleOf<K> & string;
  readonly influx?: string;
  readonly csv?: string;
}

export const SAMPLE_COLUMNS_BY_KIND: { readonly [K in SampleKind]: readonly SampleColumnOf<K>[] } =
  SAMPLE_COLUMNS;
