// The guest CPU model under TCG, A/B: the same heavy run on a lab booted with each model in turn,
// in pairs whose order alternates (AB, BA, …) so a drift in the host's load falls on both. Prints
// each model's pace (lab seconds per wall second), guest CPU and packet spacing, and the pace ratio
// per pair with a t interval.
import type { SpecInput } from '@lfnlab/emulator';
import { type LabImage, labDown, labUp, TCG_CPU } from '@lfnlab/lab-images';
import { mean, meanAndSd, studentTQuantile } from '@lfnlab/metrics';
import { table } from '../cli/args.js';
import type { RunSummary } from '../run/summary.js';

/** The lab's model, then the same without the byte-wise string copies (ERMS, FSRM). */
export const CPU_MODELS = [TCG_CPU, `${TCG_CPU},-erms,-fsrm`] as const;

/** Heavy on the guest: 16 streams fill 100 Mbit/s, every segment copied in and out of sockets. */
export const CPU_MODEL_SPEC: SpecInput = {
  name: 'bench-cpumodel',
  duration: '20s',
  sampleInterval: '1s',
  paths: { main: { rtt: '10ms', rate: '100Mbit', buffer: '1bdp' } },
  flows: [{ stack: 'reno', streams: 16, name: 'test' }],
};

export interface CpuModelRun {
  model: string;
  pair: number;
  pace: number;
  guestCpuPct: number | null;
  spacing: number | null;
  verdict: string;
}

export interface CpuModelResult {
  runs: CpuModelRun[];
  /** Per pair: pace with the second model over pace with the first. */
  paceRatios: number[];
  ratio: { mean: number; low: number; high: number } | null;
}

/** The mean ratio with a 95 % t interval over the pairs (null with fewer than 2). */
export function ratioInterval(ratios: readonly number[]): CpuModelResult['ratio'] {
  if (ratios.length < 2) return null;
  const { mean: m, sd } = meanAndSd(ratios, { sample: true });
  const t = studentTQuantile(0.975, ratios.length - 1);
  const half = (t * sd) / Math.sqrt(ratios.length);
  return { mean: m, low: m - half, high: m + half };
}

export async function cpuModelAb(o: {
  labName: string;
  image: LabImage;
  pairs: number;
  /** Runs CPU_MODEL_SPEC on the lab as booted. */
  run: () => Promise<RunSummary>;
  log: (line: string) => void;
}): Promise<CpuModelResult> {
  const runs: CpuModelRun[] = [];
  for (let pair = 0; pair < o.pairs; pair++) {
    const order = pair % 2 === 0 ? [...CPU_MODELS] : [...CPU_MODELS].reverse();
    for (const model of order) {
      await labDown(o.labName);
      await labUp({
        name: o.labName,
        image: o.image,
        accel: 'tcg',
        clock: 'dilated',
        cpuModel: model,
        log: o.log,
      });
      const s = await o.run();
      const check = (id: string) => s.fidelity?.checks.find((c) => c.id === id)?.measured ?? null;
      const r: CpuModelRun = {
        model,
        pair,
        pace: s.clock?.dilation ?? Number.NaN,
        guestCpuPct: check('lab-cpu'),
        spacing: check('packet-spacing:main:forward'),
        verdict: s.verdict ?? '-',
      };
      o.log(
        `pair ${pair + 1}, cpu ${model}: ${r.pace.toFixed(3)} lab s per wall s, guest CPU ${r.guestCpuPct?.toFixed(1)} %`,
      );
      runs.push(r);
    }
  }
  await labDown(o.labName);
  const [a, b] = CPU_MODELS;
  const paceRatios = Array.from({ length: o.pairs }, (_, pair) => {
    const pace = (m: string) => runs.find((r) => r.pair === pair && r.model === m)?.pace ?? Number.NaN;
    return pace(b) / pace(a);
  });
  return { runs, paceRatios, ratio: ratioInterval(paceRatios) };
}

/** One row per model: n, mean pace, guest CPU and spacing. */
export function cpuModelRows(r: CpuModelResult): (string | number)[][] {
  // A value no run of that model measured (a run that never reached traffic) shows as '-'.
  const avg = (xs: (number | null)[], show: (m: number) => string) => {
    const ok = xs.filter((x): x is number => x !== null && Number.isFinite(x));
    return ok.length ? show(mean(ok)) : '-';
  };
  return CPU_MODELS.map((m) => {
    const mine = r.runs.filter((x) => x.model === m);
    return [
      m,
      mine.length,
      avg(
        mine.map((x) => x.pace),
        (v) => v.toFixed(3),
      ),
      avg(
        mine.map((x) => x.guestCpuPct),
        (v) => `${v.toFixed(1)} %`,
      ),
      avg(
        mine.map((x) => x.spacing),
        (v) => `${(100 * v).toFixed(1)} %`,
      ),
      mine.map((x) => x.verdict).join(' '),
    ];
  });
}

/** The section's text: the table per model, then the pace ratio of the pairs. */
export function cpuModelText(r: CpuModelResult): string {
  const head = ['cpu', 'runs', 'lab s per wall s', 'guest CPU', 'dequeue gaps on time', 'verdicts'];
  const ratio = r.ratio
    ? `${r.ratio.mean.toFixed(3)} (95 % t interval ${r.ratio.low.toFixed(3)} to ${r.ratio.high.toFixed(3)}, ${r.paceRatios.length} pairs)`
    : r.paceRatios.map((x) => x.toFixed(3)).join(', ');
  return `${table(head, cpuModelRows(r))}\npace, second model over first: ${ratio}`;
}
