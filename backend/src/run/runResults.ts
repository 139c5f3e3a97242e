// The steps of a run after its traffic: each flow's result and the raw reports into the record,
// then the verdict (packet timing, fidelity) and the summary.
import { flowPorts, type Plan, type Spec } from '@lfnlab/emulator';
import type { ExitEvent } from '@lfnlab/lab-images';
import type { SamplerCounters } from './demux.js';
import { fidelity } from './fidelity.js';
import { flowIntervals } from './iperf.js';
import type { Snapshot } from './labSetup.js';
import type { LiveSampling } from './liveSampling.js';
import type { PingSummary } from './probes.js';
import { type RunRecorder, udpgenRaw } from './record.js';
import type { ReuseRecord } from './reuse.js';
import type { Sample, TcpFlowSample } from './samples.js';
import type { RunClock, SocketProbe } from './schedule.js';
import { type FlowResult, type RunSummary, summarise } from './summary.js';
import { summaryInput } from './summaryInput.js';
import { finishTransfer } from './transferRecord.js';
import { runTiming, timingWindowS, verdictInput } from './verdictInput.js';

/** Each flow's intervals, observed stacks and raw reports into the record, with the run's own raw files. */
export function collectFlowResults(o: {
  results: Map<string, FlowResult>;
  probes: SocketProbe[];
  /** When each TCP flow's data began (s from t0) and its sender's samples, from the tcp sampler. */
  dataStarts: ReadonlyMap<string, number>;
  tcp: readonly TcpFlowSample[];
  crossExits: Map<string, ExitEvent>;
  counters: SamplerCounters[];
  rec: RunRecorder;
  log: (line: string) => void;
  onSample?: (sample: Sample) => void;
}): void {
  const { results, probes, crossExits, counters, rec, log } = o;
  for (const r of results.values()) {
    r.dataStartS = o.dataStarts.get(r.flow.name) ?? null;
    if (r.flow.transport !== 'tcp') log(`  ${finishTransfer(r, rec)}`);
    // iperf3 times its intervals from its data connection, which a lost SYN can delay by seconds.
    else
      r.intervals = flowIntervals(
        r.flow.name,
        r.dataStartS ?? r.startedAtS ?? r.flow.startMs / 1000,
        r.client,
        r.server,
      );
    // The data sockets are the ones iperf3 reports as connected (its control socket uses the
    // default stack); every connection of a psockets flow carries data.
    const dataPorts = new Set((r.client?.start?.connected ?? []).map((c) => c.local_port));
    const ports = flowPorts(r.flow);
    const isData = (localPort: number) => r.flow.transport === 'psockets' || dataPorts.has(localPort);
    // What `ss` said at the probe times, and what the tcp sampler saw on the data sockets all along
    // (a flow whose handshake lost SYNs can come up after the last probe).
    r.observedStacks = [
      ...new Set([
        ...probes
          .filter((p) => p.ns === r.flow.clientNs)
          .flatMap((p) => p.sockets.filter((s) => ports.includes(s.peerPort) && isData(s.localPort)))
          .map((s) => s.stack ?? '?'),
        ...o.tcp.filter((s) => s.flow === r.flow.name).flatMap((s) => s.cc.split(',')),
      ]),
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
    rec.raw(udpgenRaw(name), `${e.stdout ?? ''}${e.stderr ? `\n# stderr\n${e.stderr}` : ''}`);
  rec.json('sampling.json', counters);
}

/** The verdict (packet timing, fidelity) and the summary, written as summary.json. */
export function judgeRun(o: {
  spec: Spec;
  plan: Plan;
  sampling: LiveSampling;
  t0RealMs: number | null;
  before: Snapshot | null;
  after: Snapshot | null;
  idleRtt: Record<string, PingSummary | null>;
  counters: SamplerCounters[];
  results: Map<string, FlowResult>;
  status: RunSummary['status'];
  error: string | null;
  cpuMHz: number | null;
  clockReport: RunClock | null;
  rec: RunRecorder;
  startedAt: Date;
  /** Set when the run started on a kept dumbbell: recorded in summary.json. */
  reuse?: ReuseRecord | null;
  /** Each planned cross-traffic source's generator output (null: it left none), for its check. */
  crossReports: Record<string, string | null>;
}): RunSummary {
  const { spec, plan, sampling, t0RealMs, before, after, idleRtt, counters, results, status, error, rec } = o;
  const cpuMHz = o.cpuMHz;
  const clockReport = o.clockReport;
  const startedAt = o.startedAt;
  const timing = runTiming(spec, plan, sampling.timing, t0RealMs);
  const windowS = timingWindowS(plan);
  if (windowS !== null) rec.json('timing.json', { windowS, directions: timing });
  const report =
    before && after
      ? fidelity(
          verdictInput(
            {
              spec,
              plan,
              samples: sampling.samples,
              t0RealMs,
              before,
              after,
              idleRtt,
              counters,
              dataStarts: sampling.dataStarts,
              crossReports: o.crossReports,
            },
            timing,
          ),
        )
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
  if (o.reuse) summary.reuse = o.reuse;
  rec.json('summary.json', {
    ...summary,
    // From the samples that arrived before the run stopped (the service marks its records alike).
    partial: status !== 'completed',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    samples: rec.sampleCount,
  });
  return summary;
}
