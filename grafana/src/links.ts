// "Open in Grafana" links for the backend and the UI: a provisioned dashboard with its time range
// and template variables set in the URL (from/to in ms since the epoch, var-NAME=value).
import { DASHBOARDS, type DashboardKey } from './ids.js';

export interface RunLinkOptions {
  run: string;
  /** Start of the range, ms since the epoch (e.g. traffic start). */
  fromMs: number;
  /** End of the range, ms since the epoch; left out for a run still going: to=now, refreshing every 5 s. */
  toMs?: number;
  /** Flows to show; all of the run's flows when left out or empty. */
  flows?: readonly string[];
}

export interface CompareLinkOptions {
  runs: readonly string[];
  fromMs: number;
  toMs: number;
}

export interface CampaignLinkOptions {
  campaign: string;
  fromMs: number;
  toMs?: number;
}

const ALL = '$__all';

function checkTime(name: string, ms: number) {
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`${name} must be ms since the epoch, got ${ms}`);
}

function dashboardUrl(base: string, key: DashboardKey, params: Array<[string, string]>): string {
  const root = base.trim().replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(root))
    throw new Error(`Grafana base URL must be http(s)://host[:port][/path], got ${JSON.stringify(base)}`);
  const d = DASHBOARDS[key];
  const query = new URLSearchParams([['orgId', '1'], ...params]);
  return `${root}/d/${d.uid}/${d.slug}?${query.toString()}`;
}

function range(fromMs: number, toMs: number | undefined): Array<[string, string]> {
  checkTime('fromMs', fromMs);
  if (toMs === undefined)
    return [
      ['from', String(Math.floor(fromMs))],
      ['to', 'now'],
      ['refresh', '5s'],
    ];
  checkTime('toMs', toMs);
  if (toMs < fromMs) throw new Error(`toMs (${toMs}) is before fromMs (${fromMs})`);
  return [
    ['from', String(Math.floor(fromMs))],
    ['to', String(Math.ceil(toMs))],
  ];
}

/** The Run dashboard for one run: `BASE/d/lfnlab-run/lfnlab-run?orgId=1&from=…&to=…&var-run=…&var-flow=…`. */
export function grafanaRunUrl(base: string, o: RunLinkOptions): string {
  if (!o.run) throw new Error('run is required');
  const flows = o.flows && o.flows.length > 0 ? o.flows : [ALL];
  return dashboardUrl(base, 'run', [
    ...range(o.fromMs, o.toMs),
    ['var-run', o.run],
    ...flows.map((f): [string, string] => ['var-flow', f]),
    ['var-stack', ALL],
  ]);
}

/** The Compare dashboard for several runs over a range covering all of them. */
export function grafanaCompareUrl(base: string, o: CompareLinkOptions): string {
  if (o.runs.length === 0) throw new Error('at least one run is required');
  return dashboardUrl(base, 'compare', [
    ...range(o.fromMs, o.toMs),
    ...o.runs.map((r): [string, string] => ['var-run', r]),
  ]);
}

/** The Campaign dashboard for one sweep. */
export function grafanaCampaignUrl(base: string, o: CampaignLinkOptions): string {
  if (!o.campaign) throw new Error('campaign is required');
  return dashboardUrl(base, 'campaign', [
    ...range(o.fromMs, o.toMs),
    ['var-campaign', o.campaign],
    ['var-stack', ALL],
    ['var-path', ALL],
  ]);
}
