// Mininet-HiFi's packet-spacing invariant: under saturation, the gaps between packets leaving the
// bottleneck should equal one frame's transmission time. tcpdump on the bottleneck IFB sees each
// packet as netem releases it.
import type { Plan } from '@lfnlab/emulator';

export const CAPTURE = 'capture:bottleneck';

/** Adds a packet capture of the first path's forward bottleneck to a plan (nanosecond stamps). */
export function withBottleneckCapture(packets: number) {
  return (plan: Plan): Plan => {
    const p = plan.topology.paths[0];
    if (!p) return plan;
    plan.samplers.push({
      name: CAPTURE,
      kind: 'capture',
      ns: plan.topology.routerNs,
      argv: [
        'ip',
        'netns',
        'exec',
        plan.topology.routerNs,
        'tcpdump',
        '-i',
        p.routerIfs.forwardIfb,
        '-Z',
        'root',
        '-l',
        '-nn',
        '-q',
        '-tt',
        '--time-stamp-precision=nano',
        '-c',
        String(packets),
        'tcp',
        'and',
        'greater',
        '1000',
      ],
    });
    return plan;
  };
}

export interface Spacing {
  gaps: number;
  idealUs: number;
  /** Share of gaps within ±10 % of the ideal frame time. */
  within10pct: number;
  medianUs: number;
}

/**
 * Gaps between consecutive full-size packets, in µs, against `frameBytes` at `rateBps`. Only
 * gaps shorter than four frame times count: longer ones are the queue running empty, not spacing.
 */
export function packetSpacing(traceText: string, frameBytes: number, rateBps: number): Spacing {
  const ts = traceText
    .split('\n')
    .map((l) => /^(\d+)\.(\d{9})\s/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]) * 1e6 + Number(m[2]) / 1000);
  const idealUs = (frameBytes * 8 * 1e6) / rateBps;
  const gaps: number[] = [];
  for (let i = 1; i < ts.length; i++) {
    const g = (ts[i] as number) - (ts[i - 1] as number);
    if (g > 0 && g < 4 * idealUs) gaps.push(g);
  }
  const ok = gaps.filter((g) => Math.abs(g - idealUs) <= 0.1 * idealUs).length;
  const sorted = [...gaps].sort((a, b) => a - b);
  return {
    gaps: gaps.length,
    idealUs,
    within10pct: gaps.length ? ok / gaps.length : 0,
    medianUs: sorted[Math.floor(sorted.length / 2)] ?? 0,
  };
}
