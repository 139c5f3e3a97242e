// One experiment from spec to record: boot the lab if needed, start clean, build the dumbbell,
// measure idle RTT, run the flows on their schedule, read the stacks back from the sockets,
// snapshot counters, tear down (always), summarise.
import {
  buildPlan,
  type Cmd,
  calibrateDelay,
  formatPlan,
  type Plan,
  type Spec,
  STACK_NAMES,
} from '@lfnlab/emulator';
import { connectLab, type ExitEvent, ensureImage, type LabRecord, labUp } from '@lfnlab/lab-images';
import { KEY_SYSCTLS, parseOffloads, parseSysctl, TOOL_VERSION_CMDS, toolVersions } from './environment.js';
import { flowIntervals, parseIperf } from './iperf.js';
import { type PingSummary, parsePing, parseSs, type SocketState } from './probes.js';
import { RunRecorder } from './record.js';
import { LabSession, type StepResult } from './session.js';
import { type FlowResult, type RunSummary, summarise } from './summary.js';

export interface RunOptions {
  spec: Spec;
  /** The spec as the person wrote it, kept verbatim in the record. */
  specText?: string;
  outDir: string;
  labName?: string;
  log?: (line: string) => void;
  signal?: AbortSignal;
  onSample?: (sample: { kind: string }) => void;
}

export interface RunOutcome {
  dir: string;
  summary: RunSummary;
}

class Aborted extends Error {}

interface AgentInfo {
  kernel: string;
  stacksAvailable: string[];
  cpus: number;
  clocksource: string;
  modules: unknown[];
  boot: { modules: { name: string; ok: boolean; error?: string }[] };
}

const wait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new Aborted('aborted'));
    const t = setTimeout(resolve, Math.max(0, ms));
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(new Aborted('aborted'));
    });
  });

function raceAbort<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => signal.addEventListener('abort', () => reject(new Aborted('aborted')))),
  ]);
}

async function snapshot(session: LabSession, plan: Plan) {
  const out: Record<string, StepResult[]> = {};
  for (const s of plan.snapshot) out[s.title] = await session.exec(s.cmds, { stopOnError: false });
  return out;
}

function recordSnapshot(
  rec: RunRecorder,
  plan: Plan,
  snap: Record<string, StepResult[]>,
  when: 'before' | 'after',
) {
  const qdisc = snap.qdiscs?.[0];
  rec.text(`qdisc-${when}.json`, qdisc?.stdout ?? '');
  if (when === 'after') return;
  const sysctlText = (snap.sysctls ?? []).slice(1).map((r) => r.stdout);
  const perNs = Object.fromEntries(
    plan.topology.namespaces.map((ns, i) => [ns, parseSysctl(sysctlText[i] ?? '')]),
  );
  rec.json('sysctls.json', {
    lab: parseSysctl(snap.sysctls?.[0]?.stdout ?? ''),
    keys: Object.fromEntries(
      Object.entries(perNs).map(([ns, kv]) => [ns, Object.fromEntries(KEY_SYSCTLS.map((k) => [k, kv[k]]))]),
    ),
    all: perNs,
  });
  rec.json(
    'offloads.json',
    Object.fromEntries(
      (snap.offloads ?? []).map((r) => [r.argv.slice(3).join(' '), parseOffloads(r.stdout)]),
    ),
  );
  rec.text('links.txt', (snap.links ?? []).map((r) => `$ ${r.argv.join(' ')}\n${r.stdout}`).join('\n'));
}

export async function runExperiment(o: RunOptions): Promise<RunOutcome> {
  const log = o.log ?? ((s: string) => console.log(s));
  const { spec } = o;
  const plan = buildPlan(spec);
  const rec = new RunRecorder(o.outDir);
  const startedAt = new Date();
  rec.text('spec.yaml', o.specText ?? JSON.stringify(spec, null, 2));
  rec.json('spec.json', spec);
  rec.json('plan.json', plan);
  rec.text('plan.sh', formatPlan(plan));
  rec.event('created', { dir: o.outDir });

  const image = await ensureImage({ log: (s) => log(`  ${s}`) });
  const lab: LabRecord = await labUp({ name: o.labName, image, log: (s) => log(`  ${s}`) });
  log(
    `  lab: ${lab.accel.toUpperCase()}, ${lab.cpus} vCPU, image ${lab.imageId}, kernel ${image.manifest.kernel.abi} (booted in ${(lab.bootMs / 1000).toFixed(1)} s)`,
  );
  const channel = await connectLab(lab.name, { watchdogMs: 10_000 });
  const session = new LabSession(channel);

  const results = new Map<string, FlowResult>(
    plan.topology.flows.map((f) => [
      f.name,
      {
        flow: f,
        client: null,
        server: null,
        intervals: [],
        observedStacks: [],
        startedAtS: null,
        error: null,
      },
    ]),
  );
  const idleRtt: Record<string, PingSummary | null> = {};
  const probes: { t: number; ns: string; sockets: SocketState[] }[] = [];
  let status: RunSummary['status'] = 'completed';
  let error: string | null = null;
  let setUp = false;

  try {
    const stale = await session.reset();
    log(
      stale.namespaces.length || stale.killed.length
        ? `  clean start: removed ${stale.namespaces.length} stale namespaces and ${stale.killed.length} processes`
        : '  clean start: nothing left from earlier runs',
    );
    rec.event('reset', stale);

    const info = await session.info<AgentInfo>();
    const missing = [...new Set(spec.flows.map((f) => f.stack))].filter(
      (s) => !info.stacksAvailable.includes(s),
    );
    if (missing.length) {
      throw new Error(
        `the lab kernel has no ${missing.join(', ')}; it offers ${info.stacksAvailable.join(', ')}`,
      );
    }
    const versions = toolVersions(await session.exec(TOOL_VERSION_CMDS, { stopOnError: false }));
    rec.json('environment.json', {
      seed: spec.seed,
      lab,
      image: {
        id: image.id,
        kernel: image.manifest.kernel,
        tools: image.manifest.tools,
        agent: image.manifest.agent,
        modules: image.manifest.modules,
      },
      agent: info,
      toolVersions: versions,
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
    recordSnapshot(rec, plan, await snapshot(session, plan), 'before');

    const calibration: Record<string, unknown> = {};
    for (const r of plan.idleRtt) {
      const configured = spec.paths[r.path]?.rtt ?? 0;
      await session.run(r.warmup);
      let ping = parsePing((await session.run(r.probe)).stdout);
      const topo = plan.topology.paths.find((p) => p.name === r.path);
      if (ping && topo && r.calibrate) {
        const excessMs = ping.minMs - configured;
        const { oneWayMs, cmds } = calibrateDelay(spec, topo, excessMs);
        calibration[r.path] = {
          measuredMinMs: ping.minMs,
          excessMs,
          oneWayDelayMs: oneWayMs,
          commands: cmds.map((c) => c.argv),
        };
        if (cmds.length) {
          await session.exec(cmds);
          ping = parsePing((await session.run(r.probe)).stdout);
          log(
            `  calibration ${r.path}: the emulator adds ${excessMs.toFixed(2)} ms; delay stages set to ${oneWayMs} ms each way`,
          );
        }
      }
      idleRtt[r.path] = ping;
      log(
        ping
          ? `  idle RTT ${r.path}: min ${ping.minMs.toFixed(2)} ms, avg ${ping.avgMs.toFixed(2)} ms (configured ${configured} ms, ${ping.received}/${ping.sent} replies)`
          : `  idle RTT ${r.path}: no replies`,
      );
    }
    rec.json('calibration.json', calibration);
    rec.json('idle-rtt.json', idleRtt);

    for (const s of plan.servers) {
      await session.spawn(s);
    }
    await session.exec(plan.servers.flatMap((s) => (s.ready ? [s.ready] : [])));

    // Traffic: t0 is when every server listens; clients and socket probes follow the schedule.
    const t0 = Date.now();
    const elapsed = () => (Date.now() - t0) / 1000;
    rec.event('traffic', { t0: new Date(t0).toISOString() });
    const exits = new Map<string, Promise<ExitEvent>>();
    for (const p of [...plan.servers, ...plan.clients]) exits.set(p.name, session.exited(p.name));
    const clientStarts = plan.clients.map(async (c) => {
      await wait(c.at - (Date.now() - t0), o.signal);
      await session.spawn(c);
      const r = results.get(c.flow);
      if (r) r.startedAtS = elapsed();
      log(
        `  t=${elapsed().toFixed(1).padStart(6)} s  started ${c.flow} (${r?.flow.stack}, ${r?.flow.direction}, ${r?.flow.streams} stream${r?.flow.streams === 1 ? '' : 's'})`,
      );
      rec.event('flow-started', { flow: c.flow, t: elapsed() });
    });
    const probeTimes = new Map<string, { ns: string; at: number }>();
    for (const f of plan.topology.flows) {
      const at = f.startMs + f.durationMs / 2;
      probeTimes.set(`${f.clientNs}@${at}`, { ns: f.clientNs, at });
    }
    const socketProbes = [...probeTimes.values()].map(async ({ ns, at }) => {
      await wait(at - (Date.now() - t0), o.signal);
      const cmd = plan.socketProbes[ns] as Cmd;
      const r = await session.run({ ...cmd, allowFail: true });
      probes.push({ t: elapsed(), ns, sockets: parseSs(r.stdout) });
    });
    const end = Math.max(...plan.topology.flows.map((f) => f.startMs + f.durationMs)) / 1000;
    const ticker = setInterval(() => {
      const running = plan.topology.flows.filter((f) => {
        const r = results.get(f.name);
        return r?.startedAtS !== null && elapsed() < f.startMs / 1000 + f.durationMs / 1000;
      }).length;
      log(
        `  t=${elapsed().toFixed(1).padStart(6)} s  of ${end} s, ${running} flow${running === 1 ? '' : 's'} running`,
      );
    }, 5000);
    try {
      await raceAbort(Promise.all([...clientStarts, ...socketProbes]), o.signal);
      // The deadline's timer is cancelled once the flows are done, or it would hold the process.
      const finished = new AbortController();
      const deadline = wait(
        (end + 30) * 1000 - (Date.now() - t0),
        AbortSignal.any([finished.signal, ...(o.signal ? [o.signal] : [])]),
      ).then(
        () => {
          throw new Error(`flows did not finish within 30 s of the planned end (${end} s)`);
        },
        (err) => {
          if (!finished.signal.aborted) throw err;
        },
      );
      const all = Promise.all(
        [...exits.entries()].map(async ([name, p]) => {
          const e = await p;
          const proc = [...plan.servers, ...plan.clients].find((x) => x.name === name);
          const r = proc ? results.get(proc.flow) : undefined;
          if (!r || !proc) return;
          const json = parseIperf(e.stdout);
          if (proc.role === 'client') r.client = json;
          else r.server = json;
          if (e.code !== 0) {
            const why =
              json?.error ?? (e.stderr.trim() || `exit ${e.code}${e.signal ? ` (${e.signal})` : ''}`);
            r.error = r.error ?? `${proc.role}: ${why}`;
          }
        }),
      );
      try {
        await Promise.race([all, deadline]);
      } finally {
        finished.abort();
      }
    } finally {
      clearInterval(ticker);
    }
    log(`  t=${elapsed().toFixed(1).padStart(6)} s  all flows done`);
    recordSnapshot(rec, plan, await snapshot(session, plan), 'after');
  } catch (err) {
    status = err instanceof Aborted ? 'aborted' : 'failed';
    error = err instanceof Error ? err.message : String(err);
    rec.event(status, { error });
  } finally {
    if (setUp) {
      await session.exec(plan.teardown.cmds, { stopOnError: false }).catch(() => undefined);
    }
    // Belt and braces: whatever the plan missed or a failure left, the agent removes.
    await session.reset().catch(() => undefined);
    channel.close();
  }

  for (const r of results.values()) {
    const offset = r.startedAtS ?? r.flow.startMs / 1000;
    r.intervals = flowIntervals(r.flow.name, offset, r.client, r.server);
    // The data sockets are the ones iperf3 reports as connected; its control socket uses the default stack.
    const dataPorts = new Set((r.client?.start?.connected ?? []).map((c) => c.local_port));
    r.observedStacks = [
      ...new Set(
        probes
          .filter((p) => p.ns === r.flow.clientNs)
          .flatMap((p) => p.sockets.filter((s) => s.peerPort === r.flow.port && dataPorts.has(s.localPort)))
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
  const summary = summarise({
    spec,
    paths: plan.topology.paths,
    results: [...results.values()],
    idleRtt,
    status,
    error,
  });
  rec.json('summary.json', {
    ...summary,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    samples: rec.sampleCount,
  });
  rec.event('finished', { status });
  return { dir: o.outDir, summary };
}
