// The steps of a run before its traffic: check the lab has the stacks and record its environment,
// build the dumbbell, calibrate the delay stages and measure idle RTT, and snapshot the counters
// the verdict compares before and after.

import { hostname } from 'node:os';
import {
  calibrateDelay,
  calibratedChanges,
  knownStackNames,
  type PathChange,
  type Plan,
  type Spec,
  stackInfo,
  stackParamsInForce,
  usesKernelTcp,
} from '@lfnlab/emulator';
import type { LabImage, LabRecord } from '@lfnlab/lab-images';
import { codeIdentity } from './codeVersion.js';
import { KEY_SYSCTLS, parseOffloads, parseSysctl, TOOL_VERSION_CMDS, toolVersions } from './environment.js';
import { checkIdleRtt, type LinkStat, type QdiscStat } from './fidelity.js';
import { type PingSummary, parsePing } from './probes.js';
import type { RunRecorder } from './record.js';
import type { RouteEntry } from './routeChecks.js';
import type { LabSession, StepResult } from './session.js';
import { type TcpCounters, tcpCountersByNs } from './tcpMemory.js';

export interface AgentInfo {
  kernel: string;
  stacksAvailable: string[];
  boot: { modules: { name: string; ok: boolean; error?: string }[] };
  /** Loaded modules; `file` and `sha256` for those the image ships. */
  modules?: { name: string; file?: string; sha256?: string }[];
  /** A wire's external hosts (wireSession.ts): their kernel, whose stacks the flows use. */
  externalHosts?: { kernel: string; stacksAvailable: string[] };
}

/** Why a stack is missing, from the boot report when its module failed to load. */
export function missingStacksMessage(missing: string[], info: AgentInfo): string {
  const why = missing.map((name) => {
    const stack = stackInfo(name);
    const module = stack?.module;
    const load = info.boot.modules.find((m) => m.name === module);
    if (load && !load.ok) return `${name} (${module} failed to load at boot: ${load.error})`;
    // An added stack the image does not carry: added after this image was built, or it failed to build.
    return stack?.origin === 'added'
      ? `${name} (added with 'lfnlab stack add' but not in this lab's image)`
      : name;
  });
  return `the lab kernel has no ${why.join(', ')}; it offers ${info.stacksAvailable.join(', ')}`;
}

/**
 * The added stacks this run's image carries: name, module, source hash and origin 'added' from the
 * image build, with the sha256 of the module the lab actually loaded (null when it is not loaded).
 */
export function addedStacksRecord(image: LabImage, info: AgentInfo) {
  // An image built before stacks could be added has no `added` (a stub image no `stacks` at all).
  return (image.manifest.stacks?.added ?? []).map((a) => {
    const loaded = info.modules?.find((m) => m.name === a.module);
    return { ...a, loaded: Boolean(loaded), loadedSha256: loaded?.sha256 ?? null };
  });
}

export interface Snapshot {
  qdiscs: QdiscStat[];
  links: Record<string, LinkStat[]>;
  /** The spec's stack parameters as read back from sysfs (stack-params-WHEN.json); absent: not read. */
  stackParams?: Record<string, Record<string, number | null>>;
  /** Before traffic: the end hosts' routes (routes.json); absent: not read. */
  routes?: Record<string, RouteEntry[]>;
  /** The end hosts' TcpExt counters (tcp-counters-WHEN.json); absent: not read. */
  tcpCounters?: TcpCounters;
}

/** A snapshot section's JSON, or `fallback` when the command printed nothing or not JSON. */
export const json = <T>(text: string | undefined, fallback: T): T => {
  try {
    return text?.trim() ? (JSON.parse(text) as T) : fallback;
  } catch {
    return fallback;
  }
};

/**
 * The snapshot sections read again after traffic: the counters the verdict takes differences of,
 * and the stack parameters in force (the record shows they held for the whole run).
 */
const AFTER_SECTIONS = ['qdiscs', 'links', 'stack parameters', 'tcp counters'];
/** The sections that read the hosts' configuration (sysctls.json, offloads.json, routes.json), not counters. */
const STATE_SECTIONS = ['sysctls', 'offloads', 'routes'];

/** sysctls.json, offloads.json and routes.json as a run read them, and which run that was. */
export interface HostState {
  sysctls: unknown;
  offloads: unknown;
  /** Per end host namespace, its routes (absent in records from before routes were read). */
  routes?: Record<string, RouteEntry[]>;
  readIn: string;
}

/**
 * Counters (qdiscs, links) before or after traffic; before traffic also the hosts' sysctls and
 * offloads, unless `kept` holds them as read on this same dumbbell by an earlier run that nothing
 * has changed since (then they are written from there and not read again).
 */
export async function snapshot(
  session: LabSession,
  plan: Plan,
  rec: RunRecorder,
  when: 'before' | 'after',
  kept: HostState | null = null,
): Promise<Snapshot & { state: HostState | null }> {
  const out: Record<string, StepResult[]> = {};
  const ms: Record<string, number> = {};
  const sections = plan.snapshot.filter((s) =>
    when === 'after' ? AFTER_SECTIONS.includes(s.title) : !(kept && STATE_SECTIONS.includes(s.title)),
  );
  for (const s of sections) {
    const t = Date.now();
    out[s.title] = await session.exec(s.cmds, { stopOnError: false });
    ms[s.title] = Date.now() - t;
  }
  rec.event('snapshot', { when, ms, ...(kept && when === 'before' ? { hostStateReadIn: kept.readIn } : {}) });
  const qdiscText = out.qdiscs?.[0]?.stdout;
  rec.text(`qdisc-${when}.json`, qdiscText ?? '');
  const links = Object.fromEntries(
    plan.topology.namespaces.map((ns, i) => [ns, json<LinkStat[]>(out.links?.[i]?.stdout, [])]),
  );
  rec.json(`links-${when}.json`, links);
  const stackParams = out['stack parameters'] ? stackParamsInForce(out['stack parameters']) : undefined;
  if (stackParams) rec.json(`stack-params-${when}.json`, stackParams);
  const tcpCounters = out['tcp counters'] ? tcpCountersByNs(out['tcp counters']) : undefined;
  if (tcpCounters) rec.json(`tcp-counters-${when}.json`, tcpCounters);
  let state: HostState | null = null;
  if (when === 'before') {
    state = kept ?? hostState(plan, out, rec.dir);
    rec.json('sysctls.json', state.sysctls);
    rec.json('offloads.json', state.offloads);
    if (state.routes) rec.json('routes.json', state.routes);
  }
  return {
    qdiscs: json<QdiscStat[]>(qdiscText, []),
    links,
    ...(stackParams ? { stackParams } : {}),
    ...(state?.routes ? { routes: state.routes } : {}),
    ...(tcpCounters ? { tcpCounters } : {}),
    state,
  };
}

/** `ip -n NS -j route show` results, per namespace (the argv's third word). */
export const routesByNs = (results: readonly StepResult[]): Record<string, RouteEntry[]> =>
  Object.fromEntries(results.map((r) => [r.argv[2] ?? '?', json<RouteEntry[]>(r.stdout, [])]));

function hostState(plan: Plan, out: Record<string, StepResult[]>, readIn: string): HostState {
  const sysctlText = (out.sysctls ?? []).slice(1).map((r) => r.stdout);
  const perNs = Object.fromEntries(
    plan.topology.namespaces.map((ns, i) => [ns, parseSysctl(sysctlText[i] ?? '')]),
  );
  return {
    sysctls: {
      lab: parseSysctl(out.sysctls?.[0]?.stdout ?? ''),
      keys: Object.fromEntries(
        Object.entries(perNs).map(([ns, kv]) => [ns, Object.fromEntries(KEY_SYSCTLS.map((k) => [k, kv[k]]))]),
      ),
      all: perNs,
    },
    offloads: Object.fromEntries(
      (out.offloads ?? []).map((r) => [r.argv.slice(3).join(' '), parseOffloads(r.stdout)]),
    ),
    ...(out.routes ? { routes: routesByNs(out.routes) } : {}),
    readIn,
  };
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
  return { idleRtt, excessMs, calibration };
}

/** What a booted lab's processes say about it and cannot change: /proc/cpuinfo, the tools' versions. */
export interface LabFacts {
  cpuinfo: string;
  toolVersions: ReturnType<typeof toolVersions>;
}

export async function readLabFacts(session: LabSession): Promise<LabFacts> {
  const cpuinfo = (await session.run({ argv: ['cat', '/proc/cpuinfo'], allowFail: true })).stdout;
  return {
    cpuinfo,
    toolVersions: toolVersions(await session.exec(TOOL_VERSION_CMDS, { stopOnError: false })),
  };
}

/**
 * Refuses a spec whose stacks the lab kernel lacks (saying why, from the boot report), and writes
 * environment.json: CPU, seed, lab, image, agent, tool versions, lfnlab's own. Returns the lab CPU's MHz.
 */
export async function checkStacksAndRecordEnvironment(
  session: LabSession,
  spec: Spec,
  lab: LabRecord,
  image: LabImage,
  rec: RunRecorder,
  /** A campaign's facts about the lab it holds: read once per booted lab, not once per run. */
  cache?: { facts?: LabFacts },
): Promise<number | null> {
  // The agent's report every run (namespaces, processes, modules); the rest once per lab.
  const info = await session.info<AgentInfo>();
  const facts = cache?.facts ?? (await readLabFacts(session));
  if (cache) cache.facts = facts;
  const { cpuinfo } = facts;
  const missing = [
    ...new Set(spec.flows.filter((f) => usesKernelTcp(f.transport)).map((f) => f.stack)),
  ].filter((s) => !info.stacksAvailable.includes(s));
  if (missing.length)
    throw new Error(
      spec.wire
        ? `the external hosts' kernel (${info.externalHosts?.kernel ?? 'this machine'}) has no ${missing.join(', ')}; it offers ${info.stacksAvailable.join(', ')}`
        : missingStacksMessage(missing, info),
    );
  const cpuMHz = Number(/^cpu MHz\s*:\s*([\d.]+)/m.exec(cpuinfo)?.[1]) || null;
  rec.json('environment.json', {
    cpu: { model: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? null, mhz: cpuMHz },
    seed: spec.seed,
    lab,
    image: {
      id: image.id,
      kernel: image.manifest.kernel,
      tools: image.manifest.tools,
      agent: image.manifest.agent,
      samplers: image.manifest.samplers,
      modules: image.manifest.modules,
      stacks: image.manifest.stacks,
    },
    addedStacks: addedStacksRecord(image, info),
    agent: info,
    toolVersions: facts.toolVersions,
    host: { name: hostname(), node: process.version, platform: process.platform, qemu: lab.qemuVersion },
    lfnlab: codeIdentity(),
    knownStacks: knownStackNames(),
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
): Promise<LinksReady> {
  const t0setup = Date.now();
  for (const section of plan.setup) await session.exec(section.cmds);
  const nCmds = plan.setup.reduce((n, s) => n + s.cmds.length, 0);
  log(
    `  setup: ${plan.topology.namespaces.length} namespaces, ${nCmds} commands, ${((Date.now() - t0setup) / 1000).toFixed(1)} s`,
  );
  rec.event('setup', { commands: nCmds, ms: Date.now() - t0setup });
  const measured = await measureIdleRtt(session, plan, spec, rec, log);
  return {
    ...measured,
    changes: calibratedChanges(spec, plan.changes, plan.topology.paths, measured.excessMs),
  };
}

/** The dumbbell ready for traffic: idle RTT, the calibration in force, the run's path changes on it. */
export interface LinksReady {
  idleRtt: Record<string, PingSummary | null>;
  /** Per idle-RTT key, the emulator's own excess over the configured RTT taken off the delay stages, ms. */
  excessMs: Record<string, number>;
  /** calibration.json's content. */
  calibration: Record<string, unknown>;
  changes: PathChange[];
}

/**
 * On a dumbbell a previous run built and calibrated: measure the idle RTT again (the same probes,
 * no calibration) and accept the kept calibration only if every path's idle RTT passes the
 * verdict's own idle-RTT check. Records the fresh idle RTT, and the calibration as reused from the
 * run that measured it. Null when a path fails: the caller builds and calibrates afresh.
 */
export async function verifyKeptLinks(
  session: LabSession,
  plan: Plan,
  spec: Spec,
  kept: { excessMs: Record<string, number>; calibration: Record<string, unknown>; calibratedBy: string },
  rec: RunRecorder,
  log: (l: string) => void,
): Promise<LinksReady | null> {
  const measured = new Map<string, PingSummary | null>();
  // Paths share nothing on the way (own hosts, IFBs and delay stages), so their probes run side by
  // side: under a realtime clock each takes its 2 s of pinging in wall time. A path's host groups
  // share its bottleneck and are probed one after another, as at calibration.
  const paths = [...new Set(plan.idleRtt.map((r) => r.path))];
  const passed = await Promise.all(
    paths.map(async (path) => {
      for (const r of plan.idleRtt.filter((x) => x.path === path)) {
        const key = idleRttKey(r.path, r.group, r.rttMs);
        await session.run(r.warmup);
        const ping = parsePing((await session.run(r.probe)).stdout);
        const check = checkIdleRtt(key, r.rttMs, spec.paths[r.path]?.jitter ?? 0, ping);
        log(`  idle RTT ${key} on the kept calibration: ${check.message}`);
        if (check.status !== 'pass') return false;
        measured.set(key, ping);
      }
      return true;
    }),
  );
  if (!passed.every(Boolean)) return null;
  // In the plan's order, whichever path answered first.
  const idleRtt: Record<string, PingSummary | null> = Object.fromEntries(
    plan.idleRtt.map((r) => {
      const key = idleRttKey(r.path, r.group, r.rttMs);
      return [key, measured.get(key) ?? null];
    }),
  );
  const calibration = Object.fromEntries(
    Object.entries(kept.calibration).map(([k, v]) => [
      k,
      { ...(v as Record<string, unknown>), reusedFrom: kept.calibratedBy },
    ]),
  );
  rec.json('idle-rtt.json', idleRtt);
  rec.json('calibration.json', calibration);
  return {
    idleRtt,
    excessMs: kept.excessMs,
    calibration: kept.calibration,
    changes: calibratedChanges(spec, plan.changes, plan.topology.paths, kept.excessMs),
  };
}
