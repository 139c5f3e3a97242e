// Campaign: a sweep's progress and results, from lfn_summary (an expectation on the backend: one
// point per run, stack and path when a run finishes). A run counts once however many stacks it had:
// the counts take last(verdict_code) per run in a subquery first.
import { barGauge, DashboardBuilder, stat, table, tableTarget, target, timeseries } from '../dashboard.js';
import { DASHBOARDS } from '../ids.js';
import { agg, fieldIs, matchVar, type Select, select, showTagValues } from '../influxql.js';
import { VERDICT_CODES } from '../schema.js';
import { unitColumn, verdictColumn } from './common.js';

const campaign = [matchVar('campaign')];
const campaignStackPath = [matchVar('campaign'), matchVar('stack'), matchVar('path')];

/** One row per run of the campaign: its verdict as column v. */
const perRun: Select = {
  select: [{ expr: agg('last', 'verdict_code'), as: 'v' }],
  from: 'lfn_summary',
  where: campaign,
  groupBy: ['run'],
};

const runsWith = (code: number) =>
  select({ select: [agg('count', 'v')], from: perRun, where: [fieldIs('v', code)] });

export function campaignDashboard() {
  const d = DASHBOARDS.campaign;
  return new DashboardBuilder({
    uid: d.uid,
    title: d.title,
    description:
      "A sweep of lfnlab runs (tag campaign on lfn_summary): how far it got, each run's result, per-stack aggregates.",
    time: { from: 'now-7d', to: 'now' },
    refresh: '1m',
  })
    .variable({
      name: 'campaign',
      label: 'Campaign',
      description: 'The sweep (lfn_summary tag campaign).',
      query: showTagValues('lfn_summary', 'campaign'),
      sort: 2,
    })
    .variable({
      name: 'stack',
      label: 'Stack',
      description: "The campaign's stacks.",
      query: showTagValues('lfn_summary', 'stack', campaign),
      multi: true,
      includeAll: true,
      allValue: '.*',
    })
    .variable({
      name: 'path',
      label: 'Path',
      description: "The campaign's paths.",
      query: showTagValues('lfn_summary', 'path', campaign),
      multi: true,
      includeAll: true,
      allValue: '.*',
    })
    .row('Progress')
    .panel(
      stat({
        title: 'Runs finished',
        description: 'Runs of the campaign that finished in the time range (one lfn_summary run each).',
        targets: [target(select({ select: [agg('count', 'v')], from: perRun }))],
        w: 6,
        h: 6,
        noValue: '0',
      }),
    )
    .panel(
      barGauge({
        title: 'Runs by verdict',
        description: 'Finished runs by fidelity verdict (lfn_summary.verdict_code).',
        targets: [
          target(runsWith(VERDICT_CODES.valid), 'valid'),
          target(runsWith(VERDICT_CODES.suspect), 'suspect'),
          target(runsWith(VERDICT_CODES.invalid), 'invalid'),
        ],
        w: 6,
        h: 6,
        min: 0,
        noValue: '0',
        overrides: [
          {
            matcher: { id: 'byName', options: 'valid' },
            properties: [{ id: 'color', value: { fixedColor: 'green', mode: 'fixed' } }],
          },
          {
            matcher: { id: 'byName', options: 'suspect' },
            properties: [{ id: 'color', value: { fixedColor: 'yellow', mode: 'fixed' } }],
          },
          {
            matcher: { id: 'byName', options: 'invalid' },
            properties: [{ id: 'color', value: { fixedColor: 'red', mode: 'fixed' } }],
          },
        ],
      }),
    )
    .panel(
      timeseries({
        title: 'Runs finished over time',
        description: "Cumulative count of finished runs: the sweep's progress.",
        targets: [
          target(
            select({
              select: [`cumulative_sum(${agg('count', 'v')})`],
              from: perRun,
              groupByTime: '$__interval',
              fill: 'none',
            }),
            'runs finished',
          ),
        ],
        w: 12,
        h: 6,
        min: 0,
        decimals: 0,
        custom: { lineInterpolation: 'stepAfter', showPoints: 'always' },
        options: {
          legend: { calcs: ['lastNotNull'], displayMode: 'list', placement: 'bottom', showLegend: true },
        },
      }),
    )
    .row('Results')
    .panel(
      table({
        title: 'Per stack and path',
        description:
          'Mean goodput (Mbit/s, per flow), mean Jain index and number of run results per stack and path.',
        targets: [
          tableTarget(
            select({
              select: [
                { expr: agg('mean', 'goodput_mbps'), as: 'goodput_mbps' },
                { expr: agg('mean', 'jain'), as: 'jain' },
                { expr: agg('count', 'goodput_mbps'), as: 'runs' },
              ],
              from: 'lfn_summary',
              where: campaignStackPath,
              groupBy: ['stack', 'path'],
            }),
          ),
        ],
        w: 12,
        overrides: [unitColumn('goodput_mbps', 'Mbits')],
      }),
    )
    .panel(
      timeseries({
        title: 'Goodput per stack over the campaign',
        description:
          "Each finished run's per-stack mean goodput (lfn_summary.goodput_mbps), one point per run.",
        targets: [
          target(
            select({
              select: [agg('mean', 'goodput_mbps')],
              from: 'lfn_summary',
              where: campaignStackPath,
              groupByTime: '$__interval',
              groupBy: ['stack', 'path'],
              fill: 'none',
            }),
            '$tag_stack $tag_path',
          ),
        ],
        w: 12,
        unit: 'Mbits',
        min: 0,
        custom: { drawStyle: 'points', pointSize: 6, showPoints: 'always' },
      }),
    )
    .panel(
      table({
        title: 'Runs',
        description:
          'Every lfn_summary point of the campaign: run, stack, path, goodput (Mbit/s), Jain index and verdict.',
        targets: [
          tableTarget(
            select({
              select: ['"run"', '"stack"', '"path"', '"goodput_mbps"', '"jain"', '"verdict_code"'],
              from: 'lfn_summary',
              where: campaignStackPath,
            }),
          ),
        ],
        w: 24,
        h: 12,
        overrides: [verdictColumn('verdict_code'), unitColumn('goodput_mbps', 'Mbits')],
        transformations: [{ id: 'merge', options: {} }],
        options: { sortBy: [{ desc: true, displayName: 'Time' }] },
      }),
    )
    .build();
}
