// Run: one run in detail. Variables run → flow, stack (chained on run); per-flow goodput, cwnd,
// RTT, retransmissions; the bottleneck queue, drops and the RTT probe; annotations at flow starts
// and at the verdict (lfn_event, an expectation on the backend).
import { barGauge, DashboardBuilder, stat, target, timeseries } from '../dashboard.js';
import { DASHBOARDS } from '../ids.js';
import { EVENT_TYPES } from '../influxContract.js';
import { agg, matchVar, rate, select, showTagValues, tagIs } from '../influxql.js';
import { flowFilter, runFilter, verdictMappings } from './common.js';

const perFlow = (measurement: 'lfn_tcp' | 'lfn_goodput' | 'lfn_interval' | 'lfn_wireflow', expr: string) =>
  select({
    select: [expr],
    from: measurement,
    where: flowFilter,
    groupByTime: '$__interval',
    groupBy: ['flow'],
    fill: 'none',
  });

export function runDashboard() {
  const d = DASHBOARDS.run;
  return new DashboardBuilder({
    uid: d.uid,
    title: d.title,
    description:
      'One lfnlab run: per-flow TCP state and goodput, the bottleneck queue, the RTT probe and lab CPU.',
    time: { from: 'now-15m', to: 'now' },
  })
    .variable({
      name: 'run',
      label: 'Run',
      description: 'The run (tag run on every lfnlab measurement); newest first.',
      query: showTagValues('lfn_tcp', 'run'),
      sort: 2,
    })
    .variable({
      name: 'flow',
      label: 'Flow',
      description: "The run's flows.",
      query: showTagValues('lfn_tcp', 'flow', [matchVar('run')]),
      multi: true,
      includeAll: true,
      allValue: '.*',
    })
    .variable({
      name: 'stack',
      label: 'Stack',
      description: "The TCP stacks of the run's flows.",
      query: showTagValues('lfn_tcp', 'stack', [matchVar('run')]),
      multi: true,
      includeAll: true,
      allValue: '.*',
    })
    .annotation({
      name: 'Flow starts',
      query: select({
        select: ['"text"', '"flow"'],
        from: 'lfn_event',
        where: [matchVar('run'), tagIs('type', EVENT_TYPES.flowStart)],
      }),
      textColumn: 'text',
      tagsColumn: 'flow',
      iconColor: 'blue',
    })
    .annotation({
      name: 'Verdict',
      query: select({
        select: ['"text"', '"type"'],
        from: 'lfn_event',
        where: [matchVar('run'), tagIs('type', EVENT_TYPES.verdict)],
      }),
      textColumn: 'text',
      tagsColumn: 'type',
      iconColor: 'red',
    })
    .row('Summary (once the run has finished)')
    .panel(
      stat({
        title: 'Verdict',
        description: 'Fidelity verdict of the run (lfn_summary.verdict_code: 0 valid, 1 suspect, 2 invalid).',
        targets: [
          target(select({ select: [agg('last', 'verdict_code')], from: 'lfn_summary', where: runFilter })),
        ],
        w: 6,
        h: 5,
        mappings: verdictMappings,
        options: { colorMode: 'background' },
      }),
    )
    .panel(
      stat({
        title: 'Jain fairness per path and direction',
        description:
          "Jain's fairness index of the flows sharing each path in each direction (lfn_fairness.jain), " +
          'the run summary\'s "Jain fwd" / "Jain rev": 1 is perfectly fair. None where a path carries one flow.',
        targets: [
          target(
            select({
              select: [agg('last', 'jain')],
              from: 'lfn_fairness',
              where: runFilter,
              groupBy: ['path', 'direction'],
            }),
            '$tag_path $tag_direction',
          ),
        ],
        w: 6,
        h: 5,
        min: 0,
        max: 1,
        decimals: 3,
      }),
    )
    .panel(
      barGauge({
        title: 'Mean goodput per flow',
        description: 'Mean receiver goodput of each flow over the time range (lfn_goodput.bps).',
        targets: [
          target(
            select({
              select: [agg('mean', 'bps')],
              from: 'lfn_goodput',
              where: flowFilter,
              groupBy: ['flow'],
            }),
            '$tag_flow',
          ),
        ],
        w: 12,
        h: 5,
        unit: 'bps',
        min: 0,
      }),
    )
    .row('Flows')
    .panel(
      timeseries({
        title: 'Goodput',
        description: 'Receiver goodput per flow (lfn_goodput.bps), bit/s.',
        targets: [target(perFlow('lfn_goodput', agg('mean', 'bps')), '$tag_flow')],
        unit: 'bps',
        min: 0,
      }),
    )
    .panel(
      timeseries({
        title: 'Congestion window',
        description:
          "Sender's congestion window per flow, packets, summed over its streams (lfn_tcp.cwnd_packets).",
        targets: [target(perFlow('lfn_tcp', agg('mean', 'cwnd_packets')), '$tag_flow')],
        unit: 'short',
        min: 0,
        custom: { axisLabel: 'packets' },
      }),
    )
    .panel(
      timeseries({
        title: 'RTT (srtt)',
        description:
          'Smoothed RTT the sender sees per flow (lfn_tcp.srtt_ms) and its minimum RTT (min_rtt_ms, dashed).',
        targets: [
          target(perFlow('lfn_tcp', agg('mean', 'srtt_ms')), '$tag_flow'),
          target(perFlow('lfn_tcp', agg('min', 'min_rtt_ms')), '$tag_flow min'),
        ],
        unit: 'ms',
        min: 0,
        overrides: [
          {
            matcher: { id: 'byRegexp', options: '.* min$' },
            properties: [{ id: 'custom.lineStyle', value: { dash: [4, 4], fill: 'dash' } }],
          },
        ],
      }),
    )
    .panel(
      timeseries({
        title: 'Retransmissions',
        description:
          'Retransmitted segments per second per flow: the rate of the counter lfn_tcp.retrans_segments.',
        targets: [target(perFlow('lfn_tcp', rate(agg('max', 'retrans_segments'))), '$tag_flow')],
        unit: 'pps',
        min: 0,
      }),
    )
    .panel(
      timeseries({
        title: 'Delivery and pacing rate',
        description:
          "The sender's delivery rate estimate (lfn_tcp.delivery_bps) and pacing rate (pacing_bps, dashed; only stacks that pace).",
        targets: [
          target(perFlow('lfn_tcp', agg('mean', 'delivery_bps')), '$tag_flow delivery'),
          target(perFlow('lfn_tcp', agg('mean', 'pacing_bps')), '$tag_flow pacing'),
        ],
        unit: 'bps',
        min: 0,
        overrides: [
          {
            matcher: { id: 'byRegexp', options: '.* pacing$' },
            properties: [{ id: 'custom.lineStyle', value: { dash: [4, 4], fill: 'dash' } }],
          },
        ],
      }),
    )
    .panel(
      timeseries({
        title: 'iperf3 intervals',
        description:
          "iperf3's own per-interval goodput (lfn_interval.goodput_bps), one point a second: a check on the sampler.",
        targets: [target(perFlow('lfn_interval', agg('mean', 'goodput_bps')), '$tag_flow')],
        unit: 'bps',
        min: 0,
        interval: '1s',
        custom: { showPoints: 'always' },
      }),
    )
    .row('Path')
    .panel(
      timeseries({
        title: 'Bottleneck queue',
        description:
          'Packets waiting in the bottleneck qdisc (lfn_queue.backlog_packets, stage bottleneck) per path and direction.',
        targets: [
          target(
            select({
              select: [agg('mean', 'backlog_packets')],
              from: 'lfn_queue',
              where: [...runFilter, tagIs('stage', 'bottleneck')],
              groupByTime: '$__interval',
              groupBy: ['path', 'direction'],
              fill: 'none',
            }),
            '$tag_path $tag_direction',
          ),
        ],
        unit: 'short',
        min: 0,
        custom: { axisLabel: 'packets', fillOpacity: 10 },
      }),
    )
    .panel(
      timeseries({
        title: 'Drops',
        description:
          'Packets dropped per second by each router qdisc: the rate of the counter lfn_queue.drops. Drops outside the bottleneck stage mean the emulation itself dropped.',
        targets: [
          target(
            select({
              select: [rate(agg('max', 'drops'))],
              from: 'lfn_queue',
              where: runFilter,
              groupByTime: '$__interval',
              groupBy: ['path', 'direction', 'stage'],
              fill: 'none',
            }),
            '$tag_path $tag_direction $tag_stage',
          ),
        ],
        unit: 'pps',
        min: 0,
      }),
    )
    .panel(
      timeseries({
        title: 'RTT probe',
        description: 'RTT of the path probe (lfn_rtt.rtt_ms): base delay plus the queue it crosses.',
        targets: [
          target(
            select({
              select: [agg('mean', 'rtt_ms')],
              from: 'lfn_rtt',
              where: runFilter,
              groupByTime: '$__interval',
              groupBy: ['path'],
              fill: 'none',
            }),
            '$tag_path',
          ),
        ],
        unit: 'ms',
        min: 0,
      }),
    )
    .panel(
      timeseries({
        title: 'Wire: flows as the lab saw them',
        description:
          "Only when the lab is a bump in the wire: each external flow's goodput at the lab's exit toward the receiver (lfn_wireflow.goodput_bps) and its RTT from TCP timestamps (rtt_ms, dashed, right axis), measured on the lab's two ports.",
        targets: [
          target(perFlow('lfn_wireflow', agg('mean', 'goodput_bps')), '$tag_flow goodput'),
          target(perFlow('lfn_wireflow', agg('mean', 'rtt_ms')), '$tag_flow rtt'),
        ],
        unit: 'bps',
        min: 0,
        overrides: [
          {
            matcher: { id: 'byRegexp', options: '.* rtt$' },
            properties: [
              { id: 'unit', value: 'ms' },
              { id: 'custom.axisPlacement', value: 'right' },
              { id: 'custom.lineStyle', value: { dash: [4, 4], fill: 'dash' } },
            ],
          },
        ],
      }),
    )
    .panel(
      timeseries({
        title: 'UDP cross traffic',
        description: 'Rate each UDP cross-traffic source delivered at its sink (lfn_udp.rate_bps, IP layer).',
        targets: [
          target(
            select({
              select: [agg('mean', 'rate_bps')],
              from: 'lfn_udp',
              where: runFilter,
              groupByTime: '$__interval',
              groupBy: ['source'],
              fill: 'none',
            }),
            '$tag_source',
          ),
        ],
        unit: 'bps',
        min: 0,
      }),
    )
    .panel(
      timeseries({
        title: 'Lab CPU',
        description:
          "The lab VM's CPU use, percent of all CPUs (lfn_cpu): busy and the softirq share that carries packet processing.",
        targets: [
          target(
            select({
              select: [agg('mean', 'busy_pct')],
              from: 'lfn_cpu',
              where: runFilter,
              groupByTime: '$__interval',
              fill: 'none',
            }),
            'busy',
          ),
          target(
            select({
              select: [agg('mean', 'softirq_pct')],
              from: 'lfn_cpu',
              where: runFilter,
              groupByTime: '$__interval',
              fill: 'none',
            }),
            'softirq',
          ),
        ],
        unit: 'percent',
        min: 0,
        max: 100,
      }),
    )
    .build();
}
