// Run-shaped data for the dashboard tests (src/storage/dashboards.*.test.ts): three runs of a campaign (plus one of another), each
// 30 s of samples at 10 Hz from several flows and stacks, made into points by the backend's own
// samplePoint() + lineProtocol(), and events, summaries and health points by the backend's own
// runPoints.ts.

import { EVENT_TYPES, type VERDICT_CODES } from '@lfnlab/grafana';
import { bottleneckJain, seededUniform } from '@lfnlab/metrics';
import type { Sample } from '../../src/run/samples.js';
import type { RunSummary } from '../../src/run/summary.js';
import { lineProtocol, type Point, type RunContext, samplePoint } from '../../src/storage/points.js';
import { eventPoint, healthPoint, summaryPoints } from '../../src/storage/runPoints.js';

export const DB = 'lfnlab';
export const USER = 'ada';
export const HOST = 'lab-host';
export const CAMPAIGN = 'sweep-1';
const DURATION_S = 30;
const HZ = 10;

export interface FlowDef {
  name: string;
  stack: string;
  path: string;
  startS: number;
}

export interface RunDef {
  id: string;
  campaign: string;
  t0Ms: number;
  flows: FlowDef[];
  verdict: keyof typeof VERDICT_CODES;
  /** Only a summary, no samples (a run of another campaign). */
  summaryOnly?: boolean;
}

export const runEndMs = (r: RunDef) => r.t0Ms + DURATION_S * 1000;

/** Deterministic pseudo-random numbers: the campaigns' own seeded generator. */
const rng = seededUniform;

/** The test's runs, starting baseMs (whole seconds), 40 s apart. */
export function labRuns(baseMs: number): RunDef[] {
  return [
    {
      id: '20251121-100000-other-sweep',
      campaign: 'sweep-0',
      t0Ms: baseMs - 60_000,
      flows: [{ name: 'cubic-1', stack: 'cubic', path: 'main', startS: 0 }],
      verdict: 'valid',
      summaryOnly: true,
    },
    {
      id: '20251121-101500-cubic-vs-bbr',
      campaign: CAMPAIGN,
      t0Ms: baseMs,
      flows: [
        { name: 'cubic-1', stack: 'cubic', path: 'main', startS: 0 },
        { name: 'bbr-1', stack: 'bbr', path: 'main', startS: 5 },
      ],
      verdict: 'valid',
    },
    {
      id: '20251121-102000-reno-vs-cubic',
      campaign: CAMPAIGN,
      t0Ms: baseMs + 40_000,
      flows: [
        { name: 'reno-1', stack: 'reno', path: 'main', startS: 0 },
        { name: 'cubic-1', stack: 'cubic', path: 'main', startS: 5 },
      ],
      verdict: 'suspect',
    },
    {
      id: '20251121-102500-bbr.two-paths',
      campaign: CAMPAIGN,
      t0Ms: baseMs + 80_000,
      flows: [
        { name: 'bbr-1', stack: 'bbr', path: 'main', startS: 0 },
        { name: 'bbr-2', stack: 'bbr', path: 'alt', startS: 0 },
      ],
      verdict: 'invalid',
    },
  ];
}

/** The 10 Hz samples of one run (and the 1 Hz iperf3 intervals), as the samplers would give them. */
export function runSamples(run: RunDef, seed: number): Sample[] {
  const rand = rng(seed);
  const out: Sample[] = [];
  const capacityBps = 100e6;
  const baseRttMs = 40;
  const paths = [...new Set(run.flows.map((f) => f.path))];
  const state = new Map(
    run.flows.map((f) => [f.name, { cwnd: 10, bytes: 0, acked: 0, retrans: 0, segs: 0 }]),
  );
  const drops = new Map(paths.map((p) => [p, 0]));
  const rttSeq = new Map(paths.map((p) => [p, 0]));
  for (let i = 1; i <= DURATION_S * HZ; i++) {
    const t = i / HZ;
    for (const path of paths) {
      const active = run.flows.filter((f) => f.path === path && t >= f.startS);
      const backlog = Math.round(20 + 60 * rand() * Math.min(1, active.length));
      if (rand() < 0.05) drops.set(path, (drops.get(path) ?? 0) + Math.ceil(rand() * 5));
      const common = { kind: 'queue' as const, t, path, packets: i * 800, bytes: i * 800 * 1500 };
      out.push({
        ...common,
        stage: 'bottleneck',
        direction: 'forward',
        dev: `b-${path}`,
        backlogPackets: backlog,
        backlogBytes: backlog * 1500,
        drops: drops.get(path) ?? 0,
      });
      out.push({
        ...common,
        stage: 'delay',
        direction: 'forward',
        dev: `d-${path}`,
        backlogPackets: 300,
        backlogBytes: 300 * 1500,
        drops: 0,
      });
      out.push({
        ...common,
        stage: 'bottleneck',
        direction: 'reverse',
        dev: `r-${path}`,
        backlogPackets: 1,
        backlogBytes: 66,
        drops: 0,
      });
      const seq = (rttSeq.get(path) ?? 0) + 1;
      rttSeq.set(path, seq);
      out.push({ kind: 'rtt', t, path, rttMs: baseRttMs + backlog * 0.12 + rand(), seq });
      // Sinusoidal UDP cross traffic on every path, as seed 000's stability test has it.
      out.push({
        kind: 'udp',
        t,
        source: `${path}-udp1`,
        path,
        bps: 10e6 + 5e6 * Math.sin(t / 5),
        lost: 0,
        owdMeanMs: baseRttMs / 2 + rand(),
      });
    }
    out.push({
      kind: 'cpu',
      t,
      busyPct: 30 + 20 * rand(),
      userPct: 5 + rand(),
      systemPct: 10 + rand(),
      softirqPct: 15 + 10 * rand(),
    });
    for (const f of run.flows) {
      if (t < f.startS) continue;
      const s = state.get(f.name);
      if (!s) continue;
      const sharing = run.flows.filter((g) => g.path === f.path && t >= g.startS).length;
      const bps = (capacityBps / sharing) * Math.min(1, (t - f.startS + 0.1) / 3) * (0.9 + 0.1 * rand());
      s.bytes += Math.round(bps / 8 / HZ);
      s.acked = s.bytes;
      s.segs += Math.round(bps / 8 / HZ / 1448);
      s.cwnd = s.cwnd > 400 ? Math.round(s.cwnd * 0.7) : s.cwnd + 8;
      if (rand() < 0.03) s.retrans += 1 + Math.floor(rand() * 3);
      const srtt = baseRttMs + 5 * rand();
      out.push({ kind: 'goodput', t, flow: f.name, bps, bytesReceived: s.bytes });
      // As a wire's lab would also see it on its ports (the Run dashboard's wire panel).
      out.push({
        kind: 'wireflow',
        t,
        flow: f.name,
        newBytes: Math.round(bps / 8 / HZ),
        goodputBps: bps,
        inBytes: Math.round((1.01 * bps) / 8 / HZ),
        retransSegments: 0,
        flightBytes: s.cwnd * 1448,
        rttMs: srtt,
        rttMinMs: baseRttMs,
        rttSamples: 3,
      });
      out.push({
        kind: 'tcp',
        t,
        flow: f.name,
        streams: 1,
        cc: f.stack,
        cwndPackets: s.cwnd,
        ssthreshPackets: f.stack === 'bbr' ? null : 300,
        srttMs: srtt,
        rttvarMs: 2 * rand(),
        minRttMs: baseRttMs,
        pacingBps: f.stack === 'bbr' ? bps * 1.25 : null,
        deliveryBps: bps,
        bytesAcked: s.acked,
        retransSegments: s.retrans,
        lostPackets: 0,
        unackedPackets: Math.round(s.cwnd * 0.9),
        dataSegsOut: s.segs,
      });
      if (i % HZ === 0) {
        out.push({
          kind: 'interval',
          t,
          flow: f.name,
          seconds: 1,
          goodputBps: bps,
          sendBps: bps * 1.01,
          retransmits: Math.floor(rand() * 3),
          cwndBytes: s.cwnd * 1448,
          rttMs: srtt,
          streams: [{ socket: 5, cwndBytes: s.cwnd * 1448, rttMs: srtt, retransmits: 0, sendBps: bps }],
        });
      }
    }
  }
  return out;
}

export function runContext(run: RunDef): RunContext {
  return {
    runId: run.id,
    user: USER,
    t0EpochMs: run.t0Ms,
    flows: Object.fromEntries(
      run.flows.map((f) => [f.name, { stack: f.stack, path: f.path, direction: 'forward' as const }]),
    ),
  };
}

/** Every line the test writes: samples through points.ts, then the expectation measurements. */
/** What a finished run's summary.json holds, as far as lfn_summary reads it. */
function fakeSummary(run: RunDef, n: number): RunSummary {
  const flows = run.flows.map((f, i) => ({
    name: f.name,
    stack: f.stack,
    path: f.path,
    startS: 0,
    durationS: DURATION_S,
    goodputMbps: { mean: 40 + 5 * n + i, sd: null, wholeRun: 40 + 5 * n + i },
  }));
  // Every flow here runs forward: Jain per path forward, none reverse (lfn_fairness).
  const paths = [...new Set(flows.map((f) => f.path))].map((name) => ({
    name,
    jain: {
      forward: bottleneckJain(flows.filter((f) => f.path === name).map((f) => f.goodputMbps.wholeRun)),
      reverse: null,
    },
  }));
  return { verdict: run.verdict, flows, paths } as unknown as RunSummary;
}

export function labLines(runs: RunDef[], healthFromMs: number, healthToMs: number): string[] {
  const lines: string[] = [];
  const push = (p: Point) => {
    const line = lineProtocol(p);
    if (line) lines.push(line);
  };
  runs.forEach((run, n) => {
    if (!run.summaryOnly) {
      const ctx = runContext(run);
      for (const s of runSamples(run, 1000 + n)) {
        const line = lineProtocol(samplePoint(ctx, s));
        if (line) lines.push(line);
      }
      for (const f of run.flows) {
        push(
          eventPoint(ctx, {
            type: EVENT_TYPES.flowStart,
            t: f.startS,
            flow: f.name,
            text: `${f.name} starts (${f.stack}, ${f.path})`,
          }),
        );
        push(
          eventPoint(ctx, { type: EVENT_TYPES.flowEnd, t: DURATION_S, flow: f.name, text: `${f.name} ends` }),
        );
      }
      push(
        eventPoint(ctx, {
          type: EVENT_TYPES.verdict,
          t: DURATION_S,
          text: `verdict: ${run.verdict} "quoted", back\\slash`,
        }),
      );
    }
    // Run n's flow i gets 40 + 5n + i Mbit/s, so stacks and runs differ.
    for (const p of summaryPoints({ ...runContext(run), flows: {} }, fakeSummary(run, n), run.campaign))
      push(p);
  });
  let written = 0;
  for (let t = healthFromMs; t <= healthToMs; t += 1000) {
    written += 300 + ((t / 1000) % 7);
    push(
      healthPoint({
        host: HOST,
        spoolBytes: (t / 1000) % 5 === 0 ? 4096 : 0,
        pointsWritten: written,
        timeMs: t,
      }),
    );
  }
  return lines;
}
