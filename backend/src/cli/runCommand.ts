import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildPlan, formatPlan, parseSpecText, SpecError, wireClock } from '@lfnlab/emulator';
import { expectedClock } from '@lfnlab/lab-images';
import { formatLimit } from '../run/limitedBy.js';
import { runOrRecord } from '../run/runOrRecord.js';
import type { RunSummary } from '../run/summary.js';
import { type Command, table, UsageError } from './args.js';
import { parseRunLabName } from './labsOption.js';

const n = (x: number | null | undefined, digits = 1) =>
  x === null || x === undefined ? '-' : x.toFixed(digits);

export function formatSummary(s: RunSummary): string {
  // Sized user-space transfers (udt, rbudp, psockets) carry a receiver-side hash check.
  const transfers = s.flows.some((f) => f.transport && f.transport !== 'tcp');
  const flows = table(
    [
      'flow',
      'stack',
      'seen',
      'path',
      'dir',
      'streams',
      'goodput Mbit/s',
      'σ (5 s)',
      'whole run',
      'retrans',
      'RTT ms',
      'limited by',
      'status',
      ...(transfers ? ['integrity'] : []),
    ],
    s.flows.map((f) => [
      f.name,
      f.stack,
      f.observedStacks.join(',') || '-',
      f.path,
      f.direction,
      f.streams,
      n(f.goodputMbps.mean),
      n(f.goodputMbps.sd),
      n(f.goodputMbps.wholeRun),
      f.retransmits ?? '-',
      n(f.rttMs.mean),
      formatLimit(f.limitedBy),
      f.status,
      ...(transfers ? [f.integrity ?? '-'] : []),
    ]),
  );
  const paths = table(
    [
      'path',
      'RTT ms',
      'idle RTT min ms',
      'RTT under load ms',
      'rate Mbit/s',
      'buffer pkts',
      'util fwd',
      'util rev',
      'Jain fwd',
      'Jain rev',
    ],
    s.paths.map((p) => [
      p.name,
      p.configured.rttMs,
      n(p.idleRtt?.minMs, 2),
      n(p.loadedRtt?.meanMs, 1),
      p.configured.rateMbps,
      p.configured.bufferPackets.forward,
      p.utilisation.forward === null ? '-' : `${(p.utilisation.forward * 100).toFixed(1)}%`,
      p.utilisation.reverse === null ? '-' : `${(p.utilisation.reverse * 100).toFixed(1)}%`,
      n(p.jain.forward, 3),
      n(p.jain.reverse, 3),
    ]),
  );
  return `${flows}\n\n${paths}\n\n${formatClock(s)}${formatVerdict(s)}`;
}

/** Which clock the lab ran on and its pace: lab time is what every number above is measured in. */
export function formatClock(s: RunSummary): string {
  const c = s.clock;
  if (!c) return '';
  const pace = c.dilation ? `, ${c.dilation.toFixed(2)} lab s per wall s` : '';
  return `clock: ${c.mode} (${c.guestS.toFixed(1)} s of lab time in ${c.wallS.toFixed(1)} s of wall time${pace})\n`;
}

/** The verdict comes last and loud: an invalid run's numbers are not a result. */
export function formatVerdict(s: RunSummary): string {
  if (!s.fidelity) return 'verdict: none (the run stopped before the link could be checked)';
  const checks = s.fidelity.checks.filter((c) => c.status !== 'pass');
  const lines = checks.map((c) => `  ${c.status.toUpperCase().padEnd(4)} ${c.message}`);
  const passed = s.fidelity.checks.filter((c) => c.status === 'pass').length;
  if (s.fidelity.verdict === 'invalid') {
    return [
      `!! verdict: INVALID — the emulated link did not do what the spec says; these numbers are not a result.`,
      ...lines,
    ].join('\n');
  }
  return [`verdict: ${s.fidelity.verdict} (${passed} checks passed)`, ...lines].join('\n');
}

const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);

export const runCommand: Command = {
  name: 'run',
  summary: 'run an experiment spec in the lab and write its run directory',
  usage: `usage: lfnlab run SPEC.yaml [--out DIR] [--dry-run] [--lab NAME]

Boots the lab if it is not running, builds the emulated dumbbell, runs the flows,
tears everything down and writes a run directory (default: runs/DATE-NAME/) with
the spec, environment, qdisc counters before/after, per-interval samples and
summary.json. Progress is printed while it runs; a table at the end.

  --out DIR     write the run directory here
  --dry-run     print the exact ip/tc/sysctl/iperf3 commands, run nothing
  --lab NAME    which lab (default: default)
  --clock MODE  auto, realtime or dilated: overrides the spec's clock (default auto:
                dilated under TCG, where qemu's instruction counter keeps the lab's
                timers exact and wall time stretches instead; realtime under KVM)
  -h, --help    this text

Every run ends with a fidelity verdict (valid, suspect or invalid) checking idle
RTT, the bottleneck's delivered rate, loss against the configured BER, drops
outside the bottleneck, lab CPU and the samplers' rates.

Exit status: 0 completed, 1 failed, 2 bad spec, 3 invalid (the link did not do
what the spec says), 130 interrupted. Ctrl-C stops the run cleanly: processes
stopped, namespaces removed, the partial record kept with status "aborted".`,
  options: {
    out: { type: 'string' },
    'dry-run': { type: 'boolean' },
    lab: { type: 'string' },
    clock: { type: 'string' },
  },
  async run(values, positionals) {
    const file = positionals[0];
    if (!file) throw new UsageError(`a spec file is required\n\n${this.usage}`);
    const text = readFileSync(file, 'utf8');
    let spec: ReturnType<typeof parseSpecText>;
    try {
      spec = parseSpecText(text, file);
    } catch (err) {
      if (err instanceof SpecError) {
        console.error(err.message);
        return 2;
      }
      throw err;
    }
    const clock = values.clock as string | undefined;
    if (clock !== undefined && !['auto', 'realtime', 'dilated'].includes(clock))
      throw new UsageError(`--clock must be auto, realtime or dilated (got ${clock})`);
    const asked = (clock as 'auto' | 'realtime' | 'dilated' | undefined) ?? spec.clock;
    // A wire's clock is settled before anything runs: a dilated one is a usage error, not a failed run.
    const wireClockAsked = spec.wire ? wireClockOrUsage(asked) : null;
    if (values['dry-run']) {
      // Planned for the clock the lab would get: sampler priorities differ between the two.
      const planned = { ...spec, clock: wireClockAsked ?? expectedClock(asked) };
      process.stdout.write(formatPlan(buildPlan(planned)));
      return 0;
    }
    const labName = parseRunLabName(typeof values.lab === 'string' ? values.lab : undefined, 'run');
    const started = new Date();
    const dir = resolve(
      typeof values.out === 'string' ? values.out : join('runs', `${stamp(started)}-${spec.name}`),
    );
    console.log(`lfnlab run ${spec.name} → ${dir}`);
    const abort = new AbortController();
    const stop = (sig: string) => {
      if (abort.signal.aborted) return;
      console.error(`\n${sig}: stopping the run and cleaning up the lab…`);
      abort.abort();
    };
    const onInt = () => stop('SIGINT');
    const onTerm = () => stop('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    try {
      const { summary } = await runOrRecord({
        spec,
        specText: text,
        outDir: dir,
        labName,
        clock: clock as 'auto' | 'realtime' | 'dilated' | undefined,
        signal: abort.signal,
      });
      console.log(`\n${formatSummary(summary)}\n`);
      console.log(`${summary.status}${summary.error ? `: ${summary.error}` : ''} — record in ${dir}`);
      if (summary.status === 'aborted') return 130;
      if (summary.verdict === 'invalid') return 3;
      return summary.status === 'completed' && summary.flows.every((f) => f.status === 'ok') ? 0 : 1;
    } finally {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    }
  },
};

/** A wire's clock, or the reason as a usage error (--clock dilated on a wire spec). */
function wireClockOrUsage(asked: 'auto' | 'realtime' | 'dilated') {
  try {
    return wireClock(asked);
  } catch (err) {
    throw new UsageError(`--clock ${asked}: ${(err as Error).message}`);
  }
}
