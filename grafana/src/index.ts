// @lfnlab/grafana: the InfluxDB contract (measurements, tags, fields), the dashboards as code
// generated from it, and links into them.
export type { Dashboard } from './dashboard.js';
export { type GeneratedDashboard, generateDashboards } from './dashboards/index.js';
export { DASHBOARDS, DATASOURCE_UID } from './ids.js';
export {
  EVENT_TYPES,
  type FieldType,
  INFLUX_SCHEMA,
  MEASUREMENTS,
  type Measurement,
  type MeasurementContract,
  SAMPLE_COLUMNS,
  type SampleColumn,
  type SampleKindName,
  VERDICT_CODES,
} from './influxContract.js';
export {
  type CampaignLinkOptions,
  type CompareLinkOptions,
  grafanaCampaignUrl,
  grafanaCompareUrl,
  grafanaRunUrl,
  type RunLinkOptions,
} from './links.js';
