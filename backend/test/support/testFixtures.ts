// Small fake run and campaign directories for the report's tests: every file a real run writes,
// with deterministic samples of every kind.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jainIndex, metricValue } from '@lfnlab/metrics';
import type { CampaignRow } from '../../src/campaign/runCampaign.js';
import type { RunSummaryFile } from '../../src/report/load.js';
import type { FidelityReport } from '../../src/run/fidelity.js';
import type { Sample } from '../../src/run/samples.js';

export interface FakeFlow {
  name: string;
  stack: string;
  direction?: 'forward' | 'reverse';
  /** Mean goodput, Mbit/s. */
  mbps?: number;
  /** When its data began, s (a late start after a lost SYN); absent in older summaries. */
  dataStartS?: number;
}

export interface FakeRunOptions {
  name?: string;
  flows?: FakeFlow[];
  durationS?: number;
  hz?: number;
  verdict?: FidelityReport['verdict'];
  reasons?: string[];
  /** Goodput samples per flow instead of durationS × hz (for downsampling tests). */
  goodputPoints?: number;
  status?: RunSummaryFile['status'];
}

const DEFAULT_FLOWS: FakeFlow[] = [
  { name: 'cubic-1', stack: 'cubic', mbps: 40 },
  { name: 'bbr-2', stack: 'bbr', mbps: 30 },
  { name: 'reno-3', stack: 'reno', mbps: 20 },
];

const jsonl = (xs: unknown[]) => xs.map((x) => `${JSON.stringify(x)}\n`).join('');

/** Writes a run directory; returns the samples written, by kind. */
export function makeFakeRun(dir: string, o: FakeRunOptions = {}): Record<string, Sample[]> {
  const name = o.name ?? 'fake-run';
  const flows = (o.flows ?? DEFAULT_FLOWS).map((f) => ({ direction: 'forward' as const, mbps: 25, ...f }));
  const durationS = o.durationS ?? 20;
  const hz = o.hz ?? 10;
  const verdict = o.verdict ?? 'valid';
  const reasons =
    o.reasons ??
    (verdict === 'valid'
      ? []
      : ['main forward: saturated bottleneck sent 80.0 Mbit/s (80.0 % of configured)']);
  mkdirSync(join(dir, 'samples'), { recursive: true });
  const ticks = Math.round(durationS * hz);
  const samples: Record<string, Sample[]> = {
    tcp: [],
    goodput: [],
    queue: [],
    cpu: [],
    rtt: [],
    interval: [],
    udp: [],
  };
  const wave = (i: number, k: number) => Math.sin((i + 7 * k) / 5);
  for (const [k, f] of flows.entries()) {
    const n = o.goodputPoints ?? ticks;
    let bytes = 0;
    for (let i = 1; i <= n; i++) {
      const t = (i * durationS) / n;
      const bps = f.mbps * 1e6 * (1 + 0.2 * wave(i, k));
      bytes += (bps / 8) * (durationS / n);
      samples.goodput?.push({ kind: 'goodput', t, flow: f.name, bps, bytesReceived: Math.round(bytes) });
    }
    let segs = 0;
    for (let i = 1; i <= ticks; i++) {
      segs += 100;
      samples.tcp?.push({
        kind: 'tcp',
        t: i / hz,
        flow: f.name,
        streams: 1,
        cc: f.stack,
        cwndPackets: 50 + (i % 40) + 10 * k,
        ssthreshPackets: null,
        srttMs: 50 + 5 * wave(i, k),
        rttvarMs: 2,
        minRttMs: 50,
        pacingBps: f.mbps * 1.2e6,
        deliveryBps: f.mbps * 1e6,
        bytesAcked: segs * 1448,
        retransSegments: Math.floor(segs / 200),
        lostPackets: 0,
        unackedPackets: 40,
        dataSegsOut: segs,
      });
    }
    for (let s = 1; s <= durationS; s++) {
      samples.interval?.push({
        kind: 'interval',
        flow: f.name,
        t: s,
        seconds: 1,
        goodputBps: f.mbps * 1e6,
        sendBps: f.mbps * 1.01e6,
        retransmits: 1,
        cwndBytes: 72400,
        rttMs: 51,
        streams: [{ socket: 5, cwndBytes: 72400, rttMs: 51, retransmits: 1, sendBps: f.mbps * 1.01e6 }],
      });
    }
  }
  for (let i = 1; i <= ticks; i++) {
    const t = i / hz;
    for (const direction of ['forward', 'reverse'] as const) {
      for (const stage of ['bottleneck', 'delay'] as const) {
        samples.queue?.push({
          kind: 'queue',
          t,
          path: 'main',
          stage,
          direction,
          dev: `p0-${direction === 'forward' ? 'rcv' : 'snd'}${stage === 'bottleneck' ? '-b' : ''}`,
          backlogPackets: stage === 'bottleneck' && direction === 'forward' ? i % 100 : 0,
          backlogBytes: stage === 'bottleneck' && direction === 'forward' ? (i % 100) * 1514 : 0,
          drops: Math.floor(i / 50),
          packets: i * 800,
          bytes: i * 800 * 1514,
        });
      }
    }
    samples.cpu?.push({
      kind: 'cpu',
      t,
      busyPct: 40 + 10 * wave(i, 0),
      userPct: 10,
      systemPct: 20,
      softirqPct: 10,
    });
    samples.rtt?.push({ kind: 'rtt', t, path: 'main', rttMs: 50 + (i % 30), seq: i });
  }
  for (const [kind, xs] of Object.entries(samples))
    writeFileSync(join(dir, 'samples', `${kind}.jsonl`), jsonl(xs));

  const spec = {
    name,
    description: 'A fake run for the report tests.',
    duration: durationS * 1000,
    sampleInterval: 1000,
    sampleHz: hz,
    seed: 42,
    mtu: 1500,
    paths: {
      main: {
        rtt: 50,
        rate: 100e6,
        buffer: { bdp: 1 },
        ber: 1e-8,
        jitter: 0,
        jitterDistribution: 'uniform',
        aqm: 'fifo',
        changes: [],
        reverse: { rate: 100e6, buffer: { bdp: 1 } },
      },
    },
    flows: flows.map((f) => ({
      stack: f.stack,
      streams: 1,
      start: 0,
      direction: f.direction,
      count: 1,
      every: 0,
      name: f.name,
      path: 'main',
      duration: durationS * 1000,
    })),
  };
  writeFileSync(join(dir, 'spec.json'), JSON.stringify(spec, null, 2));
  writeFileSync(join(dir, 'plan.sh'), '#!/bin/sh\n# fake plan\n');
  writeFileSync(
    join(dir, 'environment.json'),
    JSON.stringify({
      cpu: { model: 'Fake CPU', mhz: 2000 },
      seed: 42,
      lab: { name: 'default', accel: 'kvm', imageId: 'abc123def4567890', cpus: 2, memMb: 2048 },
      image: {
        id: 'abc123def4567890',
        kernel: {
          abi: '6.1.0-99-amd64',
          version: '6.1.999-1',
          package: 'linux-image-6.1.0-99-amd64',
          hz: 250,
        },
      },
      host: { node: 'v20', platform: 'linux' },
      lfnlab: { version: '0.1.0', commit: '0123456789ab', modified: true },
    }),
  );
  writeFileSync(
    join(dir, 'idle-rtt.json'),
    JSON.stringify({ main: { sent: 10, received: 10, minMs: 50.1, avgMs: 50.4, maxMs: 51, mdevMs: 0.2 } }),
  );
  writeFileSync(
    join(dir, 'calibration.json'),
    JSON.stringify({ main: { measuredMinMs: 51.2, excessMs: 1.2, oneWayDelayMs: 24.4, commands: [] } }),
  );
  writeFileSync(
    join(dir, 'sampling.json'),
    JSON.stringify([{ name: 'tcp:lfn-p0-snd', kind: 'tcp', records: ticks }]),
  );
  writeFileSync(
    join(dir, 'events.jsonl'),
    jsonl([
      { at: '2026-01-02T03:04:05.000Z', type: 'created', dir },
      { at: '2026-01-02T03:04:15.000Z', type: 'traffic', t0: '2026-01-02T03:04:15.500Z', labRealtimeMs: 1 },
      { at: '2026-01-02T03:04:40.000Z', type: 'finished', status: o.status ?? 'completed', verdict },
    ]),
  );

  const fidelity: FidelityReport = {
    verdict,
    reasons,
    checks: [
      {
        id: 'idle-rtt:main',
        status: 'pass',
        measured: 50.1,
        expected: '50 ms ± 0.70 ms',
        message: 'main: idle min RTT 50.10 ms for 50 ms configured (off by 0.10 ms)',
      },
      {
        id: 'bottleneck-rate:main:forward',
        status: verdict === 'invalid' ? 'fail' : verdict === 'suspect' ? 'warn' : 'pass',
        measured: verdict === 'valid' ? 99.5e6 : 80e6,
        expected: '100.000 Mbit/s ± 3 %',
        message:
          reasons[0] ??
          'main forward: saturated bottleneck sent 99.50 Mbit/s over 10.0 s (99.5 % of configured)',
      },
      {
        id: 'lab-cpu',
        status: 'pass',
        measured: 40,
        expected: '< 70 % busy',
        message: 'lab CPU 40.0 % busy on average while flows ran (peak 50.0 %)',
      },
    ],
  };
  const mbps = (f: { mbps: number }) => f.mbps;
  const total = flows.reduce((a, f) => a + mbps(f), 0);
  const jain = jainIndex(flows.map(mbps));
  const summary: RunSummaryFile = {
    name,
    status: o.status ?? 'completed',
    error: o.status && o.status !== 'completed' ? 'the lab went away' : null,
    seed: 42,
    verdict,
    fidelity,
    flows: flows.map((f) => ({
      name: f.name,
      stack: f.stack,
      observedStacks: [f.stack],
      path: 'main',
      direction: f.direction,
      streams: 1,
      startS: 0,
      ...(f.dataStartS === undefined ? {} : { dataStartS: f.dataStartS }),
      durationS,
      status: 'ok',
      error: null,
      goodputMbps: { mean: f.mbps, sd: f.mbps * 0.14, wholeRun: f.mbps * 0.99 },
      stability: 0.14,
      retransmits: 42,
      rttMs: { mean: 51, min: 50, max: 60 },
      maxCwndBytes: 130000,
      cpuPercent: { sender: 5, receiver: 10 },
      metrics: [metricValue('cpu.mhz_per_mbps', 12.5)],
      limitedBy: {
        limitedBy: 'network' as const,
        shares: { network: 0.9, 'receiver-window': 0.1, 'send-buffer': 0, sender: 0 },
        busyS: durationS,
      },
    })),
    paths: [
      {
        name: 'main',
        loadedRtt: { meanMs: 65, maxMs: 80, samples: ticks },
        configured: {
          rttMs: 50,
          rateMbps: 100,
          reverseRateMbps: 100,
          bufferPackets: { forward: 413, reverse: 413 },
          ber: 1e-8,
        },
        idleRtt: { sent: 10, received: 10, minMs: 50.1, avgMs: 50.4, maxMs: 51, mdevMs: 0.2 },
        utilisation: { forward: total / 100, reverse: null },
        jain: { forward: jain, reverse: null },
      },
    ],
    metrics: {
      flows: flows.map((f) => ({
        flow: f.name,
        recoveries: 2,
        metrics: [
          metricValue('throughput.mean', f.mbps * 1e6),
          metricValue('throughput.sd', f.mbps * 0.14e6),
          metricValue('stability.sigma_over_mu', 0.14),
          metricValue('rampup.time_90', 1.5),
          metricValue('retransmit.rate', 0.005),
          metricValue('rtt.mean', 51.25),
          metricValue('rtt.sd', 3.5),
          metricValue('recovery.time', 2.5),
        ],
      })),
      groups: [
        {
          path: 'main',
          direction: 'forward',
          flows: flows.filter((f) => f.direction === 'forward').map((f) => f.name),
          metrics: [
            metricValue('jain.whole', jain),
            metricValue('jain.second_half', jain * 0.99),
            metricValue('efficiency', total / 100),
            metricValue('performance.score', 0.2 * (total / 100) + 0.8 * jain),
          ],
        },
      ],
      theory: [
        {
          path: 'main',
          metrics: [
            metricValue('theory.bdp_bytes', 625000),
            metricValue('theory.bdp_packets', 412.8),
            metricValue('theory.per', 1.2e-4),
            metricValue('responsiveness', 10.7),
            metricValue('theory.n_flow_link_use', 0.9375),
            metricValue('theory.mathis_throughput', 55e6),
          ],
        },
      ],
    },
    startedAt: '2026-01-02T03:04:05.000Z',
    finishedAt: '2026-01-02T03:04:40.000Z',
    samples: Object.values(samples).reduce((a, xs) => a + xs.length, 0),
  };
  writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary, null, 2));
  return samples;
}

/**
 * A campaign: stack × flow count × 2 repetitions, each a small fake run; `invalidId` gets an invalid
 * verdict. Returns the run ids.
 */
export function makeFakeCampaign(dir: string, o: { invalidId?: string; durationS?: number } = {}): string[] {
  const stacks = ['cubic', 'bbr'];
  const counts = [2, 4];
  const variants: { id: string; params: Record<string, unknown>; repetition: number }[] = [];
  let i = 0;
  for (const stack of stacks)
    for (const count of counts) {
      i++;
      for (const rep of [1, 2])
        variants.push({
          id: `${String(i).padStart(3, '0')}-${stack}-${count}-r${rep}`,
          params: { 'flows[0].stack': stack, 'flows[0].count': count },
          repetition: rep,
        });
    }
  const rows: CampaignRow[] = [];
  for (const [k, v] of variants.entries()) {
    const stack = v.params['flows[0].stack'] as string;
    const count = v.params['flows[0].count'] as number;
    const flows = Array.from({ length: count }, (_, j) => ({
      name: `${stack}-${j + 1}`,
      stack,
      mbps: 90 / count + j + (k % 2),
    }));
    const invalid = v.id === o.invalidId;
    makeFakeRun(join(dir, 'runs', v.id), {
      name: 'sweep',
      flows,
      durationS: o.durationS ?? 5,
      verdict: invalid ? 'invalid' : 'valid',
    });
    const total = flows.reduce((a, f) => a + f.mbps, 0);
    rows.push({
      id: v.id,
      repetition: v.repetition,
      params: v.params,
      status: 'completed',
      verdict: invalid ? 'invalid' : 'valid',
      goodputMbps: Object.fromEntries(flows.map((f) => [f.name, f.mbps * 0.99])),
      jainForward: 0.99,
      utilisationForward: total / 100,
    });
  }
  writeFileSync(
    join(dir, 'campaign.json'),
    JSON.stringify({
      campaign: {
        name: 'sweep',
        description: 'Stacks against flow counts.',
        base: {},
        vary: { 'flows[0].stack': stacks, 'flows[0].count': counts },
        repeat: 2,
        order: 'sequential',
        seed: 1,
      },
      variants: variants.map((v) => ({ ...v, spec: {} })),
    }),
  );
  writeFileSync(join(dir, 'results.json'), JSON.stringify(rows, null, 2));
  return variants.map((v) => v.id);
}
