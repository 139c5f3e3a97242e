// The two lab clocks side by side, and what the dilated one buys: the same specs under a realtime
// and a dilated clock (goodput, cwnd peak against the pipe, the bottleneck's packet gaps, verdict,
// wall time), the spread with the host's cores busy, how far dilated time reaches, and how close
// two runs of one spec and seed come.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPlan, type SpecInput, validateSpec } from '@lfnlab/emulator';
import type { TcpFlowSample } from '../run/samples.js';
import type { RunSummary } from '../run/summary.js';

export type ClockMode = 'realtime' | 'dilated';

/** The numbers a comparison row needs, read back from a finished run directory. */
export interface RunFacts {
  goodputMbps: number;
  cwndPeak: number;
  pipePackets: number;
  retransmits: number;
  /** Loss episodes: lab seconds of the first retransmission of each (retransmissions within 0.5 s of the previous one belong to it). */
  lossTimesS: number[];
  verdict: string;
  reasons: string[];
  wallS: number;
  dilation: number | null;
  jain: number | null;
  /** Bottleneck dequeue gaps within ±10 % of the ideal frame time, and gap/ideal percentiles. */
  gaps: { within10: number | null; p10: number | null; p50: number | null; p90: number | null };
}

const readLines = <T>(file: string): T[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as T)
    : [];

export function runFacts(dir: string, summary: RunSummary, input: SpecInput): RunFacts {
  const v = validateSpec(input);
  const topo = v.ok ? buildPlan(v.spec).topology.paths[0] : undefined;
  const tcp = readLines<TcpFlowSample>(join(dir, 'samples', 'tcp.jsonl'));
  const lossTimesS: number[] = [];
  const byFlow = new Map<string, TcpFlowSample[]>();
  for (const s of tcp) byFlow.set(s.flow, [...(byFlow.get(s.flow) ?? []), s]);
  for (const xs of byFlow.values()) {
    let last = Number.NEGATIVE_INFINITY;
    for (let i = 1; i < xs.length; i++) {
      const a = xs[i - 1] as TcpFlowSample;
      const b = xs[i] as TcpFlowSample;
      if (b.retransSegments <= a.retransSegments) continue;
      if (b.t - last > 0.5) lossTimesS.push(b.t);
      last = b.t;
    }
  }
  const timing = existsSync(join(dir, 'timing.json'))
    ? (JSON.parse(readFileSync(join(dir, 'timing.json'), 'utf8')) as {
        directions?: {
          direction: string;
          gaps?: { within10: number; p10: number; p50: number; p90: number };
        }[];
      })
    : null;
  const fwd = timing?.directions?.find((d) => d.direction === 'forward')?.gaps;
  return {
    goodputMbps: summary.flows.reduce((a, f) => a + (f.goodputMbps.wholeRun ?? 0), 0),
    cwndPeak: tcp.reduce((m, s) => Math.max(m, s.cwndPackets), 0),
    pipePackets: topo ? topo.bdpPackets + topo.bufferPackets.forward : 0,
    retransmits: summary.flows.reduce((a, f) => a + (f.retransmits ?? 0), 0),
    lossTimesS: lossTimesS.sort((a, b) => a - b),
    verdict: summary.verdict ?? summary.status,
    reasons: summary.fidelity?.reasons ?? (summary.error ? [summary.error] : []),
    wallS: summary.clock?.wallS ?? Number.NaN,
    dilation: summary.clock?.dilation ?? null,
    jain: summary.paths[0]?.jain.forward ?? null,
    gaps: {
      within10: fwd?.within10 ?? null,
      p10: fwd?.p10 ?? null,
      p50: fwd?.p50 ?? null,
      p90: fwd?.p90 ?? null,
    },
  };
}

/** The comparison's specs: the Reno shallow-buffer case, a 4-flow fairness case, two single flows. */
export function clockSpecs(quick: boolean): SpecInput[] {
  return [
    {
      name: 'reno-shallow',
      duration: quick ? '30s' : '60s',
      paths: { main: { rtt: '100ms', rate: '50Mbit', buffer: '0.05bdp' } },
      flows: [{ name: 'reno', stack: 'reno' }],
    },
    {
      name: 'fairness-4',
      duration: quick ? '20s' : '30s',
      paths: { main: { rtt: '40ms', rate: '100Mbit', buffer: '1bdp' } },
      flows: [{ stack: 'cubic', count: 4 }],
    },
    {
      name: 'single-100',
      duration: '20s',
      paths: { main: { rtt: '20ms', rate: '100Mbit', buffer: '1bdp' } },
      flows: [{ stack: 'cubic' }],
    },
    {
      name: 'single-400',
      duration: '20s',
      paths: { main: { rtt: '20ms', rate: '400Mbit', buffer: '1bdp' } },
      flows: [{ stack: 'cubic' }],
    },
  ];
}

/**
 * A bounded CPU hog: one busy process per host core, each ending by itself after `maxS` even if
 * nobody stops it. stop() ends them at once.
 */
export function cpuHog(cores: number, maxS: number): { stop: () => void } {
  const kids = Array.from({ length: cores }, () =>
    spawn(process.execPath, ['-e', `const end = Date.now() + ${maxS * 1000}; while (Date.now() < end) {}`], {
      stdio: 'ignore',
    }),
  );
  return {
    stop: () => {
      for (const k of kids) k.kill('SIGKILL');
    },
  };
}

/** Mean and sample standard deviation. */
export function spread(xs: number[]): { mean: number; sd: number; n: number } {
  const n = xs.length;
  const mean = n ? xs.reduce((a, b) => a + b, 0) / n : Number.NaN;
  const sd = n > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1)) : 0;
  return { mean, sd, n };
}
