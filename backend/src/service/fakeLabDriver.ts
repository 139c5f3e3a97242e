// A lab that is not there: runs produce plausible TCP, goodput, queue, RTT and CPU samples at the
// spec's rates, in real time divided by `timeScale`, and write a run directory that reports and
// exports read like a real one. For API tests and frontend work (`lfnlab serve --lab fake`).
import { buildPlan, type FlowTopology, knownStackNames, type Spec } from '@lfnlab/emulator';
import { seededUniform } from '@lfnlab/metrics';
import { codeIdentity } from '../run/codeVersion.js';
import type { IntervalSample, IperfJson } from '../run/iperf.js';
import { RunRecorder } from '../run/record.js';
import type { Sample } from '../run/samples.js';
import { emptyFlowResult, type FlowResult, summarise } from '../run/summary.js';
import type { DriverRunOptions, LabDriver, LabInfo } from './labDriver.js';

export interface FakeLabOptions {
  /** Run time passes this many times faster than wall time (tests use 10-50). */
  timeScale?: number;
  /** Milliseconds a boot takes. */
  bootMs?: number;
  /** Make every run fail at this fraction of its length (tests of failure handling). */
  failAt?: number;
  /** The labs it has, all down at first (default: 'default' only). */
  labs?: readonly string[];
}

const MSS = 1448;

interface FlowState {
  topo: FlowTopology;
  started: boolean;
  bytesReceived: number;
  bytesAcked: number;
  retrans: number;
  rtts: number[];
  intervalBytes: number;
  intervalStartS: number;
  intervals: IntervalSample[];
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

export class FakeLabDriver implements LabDriver {
  readonly kind = 'fake' as const;
  private readonly timeScale: number;
  private readonly bootMs: number;
  private readonly state = new Map<string, 'down' | 'booting' | 'ready'>([['default', 'down']]);
  /** Counts resets, so tests can see a failed run left the lab reset. */
  resets = 0;
  private frozen = false;

  constructor(private readonly o: FakeLabOptions = {}) {
    this.timeScale = o.timeScale ?? 1;
    this.bootMs = o.bootMs ?? 300;
    for (const name of o.labs ?? []) if (!this.state.has(name)) this.state.set(name, 'down');
  }

  /** Its runs take their lab time divided by the time scale, whatever the spec. */
  expectedPace(): number {
    return this.timeScale;
  }

  private info(name: string, busy: boolean): LabInfo {
    const s = this.state.get(name) ?? 'down';
    const up = s === 'ready';
    return {
      name,
      state: busy && up ? 'busy' : s,
      accel: up || busy ? 'tcg' : null,
      cpus: up || busy ? 2 : null,
      kernel: up || busy ? '6.1.0-fake-amd64' : null,
      stacks: up || busy ? knownStackNames() : [],
      bootMs: up || busy ? this.bootMs : null,
    };
  }

  async labs(busy: ReadonlySet<string>): Promise<LabInfo[]> {
    return [...this.state.keys()].map((n) => this.info(n, busy.has(n)));
  }

  async boot(name: string): Promise<void> {
    if (this.state.get(name) === 'ready' || this.state.get(name) === 'booting') return;
    this.state.set(name, 'booting');
    setTimeout(
      () => this.state.get(name) === 'booting' && this.state.set(name, 'ready'),
      this.bootMs / this.timeScale,
    ).unref();
  }

  async down(name: string): Promise<void> {
    this.state.set(name, 'down');
  }

  /** Tests of a crash: every run stops dead where it is, writing and answering nothing more. */
  freeze(): void {
    this.frozen = true;
  }

  async reset(_name: string): Promise<void> {
    this.resets += 1;
  }

  async run(o: DriverRunOptions) {
    const { spec } = o;
    const plan = buildPlan(spec);
    o.onPlan?.(plan);
    const rec = new RunRecorder(o.outDir, o.onEvent);
    const startedAt = new Date();
    rec.text('spec.yaml', o.specText ?? JSON.stringify(spec, null, 2));
    rec.json('spec.json', spec);
    rec.json('plan.json', plan);
    rec.event('created', { dir: o.outDir });
    if (this.state.get(o.labName) !== 'ready') {
      this.state.set(o.labName, 'ready');
      o.log(`  fake lab ${o.labName} booted`);
    }
    rec.event('reset', { namespaces: [], killed: [], errors: [] });
    rec.json('environment.json', {
      fake: true,
      cpu: { model: 'fake lab (synthetic samples)', mhz: null },
      seed: spec.seed,
      lab: { name: o.labName, accel: 'tcg', cpus: 2, imageId: 'fake', bootMs: this.bootMs },
      agent: { kernel: '6.1.0-fake-amd64', stacksAvailable: knownStackNames() },
      lfnlab: codeIdentity(),
      knownStacks: knownStackNames(),
    });
    rec.event('setup', { commands: 0, ms: 0 });

    const flows = plan.topology.flows.map(
      (topo): FlowState => ({
        topo,
        started: false,
        bytesReceived: 0,
        bytesAcked: 0,
        retrans: 0,
        rtts: [],
        intervalBytes: 0,
        intervalStartS: topo.startMs / 1000,
        intervals: [],
      }),
    );
    const rnd = seededUniform(spec.seed);
    const t0 = Date.now();
    rec.event('traffic', { t0: new Date(t0).toISOString(), labRealtimeMs: t0 });
    const emit = (s: Sample) => {
      rec.sample(s);
      o.onSample(s);
    };
    const tickS = 1 / spec.sampleHz;
    const intervalS = spec.sampleInterval / 1000;
    const endS = spec.duration / 1000;
    const failS = this.o.failAt !== undefined ? endS * this.o.failAt : null;
    let status: 'completed' | 'failed' | 'aborted' = 'completed';
    let error: string | null = null;
    let queuePkts = 0;
    for (let k = 1; k * tickS <= endS + 1e-9; k++) {
      const t = k * tickS;
      const due = t0 + (t * 1000) / this.timeScale;
      await sleep(due - Date.now(), o.signal);
      if (this.frozen) await new Promise(() => undefined);
      if (o.signal.aborted) {
        status = 'aborted';
        error = 'aborted';
        rec.event('aborted', { error });
        break;
      }
      if (failS !== null && t >= failS) {
        status = 'failed';
        error = 'the fake lab failed on purpose (failAt)';
        rec.event('failed', { error });
        break;
      }
      this.tick(
        spec,
        flows,
        t,
        tickS,
        intervalS,
        rnd,
        emit,
        rec,
        (q) => {
          queuePkts = q;
        },
        queuePkts,
      );
    }
    const results: FlowResult[] = flows.map((f) => this.result(f, spec));
    for (const f of flows) for (const s of f.intervals) emit(s);
    const verdict = status === 'completed' ? ('valid' as const) : null;
    const summary = summarise({
      spec,
      paths: plan.topology.paths,
      results,
      samples: [],
      idleRtt: Object.fromEntries(
        plan.topology.paths.map((p) => {
          const rtt = spec.paths[p.name]?.rtt ?? 0;
          return [
            p.name,
            { sent: 10, received: 10, minMs: rtt, avgMs: rtt + 0.1, maxMs: rtt + 0.3, mdevMs: 0.05 },
          ];
        }),
      ),
      status,
      error,
      fidelity: verdict
        ? {
            verdict,
            checks: [],
            reasons: ['synthetic samples from the fake lab driver; nothing was measured'],
          }
        : null,
    });
    rec.json('summary.json', {
      ...summary,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      samples: rec.sampleCount,
    });
    rec.event('finished', { status, verdict });
    return { summary };
  }

  /** One sampler tick: flows share their bottleneck fairly, with a sawtooth around the share. */
  private tick(
    spec: Spec,
    flows: FlowState[],
    t: number,
    tickS: number,
    intervalS: number,
    rnd: () => number,
    emit: (s: Sample) => void,
    rec: RunRecorder,
    setQueue: (pkts: number) => void,
    queuePkts: number,
  ) {
    const active = flows.filter(
      (f) => t >= f.topo.startMs / 1000 && t <= (f.topo.startMs + f.topo.durationMs) / 1000,
    );
    for (const f of active)
      if (!f.started) {
        f.started = true;
        rec.event('flow-started', { flow: f.topo.name, t: f.topo.startMs / 1000 });
      }
    const nextQueue = Math.max(0, queuePkts + (rnd() - 0.45) * 20);
    setQueue(nextQueue);
    for (const [pathName, path] of Object.entries(spec.paths)) {
      const sharing = active.filter((f) => f.topo.path === pathName && f.topo.direction === 'forward');
      const queueMs = ((nextQueue * MSS * 8) / path.rate) * 1000;
      emit({
        kind: 'queue',
        t,
        path: pathName,
        stage: 'bottleneck',
        direction: 'forward',
        dev: `ifb-${pathName}`,
        backlogPackets: Math.round(nextQueue),
        backlogBytes: Math.round(nextQueue * MSS),
        drops: 0,
        packets: Math.round((t * path.rate) / (MSS * 8)),
        bytes: Math.round((t * path.rate) / 8),
      });
      emit({
        kind: 'rtt',
        t,
        path: pathName,
        rttMs: path.rtt + queueMs + rnd() * 0.2,
        seq: Math.round(t / tickS),
      });
      for (const f of active.filter((x) => x.topo.path === pathName)) {
        const n = f.topo.direction === 'forward' ? sharing.length : 1;
        const rate = f.topo.direction === 'forward' ? path.rate : path.reverse.rate;
        const saw = 0.75 + 0.25 * ((t * 2 + f.topo.port) % 1);
        const bps = ((rate * 0.95) / Math.max(1, n)) * saw * (0.97 + rnd() * 0.06);
        const srttMs = f.topo.rttMs + queueMs;
        const bytes = (bps * tickS) / 8;
        f.bytesReceived += bytes;
        f.bytesAcked += bytes;
        f.intervalBytes += bytes;
        f.rtts.push(srttMs);
        const lost = rnd() < 0.02 ? 1 : 0;
        f.retrans += lost;
        emit({
          kind: 'tcp',
          t,
          flow: f.topo.name,
          streams: f.topo.streams,
          cc: f.topo.stack,
          cwndPackets: Math.max(2, Math.round((bps * srttMs) / 1000 / (MSS * 8))),
          ssthreshPackets: null,
          srttMs,
          rttvarMs: 0.5 + rnd(),
          minRttMs: f.topo.rttMs,
          pacingBps: bps * 1.2,
          deliveryBps: bps,
          bytesAcked: Math.round(f.bytesAcked),
          retransSegments: f.retrans,
          lostPackets: lost,
          unackedPackets: Math.round((bps * srttMs) / 1000 / (MSS * 8)),
          dataSegsOut: Math.round(f.bytesAcked / MSS),
        });
        emit({ kind: 'goodput', t, flow: f.topo.name, bps, bytesReceived: Math.round(f.bytesReceived) });
        if (t - f.intervalStartS >= intervalS - 1e-9) {
          const seconds = t - f.intervalStartS;
          const gbps = (f.intervalBytes * 8) / seconds;
          f.intervals.push({
            kind: 'interval',
            flow: f.topo.name,
            t,
            seconds,
            goodputBps: gbps,
            sendBps: gbps,
            retransmits: lost,
            cwndBytes: Math.round((bps * srttMs) / 8000),
            rttMs: srttMs,
            streams: [],
          });
          f.intervalStartS = t;
          f.intervalBytes = 0;
        }
      }
    }
    emit({ kind: 'cpu', t, busyPct: 20 + rnd() * 10, userPct: 5, systemPct: 5, softirqPct: 10 + rnd() * 10 });
  }

  private result(f: FlowState, spec: Spec): FlowResult {
    if (!f.started) return emptyFlowResult(f.topo);
    const seconds = f.intervals.reduce((a, s) => a + s.seconds, 0) || spec.sampleInterval / 1000;
    const us = (ms: number) => Math.round(ms * 1000);
    const mean = f.rtts.reduce((a, b) => a + b, 0) / Math.max(1, f.rtts.length);
    const client: IperfJson = {
      end: {
        streams: [
          {
            sender: {
              bytes: f.bytesAcked,
              seconds,
              retransmits: f.retrans,
              min_rtt: us(Math.min(...f.rtts)),
              mean_rtt: us(mean),
              max_rtt: us(Math.max(...f.rtts)),
              socket: 5,
            },
          },
        ],
        sum_sent: {
          bytes: f.bytesAcked,
          seconds,
          bits_per_second: (f.bytesAcked * 8) / seconds,
          retransmits: f.retrans,
        },
        sum_received: { bytes: f.bytesReceived, seconds, bits_per_second: (f.bytesReceived * 8) / seconds },
        cpu_utilization_percent: { host_total: 3, remote_total: 2 },
      },
    };
    return {
      flow: f.topo,
      client,
      server: null,
      intervals: f.intervals,
      observedStacks: [f.topo.stack],
      startedAtS: f.topo.startMs / 1000,
      error: null,
    };
  }
}
