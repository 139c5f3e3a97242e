// When a run may start on the dumbbell the previous run of a campaign left built and calibrated,
// instead of resetting the lab, building it again and calibrating again. Pure: the plan of each
// run and what the previous run ended with decide it; the lab is asked only how many processes
// still run.
import type { Cmd, Plan } from '@lfnlab/emulator';
import type { HostState } from './labSetup.js';
import type { RunSummary } from './summary.js';

/** The set-up section that holds per-namespace sysctls: the one part a reused dumbbell may change. */
export const SYSCTL_SECTION = 'per-namespace sysctls';

/**
 * What a command does to the lab: its argv, what it reads on stdin (a sysfs write is `tee FILE`
 * with the value there: comparing argv alone kept the previous run's stack parameter in force
 * when a campaign varied only its value) and where it runs.
 */
const cmdKey = (c: Cmd) => JSON.stringify([c.argv, c.stdin ?? null, c.on ?? null]);

/**
 * Why two plans would not build the same dumbbell: namespaces, veths, IFBs, addresses, offloads,
 * qdiscs (rate, buffer, delay, jitter, BER, AQM), MTU, lab-wide sysctls, and the idle-RTT probes.
 * Everything that reaches the lab before traffic except the per-namespace sysctls, which
 * `sysctlChange` handles. Empty when they are the same topology.
 */
export function topologyDifferences(a: Plan, b: Plan): string[] {
  const out: string[] = [];
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  if (!same(a.topology.namespaces, b.topology.namespaces)) out.push('namespaces');
  if (!same(a.topology.paths, b.topology.paths)) out.push('paths (rate, RTT, buffer, BER, MTU, hosts)');
  const sections = (p: Plan) => p.setup.filter((s) => s.title !== SYSCTL_SECTION);
  const sa = sections(a);
  const sb = sections(b);
  const titles = [...new Set([...sa, ...sb].map((s) => s.title))];
  for (const t of titles) {
    const x = sa.find((s) => s.title === t)?.cmds.map(cmdKey);
    const y = sb.find((s) => s.title === t)?.cmds.map(cmdKey);
    if (!same(x, y)) out.push(`set-up "${t}"`);
  }
  const probes = (p: Plan) => p.idleRtt.map((r) => ({ ...r, warmup: r.warmup.argv, probe: r.probe.argv }));
  if (!same(probes(a), probes(b))) out.push('idle-RTT probes');
  return out;
}

/** The (namespace, key) a sysctl command writes, from `[ip netns exec NS] sysctl -q -w KEY=VALUE`. */
export function sysctlTarget(c: Cmd): string | null {
  const i = c.argv.indexOf('sysctl');
  const w = c.argv.slice(i).find((a) => a.includes('='));
  if (i < 0 || !w) return null;
  const ns = c.argv[0] === 'ip' && c.argv[1] === 'netns' && c.argv[2] === 'exec' ? c.argv[3] : '';
  return `${ns}\t${w.slice(0, w.indexOf('='))}`;
}

export type SysctlChange = { ok: true; cmds: Cmd[] } | { ok: false; reason: string };

/**
 * The per-namespace sysctls to write so a dumbbell built for `a` holds what `b` sets: none when
 * the sections are equal, else `b`'s whole section in its order (overrides last, as at set-up).
 * Refused when `a` wrote a key that `b` does not: it would keep `a`'s value instead of the
 * kernel's default a fresh namespace has.
 */
export function sysctlChange(a: Plan, b: Plan): SysctlChange {
  const section = (p: Plan) => p.setup.find((s) => s.title === SYSCTL_SECTION)?.cmds ?? [];
  const ca = section(a);
  const cb = section(b);
  if (JSON.stringify(ca.map(cmdKey)) === JSON.stringify(cb.map(cmdKey))) return { ok: true, cmds: [] };
  const written = new Set(cb.map(sysctlTarget));
  const left = ca.map(sysctlTarget).filter((k) => k === null || !written.has(k));
  if (left.length)
    return {
      ok: false,
      reason: `the previous run set ${left
        .slice(0, 3)
        .map((k) => (k ?? '?').replace('\t', ' '))
        .join(', ')} and this one does not`,
    };
  return { ok: true, cmds: cb };
}

/** What a run leaves for the next one: its plan, how it ended, and its calibration. */
export interface BuiltDumbbell {
  plan: Plan;
  /** The run directory that built or last verified it (recorded by runs reusing it). */
  runDir: string;
  /** The run that measured the calibration and idle RTT being reused (itself, or its source). */
  calibratedBy: string;
  status: RunSummary['status'];
  verdict: RunSummary['verdict'];
  /** Per idle-RTT key: the emulator's own excess over the configured RTT, ms (calibration.json). */
  excessMs: Record<string, number>;
  /** calibration.json as the calibrating run wrote it. */
  calibration: Record<string, unknown>;
  /** The hosts' sysctls and offloads as last read on this dumbbell. */
  hostState: HostState;
}

/** In a run's summary.json: the run started on the dumbbell and calibration of earlier runs. */
export interface ReuseRecord {
  /** The run directory whose dumbbell this run started on. */
  from: string;
  /** The run that calibrated the delay stages and measured the idle RTT this run verified. */
  calibratedBy: string;
  /** Per-namespace sysctl commands written because this run sets other values; 0: none. */
  sysctlsRewritten: number;
  /** The run whose reading of the hosts' sysctls and offloads this run's record carries. */
  hostStateReadIn: string;
}

export type ReuseDecision =
  | { reuse: true; sysctls: Cmd[]; from: BuiltDumbbell }
  | { reuse: false; reason: string };

/**
 * Whether `plan` may run on `prev`'s dumbbell. Only a run that completed with a valid verdict
 * leaves a dumbbell to reuse (any failed check, and the next run builds and calibrates afresh);
 * a run with scheduled path changes leaves its links changed; nothing of it may still run
 * (`running`: the agent's count of supervised processes, null when it did not answer).
 */
export function decideReuse(prev: BuiltDumbbell | null, plan: Plan, running: number | null): ReuseDecision {
  if (!prev) return { reuse: false, reason: 'no dumbbell built yet' };
  if (prev.status !== 'completed') return { reuse: false, reason: `the previous run ${prev.status}` };
  if (prev.verdict !== 'valid')
    return { reuse: false, reason: `the previous run's verdict was ${prev.verdict ?? 'none'}` };
  if (prev.plan.changes.length)
    return { reuse: false, reason: 'the previous run changed its paths during traffic' };
  const diff = topologyDifferences(prev.plan, plan);
  if (diff.length) return { reuse: false, reason: `another topology (${diff.join(', ')})` };
  const sysctls = sysctlChange(prev.plan, plan);
  if (!sysctls.ok) return { reuse: false, reason: sysctls.reason };
  if (running === null) return { reuse: false, reason: 'the lab did not say what still runs' };
  if (running > 0)
    return {
      reuse: false,
      reason: `${running} process${running === 1 ? '' : 'es'} of the previous run still run`,
    };
  return { reuse: true, sysctls: sysctls.cmds, from: prev };
}
