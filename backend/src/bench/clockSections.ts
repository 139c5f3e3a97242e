// The bench's clock sections (`--only clocks,load,reach,repeat`): realtime vs dilated on the same
// specs, load independence, how far dilated time reaches, and run-to-run repeatability.
import { cpus } from 'node:os';
import type { SpecInput } from '@lfnlab/emulator';
import { table } from '../cli/args.js';
import { type ClockMode, clockSpecs, cpuHog, type RunFacts, spread } from './clocks.js';

export interface BenchContext {
  quick: boolean;
  want: (part: string) => boolean;
  results: Record<string, unknown>;
  section: (title: string, text: string) => void;
  run: (input: SpecInput, clock: ClockMode) => Promise<RunFacts>;
}

const num = (x: number | null | undefined, digits = 1) =>
  x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(digits);
const pct = (x: number | null | undefined) =>
  x === null || x === undefined || !Number.isFinite(x) ? '-' : `${(100 * x).toFixed(1)}%`;
const MODES: ClockMode[] = ['realtime', 'dilated'];

async function sideBySide(c: BenchContext) {
  const rows: (RunFacts & { spec: string; clock: ClockMode })[] = [];
  for (const spec of clockSpecs(c.quick))
    for (const clock of MODES) rows.push({ spec: String(spec.name), clock, ...(await c.run(spec, clock)) });
  c.results.clocks = rows;
  c.section(
    'Realtime vs dilated clock (same specs; gaps: bottleneck dequeue gaps / ideal frame time, forward)',
    table(
      [
        'spec',
        'clock',
        'goodput Mbit/s',
        'cwnd peak / pipe',
        'gaps ±10 %',
        'gap p10/p50/p90',
        'Jain',
        'verdict',
        'wall s',
        'lab s/wall s',
      ],
      rows.map((r) => [
        r.spec,
        r.clock,
        num(r.goodputMbps),
        `${r.cwndPeak} / ${r.pipePackets}`,
        pct(r.gaps.within10),
        `${num(r.gaps.p10, 2)}/${num(r.gaps.p50, 2)}/${num(r.gaps.p90, 2)}`,
        num(r.jain, 3),
        r.verdict,
        num(r.wallS, 0),
        num(r.dilation, 2),
      ]),
    ),
  );
}

async function loadIndependence(c: BenchContext) {
  const spec = clockSpecs(true)[0] as SpecInput; // the Reno shallow-buffer case, 30 s
  const reps = c.quick ? 2 : 3;
  const rows: Record<string, unknown>[] = [];
  for (const clock of MODES)
    for (const load of ['quiet', 'busy'] as const) {
      const runs: RunFacts[] = [];
      for (let i = 0; i < reps; i++) {
        // Every host core busy for the length of one run (bounded: each hog ends itself).
        const hog = load === 'busy' ? cpuHog(cpus().length, 600) : null;
        try {
          runs.push(await c.run(spec, clock));
        } finally {
          hog?.stop();
        }
      }
      const g = spread(runs.map((r) => r.goodputMbps));
      const w = spread(runs.map((r) => r.cwndPeak));
      rows.push({
        clock,
        load,
        n: g.n,
        goodput: g,
        cwndPeak: w,
        verdicts: runs.map((r) => r.verdict),
        wallS: spread(runs.map((r) => r.wallS)).mean,
      });
    }
  c.results.load = rows;
  const g = (r: Record<string, unknown>, k: string) => r[k] as { mean: number; sd: number; n: number };
  c.section(
    `Load independence: ${String(spec.name)} (30 s) on a quiet host and with every host core busy (mean ± sd, n per cell)`,
    table(
      ['clock', 'host', 'n', 'goodput Mbit/s', 'cwnd peak', 'verdicts', 'wall s'],
      rows.map((r) => [
        String(r.clock),
        String(r.load),
        String(r.n),
        `${num(g(r, 'goodput').mean, 2)} ± ${num(g(r, 'goodput').sd, 2)}`,
        `${num(g(r, 'cwndPeak').mean, 0)} ± ${num(g(r, 'cwndPeak').sd, 0)}`,
        (r.verdicts as string[]).join(' '),
        num(r.wallS as number, 0),
      ]),
    ),
  );
}

async function reach(c: BenchContext) {
  const rates = c.quick ? [100, 400] : [100, 200, 400, 600, 800];
  const rows: Record<string, unknown>[] = [];
  for (const flows of [1, 4])
    for (const mtu of [1500, 9000])
      for (const rate of mtu === 9000 ? rates.filter((r) => r >= 400) : rates) {
        const f = await c.run(
          {
            name: `reach-${flows}x-${rate}m-${mtu}`,
            duration: '15s',
            mtu,
            paths: { main: { rtt: '20ms', rate: `${rate}Mbit`, buffer: '1bdp' } },
            flows: [{ stack: 'cubic', count: flows }],
          },
          'dilated',
        );
        rows.push({
          flows,
          mtu,
          rateMbps: rate,
          ...f,
          networkLimited: f.goodputMbps >= 0.9 * rate * (mtu === 9000 ? 0.99 : 0.95),
        });
      }
  c.results.reach = rows;
  const ok = (r: Record<string, unknown>) => r.verdict === 'valid' && r.networkLimited === true;
  const highest = (flows: number, mtu: number) =>
    Math.max(
      0,
      ...rows.filter((r) => r.flows === flows && r.mtu === mtu && ok(r)).map((r) => r.rateMbps as number),
    );
  c.section(
    'How far dilated time reaches (CUBIC, 20 ms, 1 BDP, 15 s of lab time)',
    `${table(
      ['flows', 'MTU', 'rate Mbit/s', 'goodput Mbit/s', 'verdict', 'wall s per lab s', 'gaps ±10 %'],
      rows.map((r) => [
        String(r.flows),
        String(r.mtu),
        String(r.rateMbps),
        num(r.goodputMbps as number),
        String(r.verdict),
        num(r.dilation ? 1 / (r.dilation as number) : null, 2),
        pct((r.gaps as RunFacts['gaps']).within10),
      ]),
    )}\nhighest network-limited and valid: 1 flow ${highest(1, 1500)} Mbit/s, 4 flows ${highest(4, 1500)} Mbit/s; MTU 9000: 1 flow ${highest(1, 9000)}, 4 flows ${highest(4, 9000)} Mbit/s`,
  );
}

async function repeatability(c: BenchContext) {
  const spec = clockSpecs(c.quick)[0] as SpecInput;
  const runs = [await c.run(spec, 'dilated'), await c.run(spec, 'dilated')];
  c.results.repeat = runs;
  const [a, b] = runs as [RunFacts, RunFacts];
  c.section(
    `Same spec and seed twice, dilated: ${String(spec.name)}`,
    table(
      ['run', 'goodput Mbit/s', 'retransmits', 'cwnd peak', 'loss episodes (lab s)'],
      runs.map((r, i) => [
        String(i + 1),
        num(r.goodputMbps, 3),
        String(r.retransmits),
        String(r.cwndPeak),
        r.lossTimesS.map((t) => t.toFixed(2)).join(' ') || '-',
      ]),
    ) +
      `\ndifference: goodput ${num(Math.abs(a.goodputMbps - b.goodputMbps), 3)} Mbit/s (${pct(Math.abs(a.goodputMbps - b.goodputMbps) / a.goodputMbps)}), retransmits ${Math.abs(a.retransmits - b.retransmits)}, last loss episode ${a.lossTimesS.at(-1) !== undefined && b.lossTimesS.at(-1) !== undefined ? `${num(Math.abs((a.lossTimesS.at(-1) as number) - (b.lossTimesS.at(-1) as number)), 2)} s apart` : '-'}`,
  );
}

export async function clockSections(c: BenchContext): Promise<void> {
  if (c.want('clocks')) await sideBySide(c);
  if (c.want('load')) await loadIndependence(c);
  if (c.want('reach')) await reach(c);
  if (c.want('repeat')) await repeatability(c);
}
