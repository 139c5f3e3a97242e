// The steps of a run before its traffic: check the lab has the stacks and record its environment,
// build the dumbbell, calibrate the delay stages and measure idle RTT, and snapshot the counters
// the verdict compares before and after.
import {
  calibrateDelay,
  calibratedChanges,
  type PathChange,
  type Plan,
  type Spec,
  STACK_NAMES,
  STACKS,
  stackParamsInForce,
  usesKernelTcp,
} from '@lfnlab/emulator';
import type { LabImage, LabRecord } from '@lfnlab/lab-images';
import { KEY_SYSCTLS, parseOffloads, parseSysctl, TOOL_VERSION_CMDS, toolVersions } from './environment.js';
import type { LinkStat, QdiscStat } from './fidelity.js';
import { type PingSummary, parsePing } from './probes.js';
import type { RunRecorder } from './record.js';
import type { LabSession, StepResult } from './session.js';

export interface AgentInfo {
  kernel: string;
  stacksAvailable: string[];
  boot: { modules: { name: string; ok: boolean; error?: string }[] };
}

/** Why a stack is missing, from the boot report when its module failed to load. */
export function missingStacksMessage(missing: string[], info: AgentInfo): string {
  const why = missing.map((name) => {
    const module = STACKS.find((s) => s.name === name)?.module;
    const load = info.boot.modules.find((m) => m.name === module);
    return load && !load.ok ? `${name} (${module} failed to load at boot: ${load.error})` : name;
  });
  return `the lab kernel has no ${why.join(', ')}; it offers ${info.stacksAvailable.join(', ')}`;
}

export interface Snapshot {
  qdiscs: QdiscStat[];
  links: Record<string, LinkStat[]>;
}

const json = <T>(text: string | undefined, fallback: T): T => {
  try {
    return text?.trim() ? (JSON.parse(text) as T) : fallback;
  } catch {
    return fallback;
  }
};

export async function snapshot(
  session: LabSession,
  plan: Plan,
  rec: RunRecorder,
  when: 'before' | 'after',
): Promise<Snapshot> {
  const out: Record<string, StepResult[]> = {};
  for (const s of plan.snapshot) out[s.title] = await session.exec(s.cmds, { stopOnError: false });
  const qdiscText = out.qdiscs?.[0]?.stdout;
  rec.text(`qdisc-${when}.json`, qdiscText ?? '');
  const links = Object.fromEntries(
    plan.topology.namespaces.map((ns, i) => [ns, json<LinkStat[]>(out.links?.[i]?.stdout, [])]),
  );
  rec.json(`links-${when}.json`, links);
  if (out['stack parameters'])
    rec.json(`stack-params-${when}.json`, stackParamsInForce(out['stack parameters']));
  if (when === 'before') {
    const sysctlText = (out.sysctls ?? []).slice(1).map((r) => r.stdout);
    const perNs = Object.fromEntries(
      plan.topology.namespaces.map((ns, i) => [ns, parseSysctl(sysctlText[i] ?? '')]),
    );
    rec.json('sysctls.json', {
      lab: parseSysctl(out.sysctls?.[0]?.stdout ?? ''),
      keys: Object.fromEntries(
        Object.entries(perNs).map(([ns, kv]) => [ns, Object.fromEntries(KEY_SYSCTLS.map((k) => [k, kv[k]]))]),
      ),
      all: perNs,
    });
    rec.json(
      'offloads.json',
      Object.fromEntries(
        (out.offloads ?? []).map((r) => [r.argv.slice(3).join(' '), parseOffloads(r.stdout)]),
      ),
    );
  }
  return { qdiscs: json<QdiscStat[]>(qdiscText, []), links };
}

/** Idle RTT per path; where the plan says so, first take the emulator's own delay off the delay stages. */
/** Idle RTT results are keyed by path, and by path@RTT for a host group of flows with their own RTT. */
export const idleRttKey = (path: string, group: number, rttMs: number) =>
  group === 0 ? path : `${path}@${rttMs}ms`;

export async function measureIdleRtt(
  session: LabSession,
  plan: Plan,
  spec: Spec,
  rec: RunRecorder,
  log: (l: string) => void,
) {
  const idleRtt: Record<string, PingSummary | null> = {};
  const calibration: Record<string, unknown> = {};
  for (const r of plan.idleRtt) {
    const configured = r.rttMs;
    const key = idleRttKey(r.path, r.group, r.rttMs);
    await session.run(r.warmup);
    let ping = parsePing((await session.run(r.probe)).stdout);
    const topo = plan.topology.paths.find((p) => p.name === r.path);
    const group = topo?.groups.find((g) => g.index === r.group);
    if (ping && topo && r.calibrate) {
      const excessMs = ping.minMs - configured;
      const { oneWayMs, cmds } = calibrateDelay(spec, topo, excessMs, undefined, group);
      calibration[key] = {
        measuredMinMs: ping.minMs,
        excessMs,
        oneWayDelayMs: oneWayMs,
        commands: cmds.map((c) => c.argv),
      };
      if (cmds.length) {
        await session.exec(cmds);
        ping = parsePing((await session.run(r.probe)).stdout);
        log(
          `  calibration ${key}: the emulator adds ${excessMs.toFixed(2)} ms; delay stages set to ${oneWayMs} ms each way`,
        );
      }
    }
    idleRtt[key] = ping;
    log(
      ping
        ? `  idle RTT ${key}: min ${ping.minMs.toFixed(2)} ms, avg ${ping.avgMs.toFixed(2)} ms (configured ${configured} ms, ${ping.received}/${ping.sent} replies)`
        : `  idle RTT ${key}: no replies`,
    );
  }
  rec.json('idle-rtt.json', idleRtt);
  rec.json('calibration.json', calibration);
  const excessMs = Object.fromEntries(
    Object.entries(calibration).map(([p, c]) => [p, (c as { excessMs: number }).excessMs]),
  ) as Record<string, number>;
  return { idleRtt, excessMs };
}

/**
 * Refuses a spec whose stacks the lab kernel lacks (saying why, from the boot report), and writes
 * environment.json: CPU, seed, lab, image, agent, tool versions. Returns the lab CPU's MHz.
 */
export async function checkStacksAndRecordEnvironment(
  session: LabSession,
  spec: Spec,
  lab: LabRecord,
  image: LabImage,
  rec: RunRecorder,
): Promise<number | null> {
  const info = await session.info<AgentInfo>();
  const missing = [
    ...new Set(spec.flows.filter((f) => usesKernelTcp(f.transport)).map((f) => f.stack)),
  ].filter((s) => !info.stacksAvailable.includes(s));
  if (missing.length) throw new Error(missingStacksMessage(missing, info));
  const cpuinfo = await session.run({ argv: ['cat', '/proc/cpuinfo'], allowFail: true });
  const cpuMHz = Number(/^cpu MHz\s*:\s*([\d.]+)/m.exec(cpuinfo.stdout)?.[1]) || null;
  rec.json('environment.json', {
    cpu: { model: /^model name\s*:\s*(.+)$/m.exec(cpuinfo.stdout)?.[1] ?? null, mhz: cpuMHz },
    seed: spec.seed,
    lab,
    image: {
      id: image.id,
      kernel: image.manifest.kernel,
      tools: image.manifest.tools,
      agent: image.manifest.agent,
      samplers: image.manifest.samplers,
      modules: image.manifest.modules,
    },
    agent: info,
    toolVersions: toolVersions(await session.exec(TOOL_VERSION_CMDS, { stopOnError: false })),
    host: { node: process.version, platform: process.platform, qemu: lab.qemuVersion },
    knownStacks: STACK_NAMES,
  });
  return cpuMHz;
}

/**
 * Runs the plan's set-up, calibrates and measures idle RTT, and returns with it the plan's scheduled
 * path changes as this run carries them out: on the calibrated delay (the plan's are uncalibrated).
 */
export async function setUpLinks(
  session: LabSession,
  plan: Plan,
  spec: Spec,
  rec: RunRecorder,
  log: (l: string) => void,
): Promise<{
  idleRtt: Record<string, PingSummary | null>;
  changes: PathChange[];
}> {
  const t0setup = Date.now();
  for (const section of plan.setup) await session.exec(section.cmds);
  const nCmds = plan.setup.reduce((n, s) => n + s.cmds.length, 0);
  log(
    `  setup: ${plan.topology.namespaces.length} namespaces, ${nCmds} commands, ${((Date.now() - t0setup) / 1000).toFixed(1)} s`,
  );
  rec.event('setup', { commands: nCmds, ms: Date.now() - t0setup });
  const measured = await measureIdleRtt(session, plan, spec, rec, log);
  return {
    idleRtt: measured.idleRtt,
    changes: calibratedChanges(spec, plan.changes, plan.topology.paths, measured.excessMs),
  };
}
