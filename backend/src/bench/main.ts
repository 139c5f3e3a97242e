// npm run bench: how faithful and how fast the lab is on this machine, in numbers.
//   fidelity grid      rate {10, 100, 500, 1000} Mbit/s × RTT {10, 50, 200} ms × clock {realtime,
//                      dilated}: measured/configured, and what limited the flow
//   highest valid rate the fastest grid point at 10 ms, per clock, that is valid, network-limited
//                      and reaches >= 90 % of its rate
//   sampler cost       CPU of the TCP sampler at 100 Hz with 1, 16, 64 flows
//   packet spacing     share of bottleneck dequeue gaps within 10 % of one frame time
//   campaign overhead  a campaign of short runs sharing one topology: wall time over the sum of
//                      run durations, and the mean seconds each run costs outside its traffic
//   lab pool           the same campaign on N = 1 and N = 2 labs: wall time and the verdicts
//   cpu model          (only with --only cpumodel) the guest CPU model under TCG, A/B in pairs:
//                      pace ratio with a 95 % t interval, guest CPU, packet spacing
//   cubic C            (only with --only cubicc) CUBIC's C set at boot (bic_scale 41 and 7), A/B
//                      in pairs: loss-to-loss epoch ratio with a 95 % t interval against ∛(41/7)
// Results print as tables and are saved under bench/results/ with the machine's details.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, hostname, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type SpecInput, validateSpec } from '@lfnlab/emulator';
import { ensureImage, labUp } from '@lfnlab/lab-images';
import { table } from '../cli/args.js';
import type { SamplerCounters } from '../run/demux.js';
import { formatLimit } from '../run/limitedBy.js';
import { runExperiment } from '../run/runExperiment.js';
import { type TcpFlowSample, tcpSamplesOf } from '../run/samples.js';
import { campaignSections } from './campaignSections.js';
import { clockSections } from './clockSections.js';
import { type ClockMode, runFacts } from './clocks.js';
import { CPU_MODEL_SPEC, cpuModelAb, cpuModelText } from './cpuModel.js';
import { cubicScaleAb, cubicScaleText } from './cubicScale.js';
import { CAPTURE, packetSpacing, withBottleneckCapture } from './spacing.js';

const RESULTS = fileURLToPath(new URL('../../../bench/results/', import.meta.url));
const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    only: { type: 'string' },
    lab: { type: 'string' },
    pairs: { type: 'string' },
    seconds: { type: 'string' },
  },
});
const labName = opts.lab ?? 'default';
const quick = opts.quick === true;
const want = (part: string) => !opts.only || opts.only.split(',').includes(part);

async function run(
  input: SpecInput,
  extra: Parameters<typeof runExperiment>[0]['alterPlan'] = undefined,
  clock: ClockMode | undefined = undefined,
) {
  const v = validateSpec(input);
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  const dir = mkdtempSync(join(tmpdir(), `lfnlab-bench-${v.spec.name}-`));
  const t = Date.now();
  const { summary } = await runExperiment({
    spec: v.spec,
    outDir: dir,
    labName,
    clock,
    log: () => undefined,
    alterPlan: extra,
  });
  process.stderr.write(
    `  ${v.spec.name}${clock ? ` (${clock})` : ''}: ${summary.status}, verdict ${summary.verdict} (${((Date.now() - t) / 1000).toFixed(0)} s)\n`,
  );
  return { summary, dir };
}

const pct = (x: number | null | undefined) =>
  x === null || x === undefined || !Number.isFinite(x) ? '-' : `${(100 * x).toFixed(1)}%`;

async function grid(rates: number[], rtts: number[], seconds: number, clock: ClockMode) {
  const rows: Record<string, unknown>[] = [];
  for (const rtt of rtts) {
    for (const rate of rates) {
      const { summary } = await run(
        {
          name: `grid-${rate}m-${rtt}ms`,
          duration: `${seconds}s`,
          sampleHz: 10,
          paths: { main: { rtt: `${rtt}ms`, rate: `${rate}Mbit`, buffer: '1bdp' } },
          // Several streams so one sender's window is not what limits a long fat path.
          flows: [{ stack: 'cubic', streams: rate >= 500 ? 4 : 2 }],
        },
        undefined,
        clock,
      );
      const f = summary.flows[0];
      const p = summary.paths[0];
      const check = (id: string) => summary.fidelity?.checks.find((c) => c.id === id);
      const bottleneck = check('bottleneck-rate:main:forward');
      const cpu = check('lab-cpu');
      rows.push({
        clock,
        rateMbps: rate,
        rttMs: rtt,
        limitedBy: formatLimit(f?.limitedBy),
        networkLimited: f?.limitedBy?.limitedBy === 'network',
        goodputRatio: f?.goodputMbps.wholeRun ? (f.goodputMbps.wholeRun * 1e6) / (rate * 1e6) : null,
        bottleneckRatio: bottleneck?.measured ? bottleneck.measured / (rate * 1e6) : null,
        idleRttRatio: p?.idleRtt ? p.idleRtt.minMs / rtt : null,
        labCpuPct: cpu?.measured ?? null,
        verdict: summary.verdict,
        reasons: summary.fidelity?.reasons ?? [],
      });
    }
  }
  return rows;
}

async function samplerCost(flowCounts: number[]) {
  const rows: Record<string, unknown>[] = [];
  for (const n of flowCounts) {
    const { dir, summary } = await run({
      name: `sampler-${n}`,
      duration: '10s',
      sampleHz: 100,
      paths: { main: { rtt: '20ms', rate: '50Mbit' } },
      flows: Array.from({ length: n }, () => ({ stack: 'reno' })),
    });
    const counters: SamplerCounters[] = JSON.parse(readFileSync(join(dir, 'sampling.json'), 'utf8'));
    const tcp = counters.find((c) => c.name === 'tcp:lfn-p0-snd');
    const end = tcp?.end;
    const num = (k: string) => Number(end?.[k] ?? Number.NaN);
    rows.push({
      flows: n,
      cpuPctOfCore: (100 * num('cpuMs')) / num('elapsedMs'),
      ticksKept: num('ticks') / (num('ticks') + num('skipped')),
      recordsPerS: num('records') / (num('elapsedMs') / 1000),
      verdict: summary.verdict,
      reasons: summary.fidelity?.reasons ?? [],
    });
  }
  return rows;
}

async function spacing(rateMbit: number) {
  const { dir, summary } = await run(
    {
      name: `spacing-${rateMbit}m`,
      duration: '10s',
      paths: { main: { rtt: '20ms', rate: `${rateMbit}Mbit`, buffer: '1bdp' } },
      flows: [{ stack: 'cubic', streams: 2 }],
    },
    withBottleneckCapture(20_000),
  );
  const trace = readFileSync(join(dir, 'raw', `${CAPTURE.replace(/[^A-Za-z0-9_.-]/g, '_')}.txt`), 'utf8');
  return { rateMbps: rateMbit, ...packetSpacing(trace, 1514, rateMbit * 1e6), verdict: summary.verdict };
}

async function main() {
  const image = await ensureImage({ log: (s) => process.stderr.write(`${s}\n`) });
  const lab = await labUp({ name: labName, image, log: (s) => process.stderr.write(`${s}\n`) });
  const machine = {
    host: hostname(),
    cpu: cpus()[0]?.model ?? '?',
    cores: cpus().length,
    memGiB: Math.round(totalmem() / 2 ** 30),
    hostKernel: release(),
    accel: lab.accel,
    labCpus: lab.cpus,
    labMemMb: lab.memMb,
    qemu: lab.qemuVersion,
    labKernel: image.manifest.kernel.abi,
    imageId: image.id,
    date: new Date().toISOString(),
  };
  console.log(
    `lfnlab bench on ${machine.host}: ${machine.cpu}, ${machine.cores} cores; lab ${lab.accel.toUpperCase()} ${lab.cpus} vCPU, kernel ${machine.labKernel}\n`,
  );
  const results: Record<string, unknown> = { machine };
  const md: string[] = [
    `# lfnlab bench ${machine.date}`,
    '',
    '```',
    JSON.stringify(machine, null, 2),
    '```',
    '',
  ];
  mkdirSync(RESULTS, { recursive: true });
  const base = join(RESULTS, `${machine.date.replace(/[:.]/g, '-')}-${machine.host}`);
  // Saved after every section: a long benchmark that fails late keeps what it measured.
  const save = () => {
    writeFileSync(`${base}.json`, `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(`${base}.md`, `${md.join('\n')}\n`);
    console.log(`saved ${base}.json and .md`);
  };
  const section = (title: string, text: string) => {
    console.log(`${title}\n${text}\n`);
    md.push(`## ${title}`, '', '```', text, '```', '');
    save();
  };

  if (want('grid')) {
    // Both clocks: the same grid judged under realtime TCG timers and under dilated time.
    const rows: Record<string, unknown>[] = [];
    for (const clock of ['realtime', 'dilated'] as const)
      rows.push(
        ...(await grid(
          quick ? [10, 100] : [10, 100, 500, 1000],
          quick ? [10, 50] : [10, 50, 200],
          quick ? 8 : 15,
          clock,
        )),
      );
    results.grid = rows;
    section(
      'Fidelity grid (measured / configured; limited by: what held the flow back, share of its busy time)',
      table(
        [
          'clock',
          'rate Mbit/s',
          'RTT ms',
          'goodput',
          'bottleneck',
          'idle RTT',
          'lab CPU',
          'limited by',
          'verdict',
        ],
        rows.map((r) => [
          String(r.clock),
          r.rateMbps as number,
          r.rttMs as number,
          pct(r.goodputRatio as number),
          pct(r.bottleneckRatio as number),
          pct(r.idleRttRatio as number),
          `${Math.round((r.labCpuPct as number) ?? 0)}%`,
          String(r.limitedBy),
          String(r.verdict),
        ]),
      ),
    );
    // Valid means the verdict says so AND the rate was reached AND the network, not the lab, held
    // the flow: a lab too slow to fill the link never saturates it, so the link checks cannot
    // fail, yet nothing ran at the configured rate.
    const ok = (r: Record<string, unknown>) =>
      r.verdict === 'valid' && r.networkLimited === true && ((r.goodputRatio as number | null) ?? 0) >= 0.9;
    const highestValid: Record<string, unknown> = {};
    const lines: string[] = [];
    for (const clock of ['realtime', 'dilated'] as const) {
      const at10 = rows.filter((r) => r.rttMs === 10 && r.clock === clock);
      const good = at10.filter(ok).map((r) => r.rateMbps as number);
      const firstBad = at10.find((r) => !ok(r));
      const why = firstBad
        ? [
            `${firstBad.rateMbps} Mbit/s: verdict ${firstBad.verdict}, goodput ${pct(firstBad.goodputRatio as number)} of the rate, limited by ${firstBad.limitedBy}, lab CPU ${Math.round((firstBad.labCpuPct as number) ?? 0)}%`,
            ...((firstBad.reasons as string[]) ?? []),
          ]
        : [];
      const rateMbps = good.length ? Math.max(...good) : null;
      highestValid[clock] = { rateMbps, limitedBy: why };
      lines.push(
        `${clock}: ${rateMbps ?? 'none'} Mbit/s${why.length ? `\n  next step up failed: ${why.join('; ')}` : ''}`,
      );
    }
    results.highestValid = highestValid;
    section('Highest rate still valid and network-limited (one CUBIC flow, 10 ms)', lines.join('\n'));
  }
  if (want('sampler')) {
    const rows = await samplerCost(quick ? [1, 16] : [1, 16, 64]);
    results.sampler = rows;
    section(
      'TCP sampler at 100 Hz (sender namespace)',
      table(
        ['flows', 'CPU % of one core', 'ticks kept', 'records/s', 'verdict'],
        rows.map((r) => [
          r.flows as number,
          ((r.cpuPctOfCore as number) ?? 0).toFixed(1),
          pct(r.ticksKept as number),
          Math.round((r.recordsPerS as number) ?? 0),
          String(r.verdict),
        ]),
      ),
    );
  }
  await clockSections({
    quick,
    want,
    results,
    section,
    run: async (input, clock) => {
      const { summary, dir } = await run(input, undefined, clock);
      return runFacts(dir, summary, input);
    },
  });
  if (want('spacing')) {
    const rows = [await spacing(50), ...(quick ? [] : [await spacing(200)])];
    results.spacing = rows;
    section(
      'Packet spacing at the saturated bottleneck (Mininet-HiFi bar: >= 92 % within 10 %)',
      table(
        ['rate Mbit/s', 'gaps', 'ideal µs', 'median µs', 'within 10 %', 'verdict'],
        rows.map((r) => [
          r.rateMbps,
          r.gaps,
          r.idealUs.toFixed(1),
          r.medianUs.toFixed(1),
          pct(r.within10pct),
          String(r.verdict),
        ]),
      ),
    );
  }
  await campaignSections({ quick, want, results, section, labName });
  if (opts.only?.split(',').includes('cpumodel')) {
    // Boots its lab again for each run: only when asked for by name.
    const r = await cpuModelAb({
      labName,
      image,
      pairs: Number(opts.pairs ?? (quick ? 2 : 3)),
      run: async () => (await run(CPU_MODEL_SPEC, undefined, 'dilated')).summary,
      log: (l) => process.stderr.write(`  ${l}\n`),
    });
    results.cpuModel = r;
    section(
      'Guest CPU model under TCG (dilated, 16 Reno streams at 100 Mbit/s, 10 ms, 20 s; pairs AB, BA, …)',
      cpuModelText(r),
    );
  }
  if (opts.only?.split(',').includes('cubicc')) {
    // Each value of C boots the lab kernel again: only when asked for by name.
    const seconds = Number(opts.seconds ?? (quick ? 60 : 120));
    const r = await cubicScaleAb({
      pairs: Number(opts.pairs ?? (quick ? 1 : 3)),
      seconds,
      run: async (input) => {
        const { summary, dir } = await run(input, undefined, 'dilated');
        const tcp = readFileSync(join(dir, 'samples', 'tcp.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as TcpFlowSample);
        const mine = tcpSamplesOf(tcp, 'c');
        const inForce = JSON.parse(readFileSync(join(dir, 'stack-params-before.json'), 'utf8')).cubic
          ?.bic_scale;
        return {
          t: mine.map((s) => s.t),
          cwnd: mine.map((s) => s.cwndPackets),
          inForce: typeof inForce === 'number' ? inForce : null,
          verdict: summary.verdict ?? '-',
        };
      },
      log: (l) => process.stderr.write(`  ${l}\n`),
    });
    results.cubicScale = r;
    section(
      `CUBIC's C set at boot (dilated, one CUBIC flow, 100 Mbit/s × 100 ms, 0.2 BDP, ${seconds} s; pairs AB, BA, …)`,
      cubicScaleText(r),
    );
  }
  save();
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
