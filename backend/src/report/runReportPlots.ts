// The run report's figures: the time series (goodput, cwnd, RTT, queue, CPU) and the stability bars,
// each as inline SVG with a caption saying how to read it.
import { esc, isNum } from './format.js';
import type { RunData } from './load.js';
import { NEUTRAL } from './palette.js';
import type { RunReportOptions } from './runReport.js';
import {
  bottleneckQueues,
  type FlowInfo,
  goodputPoints,
  intervalMeans,
  pathsOf,
  probeRttPoints,
  queuePoints,
  runLengthS,
  tcpPoints,
} from './series.js';
import { barChart, flowSeriesStyles, type LineSeries, lineChart } from './svg.js';

function figure(id: string, caption: string, svg: string): string {
  return `<figure id="fig-${esc(id)}">${svg}<figcaption>${caption}</figcaption></figure>`;
}

export function plotsSection(run: RunData, flows: FlowInfo[], o: RunReportOptions): string {
  const maxPts = o.maxPointsPerLine ?? 2000;
  const lengthS = runLengthS(run);
  const xDomain: [number, number] | undefined = lengthS > 0 ? [0, lengthS] : undefined;
  const styles = flowSeriesStyles(flows);
  const colour = (i: number) => styles.get(flows[i]?.name ?? '') ?? { color: NEUTRAL.probe, dash: '' };
  // Queues are not flows: black and grey, dashed by direction, never a stack's colour.
  const queueStyle = (i: number) => ({
    color: i % 2 ? NEUTRAL.probe : NEUTRAL.queue,
    dash: i >= 2 ? '6 3' : '',
  });
  const figs: string[] = [];

  const goodput: LineSeries[] = flows.map((f, i) => ({
    name: `${f.name} (${f.stack})`,
    ...colour(i),
    points: goodputPoints(run, f.name).map((p) => ({ t: p.t, v: p.v / 1e6 })),
  }));
  figs.push(
    figure(
      'goodput',
      'Goodput of each flow at its receiver over time (Mbit/s): bytes received per sampling tick, or iperf3’s intervals when the fine sampler has none.',
      lineChart({
        id: 'plot-goodput',
        title: 'Goodput per flow over time',
        desc: `Goodput in Mbit/s of ${flows.length} flows against time in seconds since traffic start.`,
        xLabel: 'Time since traffic start (s)',
        yLabel: 'Goodput (Mbit/s)',
        series: goodput,
        xDomain,
        maxPointsPerLine: maxPts,
      }),
    ),
  );

  const cwnd: LineSeries[] = flows.map((f, i) => ({
    name: `${f.name} (${f.stack})`,
    ...colour(i),
    points: tcpPoints(run, f.name, 'cwndPackets'),
  }));
  figs.push(
    figure(
      'cwnd',
      'Congestion window of each flow’s sender (packets, summed over its streams), from <code>ss -ti</code>.',
      lineChart({
        id: 'plot-cwnd',
        title: 'Congestion window per flow over time',
        desc: 'Sender congestion window in packets against time in seconds.',
        xLabel: 'Time since traffic start (s)',
        yLabel: 'Congestion window (packets)',
        series: cwnd,
        xDomain,
        maxPointsPerLine: maxPts,
      }),
    ),
  );

  const paths = pathsOf(run);
  const rtt: LineSeries[] = [
    ...paths.map((p, i) => ({
      name: `probe RTT, path ${p}`,
      color: i === 0 ? '#000000' : '#4D4D4D',
      dash: i === 0 ? '' : '4 2',
      width: 2,
      points: probeRttPoints(run, p),
    })),
    ...flows.map((f, i) => ({
      name: `srtt ${f.name} (${f.stack})`,
      ...colour(i),
      dash: '5 3',
      points: tcpPoints(run, f.name, 'srttMs'),
    })),
  ];
  figs.push(
    figure(
      'rtt',
      'Round-trip time (ms): the path’s ping probe (solid) and each flow’s smoothed RTT as its sender sees it (dashed). The gap above the configured RTT is queueing.',
      lineChart({
        id: 'plot-rtt',
        title: 'RTT over time: probe and per-flow srtt',
        desc: 'Round-trip time in milliseconds against time in seconds, for the RTT probe of each path and the smoothed RTT of each flow.',
        xLabel: 'Time since traffic start (s)',
        yLabel: 'RTT (ms)',
        series: rtt,
        xDomain,
        maxPointsPerLine: maxPts,
      }),
    ),
  );

  const queues = bottleneckQueues(run);
  const pathSummaries = new Map((run.summary.paths ?? []).map((p) => [p.name, p]));
  const qSeries: LineSeries[] = queues.map((q, i) => ({
    name: `backlog ${q.path} ${q.direction}`,
    ...queueStyle(i),
    points: queuePoints(run, q, 'backlogPackets'),
  }));
  for (const q of queues) {
    const limit = pathSummaries.get(q.path)?.configured.bufferPackets[q.direction];
    if (isNum(limit) && lengthS > 0)
      qSeries.push({
        name: `buffer limit ${q.path} ${q.direction} (${limit} packets)`,
        color: NEUTRAL.reference,
        dash: '2 4',
        width: 1,
        points: [
          { t: 0, v: limit },
          { t: lengthS, v: limit },
        ],
      });
  }
  figs.push(
    figure(
      'queue',
      'Backlog of the bottleneck queue (packets) in each direction, with its configured limit dotted. A queue at its limit drops.',
      lineChart({
        id: 'plot-queue',
        title: 'Bottleneck queue backlog over time',
        desc: 'Packets queued at the bottleneck against time in seconds, per path and direction.',
        xLabel: 'Time since traffic start (s)',
        yLabel: 'Bottleneck backlog (packets)',
        series: qSeries,
        xDomain,
        maxPointsPerLine: maxPts,
      }),
    ),
  );

  // Stability: per-interval mean throughput, 5 s (seed 000) unless that makes more than 60 bars.
  const intervalS = Math.max(5, Math.ceil(lengthS / 60 / 5) * 5);
  const nInt = Math.max(1, Math.ceil(lengthS / intervalS - 1e-9));
  const short = (x: number) => String(Number(x.toPrecision(4)));
  const cats = Array.from(
    { length: nInt },
    (_, k) => `${short(k * intervalS)}–${short(Math.min(lengthS, (k + 1) * intervalS))}`,
  );
  figs.push(
    figure(
      'stability',
      `Stability view: each flow’s mean goodput in consecutive ${intervalS} s intervals (Mbit/s). The stability index σ/μ in the flow table is the spread of these bars relative to their mean.`,
      barChart({
        id: 'plot-stability',
        title: `Per-interval throughput (${intervalS} s intervals)`,
        desc: `Mean goodput in Mbit/s of each flow in each ${intervalS}-second interval.`,
        xLabel: `Interval (s since traffic start, ${intervalS} s each)`,
        yLabel: 'Mean goodput (Mbit/s)',
        categories: cats,
        series: flows.map((f, i) => ({
          name: `${f.name} (${f.stack})`,
          color: colour(i).color,
          values: intervalMeans(goodputPoints(run, f.name), intervalS, lengthS).map((v) =>
            v === null ? null : v / 1e6,
          ),
        })),
      }),
    ),
  );

  const cpu = run.samples.cpu.filter((c) => c.t >= 0);
  figs.push(
    figure(
      'cpu',
      'Lab CPU busy (% of all vCPUs). Above about 70 % on average, timers and pacing in the lab go wrong and the fidelity check fails.',
      lineChart({
        id: 'plot-cpu',
        title: 'Lab CPU use over time',
        desc: 'Percent of the lab CPUs busy against time in seconds.',
        xLabel: 'Time since traffic start (s)',
        yLabel: 'Lab CPU busy (%)',
        series: [
          { name: 'busy', color: '#0072B2', points: cpu.map((c) => ({ t: c.t, v: c.busyPct })) },
          {
            name: 'softirq',
            color: '#D55E00',
            dash: '5 3',
            points: cpu.map((c) => ({ t: c.t, v: c.softirqPct })),
          },
          ...(cpu.length && lengthS > 0
            ? [
                {
                  name: '70 % limit',
                  color: '#4D4D4D',
                  dash: '2 4',
                  width: 1,
                  points: [
                    { t: 0, v: 70 },
                    { t: lengthS, v: 70 },
                  ],
                },
              ]
            : []),
        ],
        xDomain,
        maxPointsPerLine: maxPts,
      }),
    ),
  );
  return figs.join('\n');
}
