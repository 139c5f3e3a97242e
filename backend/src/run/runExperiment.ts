// One experiment from spec to record: boot the lab if needed, start clean, build the dumbbell,
// calibrate and measure idle RTT (labSetup.ts), sample while the flows run on their schedule,
// snapshot counters, tear down (always), then summarise with a fidelity verdict (runResults.ts).
import { buildPlan, formatPlan, labKernelArgs, type Plan, type Spec, wireClock } from '@lfnlab/emulator';
import {
  connectLab,
  type ExitEvent,
  ensureImage,
  type HostAgent,
  type LabRecord,
  labUp,
  startHostAgent,
} from '@lfnlab/lab-images';
import type { SamplerCounters } from './demux.js';
import type { KeptLab } from './keptLab.js';
import { retireLostLab } from './labLoss.js';
import {
  checkStacksAndRecordEnvironment,
  type HostState,
  type LinksReady,
  type Snapshot,
  setUpLinks,
  snapshot,
  verifyKeptLinks,
} from './labSetup.js';
import { LiveSampling } from './liveSampling.js';
import type { PingSummary } from './probes.js';
import { RunRecorder } from './record.js';
import { decideReuse, type ReuseRecord } from './reuse.js';
import { collectFlowResults, judgeRun } from './runResults.js';
import type { Sample, TcpFlowSample } from './samples.js';
import { Aborted, type RunClock, runTraffic, type SocketProbe, type TrafficProgress } from './schedule.js';
import { LabSession } from './session.js';
import { emptyFlowResult, type FlowResult, type RunSummary } from './summary.js';
import { WireSession, type WireTimetableStart } from './wireSession.js';

export { idleRttKey, missingStacksMessage } from './labSetup.js';

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
  /**
   * The run's plan, once it is built (after the lab is up: it depends on the lab's clock). It is the
   * only one built for the run: whoever follows the run (storage, the live feed, a partial summary)
   * takes its flows and paths from it.
   */
  onPlan?: (plan: Plan) => void;
  /**
   * A campaign's hold on the lab across its runs: the run starts on the dumbbell the previous run
   * left when decideReuse allows it and its idle RTT still passes, and leaves its own standing for
   * the next (the campaign tears it down at its end). Absent: the run builds and tears down all.
   */
  keep?: KeptLab;
}

export interface RunOutcome {
  dir: string;
  summary: RunSummary;
}

export async function runExperiment(o: RunOptions): Promise<RunOutcome> {
  const log = o.log ?? ((s: string) => console.log(s));
  const rec = new RunRecorder(o.outDir, o.onEvent);
  const startedAt = new Date();
  rec.text('spec.yaml', o.specText ?? JSON.stringify(o.spec, null, 2));
  rec.event('created', { dir: o.outDir });

  const image = o.keep?.image ?? (await ensureImage({ log: (s) => log(`  ${s}`) }));
  if (o.keep) o.keep.image = image;
  const wired = o.spec.wire !== undefined;
  const askedClock = o.clock ?? o.spec.clock;
  const lab: LabRecord = await labUp({
    name: o.labName,
    image,
    // The wire's hosts live in wall time: its lab must too (auto would dilate it under TCG).
    clock: wired ? wireClock(askedClock) : askedClock,
    wire: wired,
    // Load-time stack parameters (CUBIC's bic_scale) reach the kernel only as it boots.
    kernelArgs: labKernelArgs(o.spec),
    log: (s) => log(`  ${s}`),
  });
  if (wired && !lab.wireTaps)
    throw new Error(
      `lab '${lab.name}' has no wire ports on this host (a lab PC's ports are its own NICs): a wire with hosts: netns needs a qemu lab here`,
    );
  // The plan depends on the clock the lab really has (auto resolves to it), and the record keeps
  // the resolved spec, so running spec.json again gives the same configuration on any host.
  const spec: Spec = { ...o.spec, clock: lab.clock ?? 'realtime' };
  const plan = (o.alterPlan ?? ((p) => p))(buildPlan(spec, { wireTaps: lab.wireTaps }));
  rec.json('spec.json', spec);
  rec.json('plan.json', plan);
  rec.text('plan.sh', formatPlan(plan));
  o.onPlan?.(plan);
  log(
    lab.remote
      ? `  lab: lab PC at ${lab.remote.host}:${lab.remote.port} (TLS), its own clock, image ${lab.imageId}`
      : `  lab: ${lab.accel.toUpperCase()}, ${lab.clock ?? 'realtime'} clock, ${lab.cpus} vCPU, image ${lab.imageId}, kernel ${image.manifest.kernel.abi} (booted in ${(lab.bootMs / 1000).toFixed(1)} s)`,
  );
  // The channel is free once the previous client's session has been torn down by the agent;
  // that can take a few seconds after a kill, so wait for it rather than fail.
  const channel = o.keep
    ? await o.keep.channelFor(lab)
    : await connectLab(lab.name, { watchdogMs: 10_000, timeoutMs: 60_000 });
  // A wire's external hosts are this machine's namespaces, driven by an agent of their own.
  let hostAgent: HostAgent | null = null;
  if (wired) {
    hostAgent = await startHostAgent({ watchdogMs: 10_000 }).catch((err) => {
      if (!o.keep) channel.close();
      throw err;
    });
    log(`  external hosts: this machine's namespaces, through its agent (pid ${hostAgent.pid})`);
  }
  const session = hostAgent ? new WireSession(channel, hostAgent.channel, plan) : new LabSession(channel);
  const channels = session instanceof WireSession ? session.channels : [channel];
  const sampling = new LiveSampling(session, plan, rec, o.onSample);
  // A lab that dies mid-run stops the schedule at once, not at its next planned step.
  const lost = new AbortController();
  const onLost = () => lost.abort();
  for (const ch of channels) ch.on('close', onLost);
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
  let links: LinksReady | null = null;
  let reuse: ReuseRecord | null = null;
  let kept = false;
  // The hosts' sysctls and offloads as an earlier run read them on the dumbbell this run reuses.
  let keptHostState: HostState | null = null;
  let hostState: HostState | null = null;

  try {
    // A stop that came while the image, the lab or the channel was being readied: nothing to set up.
    if (signal.aborted) throw new Aborted('aborted');
    // A wire's hosts go with their agent at the end of each run: nothing of it stands for the next.
    const decision = o.keep && !wired ? decideReuse(o.keep.built, plan, o.keep.running()) : null;
    // Until this run ends well, nothing standing counts as a dumbbell for the next one.
    if (o.keep) o.keep.built = null;
    if (decision?.reuse) {
      log(`  reusing the dumbbell of ${decision.from.runDir}: same topology`);
      cpuMHz = await checkStacksAndRecordEnvironment(session, spec, lab, image, rec, o.keep?.facts);
      setUp = true;
      // Only what differs: the per-namespace sysctls when this run sets other values.
      if (decision.sysctls.length) await session.exec(decision.sysctls);
      links = await verifyKeptLinks(session, plan, spec, decision.from, rec, log);
      if (links) {
        // Rewritten sysctls are read back; otherwise nothing has changed them since they were read.
        keptHostState = decision.sysctls.length ? null : decision.from.hostState;
        reuse = {
          from: decision.from.runDir,
          calibratedBy: decision.from.calibratedBy,
          sysctlsRewritten: decision.sysctls.length,
          hostStateReadIn: keptHostState?.readIn ?? o.outDir,
        };
        rec.event('reuse', { ...reuse });
      } else log('  the kept calibration no longer holds: building and calibrating afresh');
    } else if (decision) {
      log(`  building the dumbbell: ${decision.reason}`);
      rec.event('build', { reason: decision.reason });
    }
    if (!links) {
      const stale = await session.reset();
      log(
        stale.namespaces.length || stale.killed.length
          ? `  clean start: removed ${stale.namespaces.length} stale namespaces and ${stale.killed.length} processes`
          : '  clean start: nothing left from earlier runs',
      );
      rec.event('reset', stale);

      cpuMHz = await checkStacksAndRecordEnvironment(session, spec, lab, image, rec, o.keep?.facts);

      setUp = true;
      links = await setUpLinks(session, plan, spec, rec, log);
    }
    // Set-up and calibration take seconds on a dilated lab: a stop during them ends the run here.
    if (signal.aborted) throw new Aborted('aborted');
    idleRtt = links.idleRtt;
    const first = await snapshot(session, plan, rec, 'before', keptHostState);
    before = first;
    hostState = first.state;

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
      changes: links.changes,
      extraItems: sampling.items(leadMs),
      leadMs,
      onStart: (t0) => {
        sampling.begin(t0.t0RealtimeMs, (t0 as Partial<WireTimetableStart>).hosts?.t0RealtimeMs);
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
    sampling.detach();
    // A campaign keeps a dumbbell that carried its run to the end; anything else goes.
    kept =
      o.keep !== undefined &&
      !wired &&
      setUp &&
      links !== null &&
      hostState !== null &&
      status === 'completed' &&
      !session.lost;
    if (!kept) {
      if (setUp) await session.exec(plan.teardown.cmds, { stopOnError: false }).catch(() => undefined);
      // Belt and braces: whatever the plan missed or a failure left, the agent removes.
      await session.reset().catch(() => undefined);
    }
    for (const ch of channels) ch.off('close', onLost);
    session.detach();
    if (!o.keep) channel.close();
    await hostAgent?.stop().catch(() => undefined);
  }

  collectFlowResults({
    results,
    probes,
    dataStarts: sampling.dataStarts,
    tcp: sampling.samples.filter((s): s is TcpFlowSample => s.kind === 'tcp'),
    crossExits,
    counters,
    rec,
    log,
    onSample: o.onSample,
  });
  const summary = judgeRun({
    spec,
    plan,
    sampling,
    t0RealMs,
    before,
    after,
    idleRtt,
    counters,
    results,
    status,
    error,
    cpuMHz,
    clockReport,
    rec,
    startedAt,
    reuse,
    crossReports: Object.fromEntries(plan.cross.map((p) => [p.flow, crossExits.get(p.flow)?.stdout ?? null])),
  });
  if (o.keep)
    o.keep.built =
      kept && links && hostState
        ? {
            plan,
            runDir: o.outDir,
            calibratedBy: reuse?.calibratedBy ?? o.outDir,
            status,
            verdict: summary.verdict,
            excessMs: links.excessMs,
            calibration: links.calibration,
            hostState,
          }
        : null;
  rec.event('finished', { status, verdict: summary.verdict });
  return { dir: o.outDir, summary };
}
