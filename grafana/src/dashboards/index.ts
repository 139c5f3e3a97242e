// Every dashboard the package ships, with the file it is written to under grafana/dashboards/.
import type { Dashboard } from '../dashboard.js';
import { DASHBOARDS } from '../ids.js';
import { formatJson } from '../json.js';
import { campaignDashboard } from './campaign.js';
import { compareDashboard } from './compare.js';
import { healthDashboard } from './health.js';
import { runDashboard } from './run.js';

export interface GeneratedDashboard {
  file: string;
  dashboard: Dashboard;
  /** The file's exact text. */
  text: string;
}

export function generateDashboards(): GeneratedDashboard[] {
  return [
    [DASHBOARDS.run.file, runDashboard()],
    [DASHBOARDS.compare.file, compareDashboard()],
    [DASHBOARDS.campaign.file, campaignDashboard()],
    [DASHBOARDS.health.file, healthDashboard()],
  ].map(([file, dashboard]) => ({
    file: file as string,
    dashboard: dashboard as Dashboard,
    text: formatJson(dashboard),
  }));
}

export { campaignDashboard, compareDashboard, healthDashboard, runDashboard };
