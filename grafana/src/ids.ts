// Fixed identifiers: the provisioned datasource's uid (every panel names it) and the dashboards'
// uids and URL slugs (links point at them). Changing one breaks saved links.

/** uid of the provisioned InfluxDB datasource (provisioning/datasources/lfnlab-influxdb.yaml). */
export const DATASOURCE_UID = 'lfnlab-influx';

export const DASHBOARDS = {
  run: { uid: 'lfnlab-run', slug: 'lfnlab-run', title: 'lfnlab run', file: 'run.json' },
  compare: { uid: 'lfnlab-compare', slug: 'lfnlab-compare', title: 'lfnlab compare', file: 'compare.json' },
  campaign: {
    uid: 'lfnlab-campaign',
    slug: 'lfnlab-campaign',
    title: 'lfnlab campaign',
    file: 'campaign.json',
  },
  health: {
    uid: 'lfnlab-health',
    slug: 'lfnlab-lab-health',
    title: 'lfnlab lab health',
    file: 'lab-health.json',
  },
} as const;

export type DashboardKey = keyof typeof DASHBOARDS;
