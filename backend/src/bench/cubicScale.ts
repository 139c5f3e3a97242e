// CUBIC's C set at boot (tcp_cubic.bic_scale), A/B: does the value the lab kernel boots with change
// CUBIC's dynamics as its window function says? One CUBIC flow fills a path and loses at about the
// same window every epoch, so the epoch (loss to loss) is K plus a nearly fixed overshoot, and K =
// ∛(W·(1−β)/C) scales as C^(−1/3): the epoch ratio should be ∛(C_a/C_b). Pairs alternate the order
// (AB, BA, …) so a drift in the host falls on both.
import type { SpecInput } from '@lfnlab/emulator';
import { quantileSorted, series, windowRecoveries } from '@lfnlab/metrics';
import { table } from '../cli/args.js';
import { ratioInterval } from './cpuModel.js';

/** The default C (41 → 0.4 packets/s³), then the seed-001 presets' scaled one (41 × 0.1608 ≈ 7). */
export const BIC_SCALES = [41, 7] as const;

/** One CUBIC flow over 100 Mbit/s × 100 ms, 0.2 BDP queue: W ≈ 990 packets, K ≈ 9 s at C = 0.4. */
export function cubicScaleSpec(bicScale: number, seconds: number): SpecInput {
  return {
    name: `bench-cubic-c${bicScale}`,
    duration: `${seconds}s`,
    sampleInterval: '1s',
    paths: { main: { rtt: '100ms', rate: '100Mbit', buffer: '0.2bdp' } },
    flows: [{ name: 'c', stack: 'cubic' }],
    stackParams: { cubic: { bic_scale: bicScale } },
  };
}

/**
 * Seconds from one loss episode to the next, from a cwnd series. Reductions closer together than
 * `mergeS` are one episode (PRR lowers the window over an RTT, and a second loss in the same
 * window cuts again); the first episode ends slow start and starts no epoch before it.
 */
export function lossEpochs(t: readonly number[], cwnd: readonly number[], mergeS = 1): number[] {
  if (t.length < 2) return [];
  const drops = windowRecoveries(series(t, cwnd)).map((e) => e.dropAtS);
  const episodes = drops.filter((d, i) => i === 0 || d - (drops[i - 1] as number) > mergeS);
  return episodes.slice(1).map((d, i) => d - (episodes[i] as number));
}

export interface CubicScaleRun {
  bicScale: number;
  pair: number;
  /** The value the lab's kernel reported (stack-params-before.json), null when not read. */
  inForce: number | null;
  epochs: number[];
  medianEpochS: number | null;
  verdict: string;
}

export interface CubicScaleResult {
  runs: CubicScaleRun[];
  /** Per pair: median epoch with the second C over the first. */
  epochRatios: number[];
  ratio: ReturnType<typeof ratioInterval>;
  /** ∛(C_first / C_second). */
  theory: number;
}

/** Runs the pairs; `run` runs one spec and returns its cwnd series, kernel value and verdict. */
export async function cubicScaleAb(o: {
  pairs: number;
  seconds: number;
  run: (spec: SpecInput) => Promise<{ t: number[]; cwnd: number[]; inForce: number | null; verdict: string }>;
  log: (line: string) => void;
}): Promise<CubicScaleResult> {
  const runs: CubicScaleRun[] = [];
  for (let pair = 0; pair < o.pairs; pair++) {
    const order = pair % 2 === 0 ? [...BIC_SCALES] : [...BIC_SCALES].reverse();
    for (const bicScale of order) {
      const r = await o.run(cubicScaleSpec(bicScale, o.seconds));
      const epochs = lossEpochs(r.t, r.cwnd);
      const run: CubicScaleRun = {
        bicScale,
        pair,
        inForce: r.inForce,
        epochs,
        medianEpochS: epochs.length
          ? quantileSorted(
              [...epochs].sort((x, y) => x - y),
              0.5,
            )
          : null,
        verdict: r.verdict,
      };
      o.log(
        `pair ${pair + 1}, bic_scale ${bicScale} (kernel: ${r.inForce ?? '?'}): ${epochs.length} epochs, median ${run.medianEpochS?.toFixed(2) ?? '-'} s`,
      );
      runs.push(run);
    }
  }
  const [a, b] = BIC_SCALES;
  const epochRatios = Array.from({ length: o.pairs }, (_, pair) => {
    const m = (s: number) =>
      runs.find((r) => r.pair === pair && r.bicScale === s)?.medianEpochS ?? Number.NaN;
    return m(b) / m(a);
  }).filter(Number.isFinite);
  return { runs, epochRatios, ratio: ratioInterval(epochRatios), theory: Math.cbrt(a / b) };
}

/** The section's text: each run, then the epoch ratio against theory. */
export function cubicScaleText(r: CubicScaleResult): string {
  const rows = r.runs.map((x) => [
    x.pair + 1,
    x.bicScale,
    x.inForce ?? '-',
    x.epochs.length,
    x.medianEpochS === null ? '-' : x.medianEpochS.toFixed(2),
    x.verdict,
  ]);
  const head = ['pair', 'bic_scale', 'in the kernel', 'epochs', 'median epoch s', 'verdict'];
  const measured = r.ratio
    ? `${r.ratio.mean.toFixed(3)} (95 % t interval ${r.ratio.low.toFixed(3)} to ${r.ratio.high.toFixed(3)}, ${r.epochRatios.length} pairs)`
    : r.epochRatios.map((x) => x.toFixed(3)).join(', ') || '-';
  return `${table(head, rows)}\nepoch, bic_scale ${BIC_SCALES[1]} over ${BIC_SCALES[0]}: ${measured}; theory ∛(${BIC_SCALES[0]}/${BIC_SCALES[1]}) = ${r.theory.toFixed(3)}`;
}
