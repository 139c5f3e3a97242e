// Lab health: are the samplers keeping their rate, is the lab VM's CPU in bounds, is the backend's
// write spool draining (lfn_health, an expectation on the backend)?
import { DashboardBuilder, stat, target, timeseries } from '../dashboard.js';
import { DASHBOARDS } from '../ids.js';
import type { Measurement } from '../influxContract.js';
import { agg, matchVar, rate, select, showTagValues } from '../influxql.js';

/** A field every point of the measurement carries, to count points by. */
const COUNTED: Array<[Measurement, string]> = [
  ['lfn_tcp', 'srtt_ms'],
  ['lfn_goodput', 'bps'],
  ['lfn_queue', 'backlog_packets'],
  ['lfn_cpu', 'busy_pct'],
  ['lfn_rtt', 'rtt_ms'],
  ['lfn_interval', 'seconds'],
];

const runs = [matchVar('run')];
const hosts = [matchVar('host')];

/** Points per second: count per GROUP BY bucket scaled by the bucket length. */
const pointsPerSecond = (measurement: Measurement, field: string) =>
  select({
    select: [`${agg('count', field)} * 1000 / $__interval_ms`],
    from: measurement,
    where: runs,
    groupByTime: '$__interval',
    fill: 'none',
  });

export function healthDashboard() {
  const d = DASHBOARDS.health;
  return new DashboardBuilder({
    uid: d.uid,
    title: d.title,
    description:
      "The lab and the pipeline into InfluxDB: sample rates per measurement, the lab VM's CPU, the backend's spool.",
    time: { from: 'now-1h', to: 'now' },
    refresh: '10s',
  })
    .variable({
      name: 'run',
      label: 'Run',
      description: 'Runs to count samples of (All: every run in the time range).',
      query: showTagValues('lfn_cpu', 'run'),
      multi: true,
      includeAll: true,
      allValue: '.*',
      sort: 2,
    })
    .variable({
      name: 'host',
      label: 'Backend host',
      description: 'Backends writing lfn_health (tag host).',
      query: showTagValues('lfn_health', 'host'),
      multi: true,
      includeAll: true,
      allValue: '.*',
    })
    .row('Sampling')
    .panel(
      timeseries({
        title: 'Sample rate per measurement',
        description:
          'Points written per second to each measurement. While a run goes the samplers give 10/s per flow (lfn_tcp, lfn_goodput), 10/s per qdisc (lfn_queue), 10/s for lfn_cpu and each path probe (lfn_rtt), 1/s per flow for lfn_interval. A dip means a sampler fell behind.',
        targets: COUNTED.map(([m, f]) => target(pointsPerSecond(m, f), m)),
        w: 24,
        unit: 'short',
        min: 0,
        custom: { axisLabel: 'points/s' },
      }),
    )
    .panel(
      timeseries({
        title: 'Lab CPU',
        description:
          "The lab VM's busy CPU, percent of all CPUs (lfn_cpu.busy_pct), per run. Near 100 % the emulation itself becomes the bottleneck.",
        targets: [
          target(
            select({
              select: [agg('mean', 'busy_pct')],
              from: 'lfn_cpu',
              where: runs,
              groupByTime: '$__interval',
              groupBy: ['run'],
              fill: 'none',
            }),
            '$tag_run busy',
          ),
          target(
            select({
              select: [agg('mean', 'softirq_pct')],
              from: 'lfn_cpu',
              where: runs,
              groupByTime: '$__interval',
              groupBy: ['run'],
              fill: 'none',
            }),
            '$tag_run softirq',
          ),
        ],
        w: 24,
        unit: 'percent',
        min: 0,
        max: 100,
      }),
    )
    .row('Backend → InfluxDB')
    .panel(
      stat({
        title: 'Spool now',
        description:
          'Bytes of points waiting in the backend spool (lfn_health.spool_bytes, last value). Should stay near 0.',
        targets: [
          target(
            select({
              select: [agg('last', 'spool_bytes')],
              from: 'lfn_health',
              where: hosts,
              groupBy: ['host'],
            }),
            '$tag_host',
          ),
        ],
        w: 6,
        unit: 'bytes',
      }),
    )
    .panel(
      timeseries({
        title: 'Spool size',
        description:
          'Bytes of points the backend holds because InfluxDB has not accepted them yet (lfn_health.spool_bytes).',
        targets: [
          target(
            select({
              select: [agg('max', 'spool_bytes')],
              from: 'lfn_health',
              where: hosts,
              groupByTime: '$__interval',
              groupBy: ['host'],
              fill: 'none',
            }),
            '$tag_host',
          ),
        ],
        w: 9,
        unit: 'bytes',
        min: 0,
        interval: '1s',
      }),
    )
    .panel(
      timeseries({
        title: 'Points written',
        description:
          'Points per second InfluxDB accepted from the backend: the rate of the counter lfn_health.points_written.',
        targets: [
          target(
            select({
              select: [rate(agg('max', 'points_written'))],
              from: 'lfn_health',
              where: hosts,
              groupByTime: '$__interval',
              groupBy: ['host'],
              fill: 'none',
            }),
            '$tag_host',
          ),
        ],
        w: 9,
        unit: 'short',
        min: 0,
        interval: '1s',
        custom: { axisLabel: 'points/s' },
      }),
    )
    .build();
}
