// Compare: several runs side by side (multi-value run variable) and per-stack aggregates.
// Runs happen one after another, so on a time axis their series sit next to each other, not on
// top of each other; the aggregates (GROUP BY "stack", GROUP BY "run") are what compares them.
import { barGauge, DashboardBuilder, table, tableTarget, target, timeseries } from '../dashboard.js';
import { DASHBOARDS } from '../ids.js';
import { agg, matchVar, select, showTagValues, tagIs } from '../influxql.js';
import { unitColumn, verdictColumn } from './common.js';

const runs = [matchVar('run')];

export function compareDashboard() {
  const d = DASHBOARDS.compare;
  return new DashboardBuilder({
    uid: d.uid,
    title: d.title,
    description:
      'Several lfnlab runs together: per-run series and per-stack aggregates. The time range must cover every run chosen.',
    time: { from: 'now-24h', to: 'now' },
  })
    .variable({
      name: 'run',
      label: 'Runs',
      description: 'The runs to compare; newest first.',
      query: showTagValues('lfn_goodput', 'run'),
      multi: true,
      sort: 2,
    })
    .row('Per stack')
    .panel(
      barGauge({
        title: 'Mean goodput per stack',
        description: 'Mean per-flow receiver goodput of each stack over the chosen runs (lfn_goodput.bps).',
        targets: [
          target(
            select({ select: [agg('mean', 'bps')], from: 'lfn_goodput', where: runs, groupBy: ['stack'] }),
            '$tag_stack',
          ),
        ],
        w: 8,
        unit: 'bps',
        min: 0,
      }),
    )
    .panel(
      barGauge({
        title: 'Mean RTT per stack',
        description:
          'Mean smoothed RTT the senders of each stack saw (lfn_tcp.srtt_ms): how much queue a stack builds.',
        targets: [
          target(
            select({ select: [agg('mean', 'srtt_ms')], from: 'lfn_tcp', where: runs, groupBy: ['stack'] }),
            '$tag_stack',
          ),
        ],
        w: 8,
        unit: 'ms',
        min: 0,
      }),
    )
    .panel(
      barGauge({
        title: 'Retransmitted segments per stack',
        description:
          'Retransmitted segments of all flows of each stack: per flow the last value of the counter lfn_tcp.retrans_segments, summed per stack.',
        targets: [
          target(
            select({
              select: [agg('sum', 'retrans')],
              from: {
                select: [{ expr: agg('max', 'retrans_segments'), as: 'retrans' }],
                from: 'lfn_tcp',
                where: runs,
                groupBy: ['run', 'flow', 'stack'],
              },
              groupBy: ['stack'],
            }),
            '$tag_stack',
          ),
        ],
        w: 8,
        unit: 'short',
        min: 0,
      }),
    )
    .panel(
      table({
        title: 'Goodput per run and stack',
        description:
          'Per run and stack: mean and peak per-flow goodput (lfn_goodput.bps) and the number of samples behind them.',
        targets: [
          tableTarget(
            select({
              select: [
                { expr: agg('mean', 'bps'), as: 'mean_bps' },
                { expr: agg('max', 'bps'), as: 'max_bps' },
                { expr: agg('count', 'bps'), as: 'samples' },
              ],
              from: 'lfn_goodput',
              where: runs,
              groupBy: ['run', 'stack'],
            }),
          ),
        ],
        w: 24,
        overrides: [unitColumn('mean_bps', 'bps'), unitColumn('max_bps', 'bps')],
      }),
    )
    .row('Per run')
    .panel(
      timeseries({
        title: 'Goodput per run and flow',
        description: 'Receiver goodput (lfn_goodput.bps) of every flow of the chosen runs.',
        targets: [
          target(
            select({
              select: [agg('mean', 'bps')],
              from: 'lfn_goodput',
              where: runs,
              groupByTime: '$__interval',
              groupBy: ['run', 'flow'],
              fill: 'none',
            }),
            '$tag_run $tag_flow',
          ),
        ],
        unit: 'bps',
        min: 0,
      }),
    )
    .panel(
      timeseries({
        title: 'RTT per run and flow',
        description: 'Smoothed RTT (lfn_tcp.srtt_ms) of every flow of the chosen runs.',
        targets: [
          target(
            select({
              select: [agg('mean', 'srtt_ms')],
              from: 'lfn_tcp',
              where: runs,
              groupByTime: '$__interval',
              groupBy: ['run', 'flow'],
              fill: 'none',
            }),
            '$tag_run $tag_flow',
          ),
        ],
        unit: 'ms',
        min: 0,
      }),
    )
    .panel(
      timeseries({
        title: 'Bottleneck queue per run',
        description: 'Packets in the bottleneck qdisc (lfn_queue.backlog_packets, stage bottleneck).',
        targets: [
          target(
            select({
              select: [agg('mean', 'backlog_packets')],
              from: 'lfn_queue',
              where: [...runs, tagIs('stage', 'bottleneck')],
              groupByTime: '$__interval',
              groupBy: ['run', 'path', 'direction'],
              fill: 'none',
            }),
            '$tag_run $tag_path $tag_direction',
          ),
        ],
        unit: 'short',
        min: 0,
      }),
    )
    .panel(
      table({
        title: 'Run summaries',
        description:
          "lfn_summary of the chosen runs: per stack and path the mean goodput (Mbit/s) and the run's verdict.",
        targets: [
          tableTarget(
            select({
              select: ['"run"', '"stack"', '"path"', '"goodput_mbps"', '"verdict_code"'],
              from: 'lfn_summary',
              where: runs,
            }),
          ),
        ],
        overrides: [verdictColumn('verdict_code')],
      }),
    )
    .panel(
      table({
        title: 'Jain fairness per run, path and direction',
        description:
          "lfn_fairness of the chosen runs: Jain's index of the flows sharing each path in each direction, " +
          'each run\'s "Jain fwd" / "Jain rev". No row where a path carries one flow that way.',
        targets: [
          tableTarget(
            select({
              select: ['"run"', '"path"', '"direction"', '"jain"'],
              from: 'lfn_fairness',
              where: runs,
            }),
          ),
        ],
      }),
    )
    .build();
}
