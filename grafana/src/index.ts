// @lfnlab/grafana: dashboards as code for lfnlab's InfluxDB measurements, and links into them.
export type { Dashboard } from './dashboard.js';
export { type GeneratedDashboard, generateDashboards } from './dashboards/index.js';
export { DASHBOARDS, DATASOURCE_UID } from './ids.js';
export {
  type CampaignLinkOptions,
  type CompareLinkOptions,
  grafanaCampaignUrl,
  grafanaCompareUrl,
  grafanaRunUrl,
  type RunLinkOptions,
} from './links.js';
export {
  BACKEND_MEASUREMENTS,
  EVENT_TYPES,
  EXPECTED_SCHEMA,
  type Measurement,
  VERDICT_CODES,
} from './schema.js';
