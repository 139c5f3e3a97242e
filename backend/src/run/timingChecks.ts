// Packet timing, measured in the lab (lfn-pkttiming) and judged: the bottleneck's busy dequeue gaps
// against one frame's time at the rate in force (Mininet-HiFi's packet-spacing bar), and the delay
// stage's added delay against its configured jitter. Under a realtime clock on a software-emulated
// lab, late timers release packets in bunches and both show it; under a dilated clock they hold.
import { binRange, type PktTimingWindow, type Spec } from '@lfnlab/emulator';
import { quantileSorted } from '@lfnlab/metrics';
import { grade } from './checkGrade.js';
import type { Check } from './fidelity.js';

export interface DirectionTiming {
  path: string;
  direction: 'forward' | 'reverse';
  windows: number;
  /** Windows left out because the capture itself lost frames. */
  windowsExcluded: number;
  gaps: {
    busy: number;
    /** Share of busy gaps within ±10 % of the ideal frame time. */
    within10: number | null;
    /**
     * Shares shorter than 0.9 and longer than 1.1 frame times: how the rest fall tells bunches
     * (many short, a few long: late timers), a slow link (long) and single packets jittered
     * early and late by turns (about as many of each). Absent in timing.json files before them.
     */
    short?: number | null;
    long?: number | null;
    /** Percentiles of gap / ideal. */
    p10: number | null;
    p50: number | null;
    p90: number | null;
    /**
     * The rate the bottleneck served at while it had a queue, bit/s: the rate in force over the
     * same gaps (configuredBps) over the median gap/ideal. The median, not the mean: a few hundred
     * gaps in a hundred thousand are 20–30 frame times long (a small frame timed after a full one
     * in the mixed data and ACKs of two-way traffic), and a mean would call that a 5 % slower link.
     */
    servedBps: number | null;
    configuredBps: number | null;
  };
  delay: {
    n: number;
    /** The delay stage's added delay: median of the windows' medians, ms. */
    medianMs: number | null;
    /**
     * Spread the stage added (p99 − p1 within a window), the median window, ms. A few windows with
     * a burst of work in a one-vCPU lab do not make a stage jittery; late timers show in most.
     */
    spreadMs: number | null;
  };
}

const medianOrNull = (sorted: number[]) => (sorted.length ? quantileSorted(sorted, 0.5) : null);

/** The rate in force at lab time t (s) for a path's direction, bit/s. */
export function rateAt(spec: Spec, path: string, direction: 'forward' | 'reverse', t: number): number {
  const p = spec.paths[path];
  if (!p) return Number.NaN;
  if (direction === 'reverse') return p.reverse.rate;
  return [...p.changes].reverse().find((c) => c.rate !== undefined && c.at <= t * 1000)?.rate ?? p.rate;
}

/**
 * Per direction over the traffic phase [0, endS]: windows with capture loss are left out; each
 * window's gaps are judged against the rate at its middle.
 */
export function timingStats(
  spec: Spec,
  records: PktTimingWindow[],
  t0RealMs: number,
  endS: number,
  windowS: number,
): DirectionTiming[] {
  const out: DirectionTiming[] = [];
  for (const path of Object.keys(spec.paths))
    for (const direction of ['forward', 'reverse'] as const) {
      const ws = records.filter((r) => r.dir === `${path}.${direction}`);
      const inRun = ws.filter((r) => {
        const t = (r.timeMs - t0RealMs) / 1000;
        return t > 0 && t - windowS < endS;
      });
      const kept = inRun.filter((r) => r.captureDrops === 0);
      const ratios: [number, number][] = [];
      let busy = 0;
      let within = 0;
      let short = 0;
      let long = 0;
      let idealNsPerByte = 0;
      for (const w of kept) {
        const mid = (w.timeMs - t0RealMs) / 1000 - windowS / 2;
        const ideal = 8e9 / rateAt(spec, path, direction, mid); // ns per byte
        for (const [b, c] of w.bins) {
          const [lo, hi] = binRange(b);
          busy += c;
          const r = Math.sqrt(lo * hi) / ideal;
          if (lo >= 0.9 * ideal && hi <= 1.1 * ideal) within += c;
          else if (r < 1) short += c;
          else long += c;
          ratios.push([r, c]);
          idealNsPerByte += c * ideal;
        }
      }
      ratios.sort((a, b) => a[0] - b[0]);
      const ratioAt = (q: number) => {
        let seen = 0;
        for (const [r, c] of ratios) {
          seen += c;
          if (seen >= q * busy) return r;
        }
        return null;
      };
      const delayed = kept.filter((w) => w.delay.n > 0);
      const medians = delayed.map((w) => w.delay.p50Ms).sort((a, b) => a - b);
      const spreads = delayed.map((w) => w.delay.p99Ms - w.delay.p1Ms).sort((a, b) => a - b);
      const p50 = busy ? ratioAt(0.5) : null;
      const configuredBps = busy ? (8e9 * busy) / idealNsPerByte : null;
      out.push({
        path,
        direction,
        windows: inRun.length,
        windowsExcluded: inRun.length - kept.length,
        gaps: {
          busy,
          within10: busy ? within / busy : null,
          short: busy ? short / busy : null,
          long: busy ? long / busy : null,
          p10: busy ? ratioAt(0.1) : null,
          p50,
          p90: busy ? ratioAt(0.9) : null,
          servedBps: configuredBps !== null && p50 ? configuredBps / p50 : null,
          configuredBps,
        },
        delay: {
          n: delayed.reduce((a, w) => a + w.delay.n, 0),
          medianMs: medianOrNull(medians),
          spreadMs: medianOrNull(spreads),
        },
      });
    }
  return out;
}

/**
 * At least 200 busy gaps to judge, on a bottleneck that carried at least 5 % of its rate;
 * ≥ 90 % within ±10 % passes, ≥ 75 % warns. A lightly used direction (the ACKs of a forward flow)
 * is left alone: its few queued frames wait for the lab's next round of packet work (measured in a
 * dilated lab: ACKs leave ~0.5 ms late, two data frames apart), which no result depends on.
 */
export function checkPacketSpacing(d: DirectionTiming, utilisation: number | null = null): Check {
  const id = `packet-spacing:${d.path}:${d.direction}`;
  const expected = '>= 90 % of busy bottleneck dequeue gaps within 10 % of one frame time';
  const where = `${d.path} ${d.direction}`;
  if (utilisation !== null && utilisation < 0.05)
    return {
      id,
      status: 'skip',
      measured: d.gaps.within10,
      expected,
      message: `${where}: the bottleneck carried ${(100 * utilisation).toFixed(1)} % of its rate; spacing not judged on a lightly used link`,
    };
  if (d.gaps.busy < 200 || d.gaps.within10 === null)
    return {
      id,
      status: 'skip',
      measured: d.gaps.within10,
      expected,
      message: `${where}: ${d.gaps.busy} busy dequeue gaps seen; too few to judge the bottleneck's packet spacing`,
    };
  const w = d.gaps.within10;
  const pct = (x: number | null) => (x === null ? '-' : x.toFixed(2));
  const share = (x: number) => `${(100 * x).toFixed(1)} %`;
  const short = d.gaps.short ?? null;
  const long = d.gaps.long ?? null;
  // How the gaps outside ±10 % fall says what went wrong with the releases.
  const cause =
    short === null || long === null
      ? 'the emulator released packets in bunches (late timers)'
      : short > 2 * long
        ? `the emulator released packets in bunches (late timers): ${share(short)} of gaps short, ${share(long)} long`
        : long > 2 * short
          ? `gaps ran long (${share(long)}, ${share(short)} short): the link released packets slower than its rate`
          : `${share(short)} of gaps short and ${share(long)} long, by turns: single packets released early or late around the frame time (jitter), not in bunches`;
  return {
    id,
    status: grade(w >= 0.9, w >= 0.75),
    measured: w,
    expected,
    message: `${where}: ${(100 * w).toFixed(1)} % of ${d.gaps.busy} busy dequeue gaps within 10 % of one frame time (gap/ideal p10 ${pct(d.gaps.p10)}, median ${pct(d.gaps.p50)}, p90 ${pct(d.gaps.p90)})${w < 0.9 ? `: ${cause}` : ''}`,
  };
}

/**
 * The delay stage may add no spread of its own beyond the configured jitter (two jitters wide):
 * 0.25 ms passes, 1 ms warns, more fails. Measured (Reno, 50 Mbit/s × 100 ms): realtime TCG 1.44 ms
 * in the median window, dilated 0.05 ms.
 */
export function checkDelayJitter(d: DirectionTiming, jitterMs: number): Check {
  const id = `delay-jitter:${d.path}:${d.direction}`;
  const allowed = 2 * jitterMs;
  const expected = `added delay spread (p99 − p1, median window) <= ${(allowed + 0.25).toFixed(2)} ms`;
  const where = `${d.path} ${d.direction}`;
  if (d.delay.n < 100 || d.delay.spreadMs === null)
    return {
      id,
      status: 'skip',
      measured: d.delay.spreadMs,
      expected,
      message: `${where}: ${d.delay.n} packets timed through the delay stage; too few to judge its jitter`,
    };
  const extra = d.delay.spreadMs - allowed;
  return {
    id,
    status: grade(extra <= 0.25, extra <= 1),
    measured: d.delay.spreadMs,
    expected,
    message: `${where}: the delay stage added ${d.delay.medianMs?.toFixed(3)} ms (median) with a spread of ${d.delay.spreadMs.toFixed(3)} ms (p99 − p1 in the median window)${jitterMs ? ` for ±${jitterMs} ms of configured jitter` : ''}${extra > 0.25 ? ': jitter the spec did not ask for (late timers)' : ''}`,
  };
}
