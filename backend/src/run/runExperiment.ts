// One experiment from spec to record: boot the lab if needed, start clean, build the dumbbell,
// calibrate and measure idle RTT, sample while the flows run on their schedule, snapshot
// counters, tear down (always), then summarise with a fidelity verdict.
import {
  buildPlan,
  calibrateDelay,
  formatPlan,
  type PathChange,
  type Plan,
  rateChange,
  type Spec,
  STACK_NAMES,
  STACKS,
  usesKernelTcp,
} from '@lfnlab/emulator';
import { connectLab, type ExitEvent, ensureImage, type LabRecord, labUp } from '@lfnlab/lab-images';
import type { SamplerCounters } from './demux.js';
import { KEY_SYSCTLS, parseOffloads, parseSysctl, TOOL_VERSION_CMDS, toolVersions } from './environment.js';
import { fidelity, type LinkStat, type QdiscStat } from './fidelity.js';
import { flowIntervals } from './iperf.js';
import { retireLostLab } from './labLoss.js';
import { LiveSampling } from './liveSampling.js';
import { type PingSummary, parsePing } from './probes.js';
import { RunRecorder } from './record.js';
import type { CpuSample, QueueSample, Sample, TcpFlowSample } from './samples.js';
import {
  Aborted,
  plannedEndS,
  type RunClock,
  runTraffic,
  type SocketProbe,
  type TrafficProgress,
} from './schedule.js';
import { LabSession, type StepResult } from './session.js';
import { emptyFlowResult, type FlowResult, type RunSummary, summarise } from './summary.js';
import { summaryInput } from './summaryInput.js';
import { timingStats } from './timingChecks.js';
import { finishTransfer } from './transferRecord.js';

export interface RunOptions {
  spec: Spec;
  /** The spec as the person wrote it, kept verbatim in the record. */
  specText?: string;
  outDir: string;
  labName?: string;
  /** Overrides the spec's `clock` (the CLI's --clock). */
  clock?: 'auto' | 'realtime' | 'dilated';
  log?: (line: string) => void;
  signal?: AbortSignal;
  onSample?: (sample: Sample) => void;
  /**
   * Every event as the record gets it: created, reset, setup, traffic (t0 and the lab's clock),
   * flow-started, cross-started, path-changed, aborted/failed, finished.
   */
  onEvent?: (type: string, detail: Record<string, unknown>) => void;
  /** Where the traffic phase stands, in lab seconds, about once a wall second. */
  onProgress?: (p: TrafficProgress) => void;
  /** Change the plan before it runs: tests use it to break a link on purpose. */
  alterPlan?: (plan: Plan) => Plan;
}

export interface RunOutcome {
  dir: string;
  summary: RunSummary;
}

interface AgentInfo {
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

interface Snapshot {
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

async function snapshot(
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

async function measureIdleRtt(
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

export async function runExperiment(o: RunOptions): Promise<RunOutcome> {
  const log = o.log ?? ((s: string) => console.log(s));
  const rec = new RunRecorder(o.outDir, o.onEvent);
  const startedAt = new Date();
  rec.text('spec.yaml', o.specText ?? JSON.stringify(o.spec, null, 2));
  rec.event('created', { dir: o.outDir });

  const image = await ensureImage({ log: (s) => log(`  ${s}`) });
  const lab: LabRecord = await labUp({
    name: o.labName,
    image,
    clock: o.clock ?? o.spec.clock,
    log: (s) => log(`  ${s}`),
  });
  // The plan depends on the clock the lab really has (auto resolves to it), and the record keeps
  // the resolved spec, so running spec.json again gives the same configuration on any host.
  const spec: Spec = { ...o.spec, clock: lab.clock ?? 'realtime' };
  const plan = (o.alterPlan ?? ((p) => p))(buildPlan(spec));
  rec.json('spec.json', spec);
  rec.json('plan.json', plan);
  rec.text('plan.sh', formatPlan(plan));
  log(
    `  lab: ${lab.accel.toUpperCase()}, ${lab.clock ?? 'realtime'} clock, ${lab.cpus} vCPU, image ${lab.imageId}, kernel ${image.manifest.kernel.abi} (booted in ${(lab.bootMs / 1000).toFixed(1)} s)`,
  );
  // The channel is free once the previous client's session has been torn down by the agent;
  // that can take a few seconds after a kill, so wait for it rather than fail.
  const channel = await connectLab(lab.name, { watchdogMs: 10_000, timeoutMs: 60_000 });
  const session = new LabSession(channel);
  const sampling = new LiveSampling(session, plan, rec, o.onSample);
  // A lab that dies mid-run stops the schedule at once, not at its next planned step.
  const lost = new AbortController();
  channel.on('close', () => lost.abort());
  const signal = AbortSignal.any([lost.signal, ...(o.signal ? [o.signal] : [])]);

  const results = new Map<string, FlowResult>(plan.topology.flows.map((f) => [f.name, emptyFlowResult(f)]));
  let idleRtt: Record<string, PingSummary | null> = {};
  let probes: SocketProbe[] = [];
  let counters: SamplerCounters[] = [];
  let before: Snapshot | null = null;
  let after: Snapshot | null = null;
  let status: RunSummary['status'] = 'completed';
  let error: string | null = null;
  let setUp = false;
  let samplersOn = false;
  let cpuMHz: number | null = null;
  let clockReport: RunClock | null = null;
  let t0RealMs: number | null = null;
  const crossExits = new Map<string, ExitEvent>();

  try {
    const stale = await session.reset();
    log(
      stale.namespaces.length || stale.killed.length
        ? `  clean start: removed ${stale.namespaces.length} stale namespaces and ${stale.killed.length} processes`
        : '  clean start: nothing left from earlier runs',
    );
    rec.event('reset', stale);

    const info = await session.info<AgentInfo>();
    const missing = [
      ...new Set(spec.flows.filter((f) => usesKernelTcp(f.transport)).map((f) => f.stack)),
    ].filter((s) => !info.stacksAvailable.includes(s));
    if (missing.length) throw new Error(missingStacksMessage(missing, info));
    const cpuinfo = await session.run({ argv: ['cat', '/proc/cpuinfo'], allowFail: true });
    cpuMHz = Number(/^cpu MHz\s*:\s*([\d.]+)/m.exec(cpuinfo.stdout)?.[1]) || null;
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

    const t0setup = Date.now();
    setUp = true;
    for (const section of plan.setup) await session.exec(section.cmds);
    const nCmds = plan.setup.reduce((n, s) => n + s.cmds.length, 0);
    log(
      `  setup: ${plan.topology.namespaces.length} namespaces, ${nCmds} commands, ${((Date.now() - t0setup) / 1000).toFixed(1)} s`,
    );
    rec.event('setup', { commands: nCmds, ms: Date.now() - t0setup });
    const measured = await measureIdleRtt(session, plan, spec, rec, log);
    idleRtt = measured.idleRtt;
    const changeCmds = (c: PathChange) => {
      const topo = plan.topology.paths.find((p) => p.name === c.path);
      const path = spec.paths[c.path];
      if (!topo || !path) return c.cmds;
      return [
        ...(c.rateBps !== undefined
          ? rateChange(topo.routerIfs.forwardIfb, c.rateBps, topo.bufferPackets.forward, path.aqm)
          : []),
        ...(c.rttMs !== undefined
          ? calibrateDelay(spec, topo, measured.excessMs[c.path] ?? 0, c.rttMs).cmds
          : []),
      ];
    };
    before = await snapshot(session, plan, rec, 'before');

    for (const s of plan.servers) await session.spawn(s);
    await session.exec(plan.servers.flatMap((s) => (s.ready ? [s.ready] : [])));
    // The lab keeps the timetable: it picks t0, starts the samplers at once and everything else on
    // its own clock; samples and events carry times from that t0.
    const leadMs = 500;
    const traffic = await runTraffic({
      crossExits,
      session,
      plan,
      results,
      log,
      event: (t, d) => rec.event(t, d),
      signal,
      // Scheduled changes use the calibrated delay, not the plan's uncalibrated one.
      changeCmds,
      extraItems: sampling.items(leadMs),
      leadMs,
      onStart: (t0) => {
        sampling.begin(t0.t0RealtimeMs);
        samplersOn = true;
        log(`  sampling at ${spec.sampleHz} Hz: ${plan.samplers.map((s) => s.name).join(', ')}`);
        rec.event('traffic', {
          t0: new Date().toISOString(),
          labRealtimeMs: t0.t0RealtimeMs,
          labMonotonicMs: t0.t0MonoMs,
          clock: lab.clock ?? 'realtime',
        });
      },
      onProgress: o.onProgress,
    });
    probes = traffic.probes;
    t0RealMs = traffic.t0.t0RealtimeMs;
    clockReport = {
      mode: lab.clock ?? 'realtime',
      dilation: traffic.dilation,
      guestS: traffic.guestS,
      wallS: traffic.wallS,
    };
    counters = await sampling.stop();
    samplersOn = false;
    after = await snapshot(session, plan, rec, 'after');
  } catch (err) {
    status = err instanceof Aborted && !session.lost ? 'aborted' : 'failed';
    error = err instanceof Error ? err.message : String(err);
    if (session.lost) error = await retireLostLab(lab.name, session.lost);
    rec.event(status, { error });
  } finally {
    if (samplersOn) counters = await sampling.stop().catch(() => []);
    if (setUp) await session.exec(plan.teardown.cmds, { stopOnError: false }).catch(() => undefined);
    // Belt and braces: whatever the plan missed or a failure left, the agent removes.
    await session.reset().catch(() => undefined);
    channel.close();
  }

  for (const r of results.values()) {
    if (r.flow.transport !== 'tcp') log(`  ${finishTransfer(r, rec)}`);
    else r.intervals = flowIntervals(r.flow.name, r.startedAtS ?? r.flow.startMs / 1000, r.client, r.server);
    // The data sockets are the ones iperf3 reports as connected (its control socket uses the
    // default stack); every connection of a psockets flow carries data.
    const dataPorts = new Set((r.client?.start?.connected ?? []).map((c) => c.local_port));
    const isData = (localPort: number) => r.flow.transport === 'psockets' || dataPorts.has(localPort);
    r.observedStacks = [
      ...new Set(
        probes
          .filter((p) => p.ns === r.flow.clientNs)
          .flatMap((p) => p.sockets.filter((s) => s.peerPort === r.flow.port && isData(s.localPort)))
          .map((s) => s.stack ?? '?'),
      ),
    ];
    for (const s of r.intervals) {
      rec.sample(s);
      o.onSample?.(s);
    }
    if (r.client) rec.json(`flows/${r.flow.name}.client.json`, r.client);
    if (r.server) rec.json(`flows/${r.flow.name}.server.json`, r.server);
  }
  rec.json('sockets.json', probes);
  // The generators' own reports (intended and sent rate per interval) stay raw, beside the sinks'.
  for (const [name, e] of crossExits)
    rec.raw(`udpgen:${name}`, `${e.stdout ?? ''}${e.stderr ? `\n# stderr\n${e.stderr}` : ''}`);
  rec.json('sampling.json', counters);

  const end = plannedEndS(plan);
  const timingSampler = plan.samplers.find((s) => s.kind === 'timing');
  const windowS = Number(timingSampler?.argv[timingSampler.argv.indexOf('--window-ms') + 1] ?? 1000) / 1000;
  const timing = t0RealMs === null ? [] : timingStats(spec, sampling.timing, t0RealMs, end, windowS);
  if (timingSampler) rec.json('timing.json', { windowS, directions: timing });
  const report =
    before && after
      ? fidelity({
          spec,
          paths: plan.topology.paths,
          idleRtt,
          qdiscBefore: before.qdiscs,
          qdiscAfter: after.qdiscs,
          linksBefore: before.links,
          linksAfter: after.links,
          queue: sampling.samples.filter((s): s is QueueSample => s.kind === 'queue'),
          cpu: sampling.samples.filter((s): s is CpuSample => s.kind === 'cpu'),
          samplers: counters,
          trafficS: [0, end],
          flows: plan.topology.flows,
          tcp: sampling.samples.filter((s): s is TcpFlowSample => s.kind === 'tcp'),
          timing,
        })
      : null;
  const summary = summarise(
    summaryInput({
      spec,
      paths: plan.topology.paths,
      results: [...results.values()],
      samples: sampling.samples,
      idleRtt,
      status,
      error,
      fidelity: report,
      cpuMHz,
      clock: clockReport,
    }),
  );
  rec.json('summary.json', {
    ...summary,
    // From the samples that arrived before the run stopped (the service marks its records alike).
    partial: status !== 'completed',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    samples: rec.sampleCount,
  });
  rec.event('finished', { status, verdict: summary.verdict });
  return { dir: o.outDir, summary };
}
