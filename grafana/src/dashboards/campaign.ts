// Campaign: a sweep's progress and results, from lfn_summary (one point per run, stack and path
// when a run finishes) and lfn_fairness (one per run, path and direction). A run counts once however many stacks it had:
// the counts take last(verdict_code) per run in a subquery first.
import { barGauge, DashboardBuilder, stat, table, tableTarget, target, timeseries } from '../dashboard.js';
import { DASHBOARDS } from '../ids.js';
import { type Measurement, VERDICT_CODES } from '../influxContract.js';
import { agg, fieldIs, matchVar, type Select, select, showTagValues } from '../influxql.js';
import { unitColumn, verdictColumn } from './common.js';

const campaign = [matchVar('campaign')];
const campaignStackPath = [matchVar('campaign'), matchVar('stack'), matchVar('path')];
/** lfn_fairness is per path and direction, not per stack. */
const campaignPath = [matchVar('campaign'), matchVar('path')];

/** A table target: the mean of a per-run field and how many runs gave one, per group. */
const meanAndRuns = (field: string, from: Measurement, where: string[], groupBy: string[]) =>
  tableTarget(
    select({
      select: [
        { expr: agg('mean', field), as: field },
        { expr: agg('count', field), as: 'runs' },
      ],
      from,
      where,
      groupBy,
    }),
  );

/** A time series target with one point per finished run and group, named by the group's tags. */
const pointPerRun = (field: string, from: Measurement, where: string[], groupBy: string[]) =>
  target(
    select({ select: [agg('mean', field)], from, where, groupByTime: '$__interval', groupBy, fill: 'none' }),
    groupBy.map((t) => `$tag_${t}`).join(' '),
  );

const asPoints = { drawStyle: 'points', pointSize: 6, showPoints: 'always' };

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
        description: 'Mean goodput (Mbit/s, per flow) and number of run results per stack and path.',
        targets: [meanAndRuns('goodput_mbps', 'lfn_summary', campaignStackPath, ['stack', 'path'])],
        w: 12,
        overrides: [unitColumn('goodput_mbps', 'Mbits')],
      }),
    )
    .panel(
      timeseries({
        title: 'Goodput per stack over the campaign',
        description:
          "Each finished run's per-stack mean goodput (lfn_summary.goodput_mbps), one point per run.",
        targets: [pointPerRun('goodput_mbps', 'lfn_summary', campaignStackPath, ['stack', 'path'])],
        w: 12,
        unit: 'Mbits',
        min: 0,
        custom: asPoints,
      }),
    )
    .panel(
      table({
        title: 'Jain fairness per path and direction',
        description:
          "Mean over the campaign's runs of Jain's index of the flows sharing each path in each direction " +
          '(lfn_fairness.jain, each run\'s "Jain fwd" / "Jain rev"), and how many runs had one.',
        targets: [meanAndRuns('jain', 'lfn_fairness', campaignPath, ['path', 'direction'])],
        w: 12,
      }),
    )
    .panel(
      timeseries({
        title: 'Jain fairness per path and direction over the campaign',
        description:
          "Each finished run's Jain index per path and direction (lfn_fairness.jain), one point per run.",
        targets: [pointPerRun('jain', 'lfn_fairness', campaignPath, ['path', 'direction'])],
        w: 12,
        min: 0,
        max: 1,
        custom: asPoints,
      }),
    )
    .panel(
      table({
        title: 'Runs',
        description:
          'Every lfn_summary point of the campaign: run, stack, path, goodput (Mbit/s) and verdict.',
        targets: [
          tableTarget(
            select({
              select: ['"run"', '"stack"', '"path"', '"goodput_mbps"', '"verdict_code"'],
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
