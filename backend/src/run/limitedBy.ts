// What held each flow back, second by second: tcp_info's chrono counters say whether the sender
// waited on the receiver's window, on its send buffer, or had data in flight under its congestion
// window. In that last case the bottleneck decides between the network (it dropped or delivered
// its rate, or its queue came and went), the stack's own congestion control (the link idle, no
// queue, no loss: the window was smaller than the path could carry and nothing in the network set
// it, as when a delay-based stack backs off or a loss-based one regrows under the BDP), and the lab
// itself (a queue that outlasted a sampling step while the link sent under its rate: the emulated
// link is not keeping up; or the link idle while the lab's CPU was busy and the window unfilled:
// the sender could not keep up, or its pacing timers fired late). The lab's share means the numbers
// measure the emulator, not the stack.
import type { FlowTopology, PathTopology, Spec } from '@lfnlab/emulator';
import { type FlowLimit, LIMIT_KINDS, type LimitKind } from '@lfnlab/metrics/limits';
import { keptBusy } from './queueSteps.js';
import {
  type CpuSample,
  type QueueSample,
  type Sample,
  type TcpFlowSample,
  tcpSamplesOf,
} from './samples.js';

export {
  type FlowLimit,
  formatLimit,
  LIMIT_KINDS,
  LIMIT_NAMES,
  type LimitKind,
} from '@lfnlab/metrics/limits';

/**
 * A standing queue: the second's median backlog is at least this many packets. The median: under
 * TCG netem releases packets in bunches, so a lone sample may show a few packets queued at a link
 * that mostly idles.
 */
export const STANDING_QUEUE_PACKETS = 3;
/** Delivered rate at or above this share of the configured rate: the link was full. */
export const FULL_LINK = 0.9;
/** Lab CPU (percent of all vCPUs) at or above which an idle bottleneck under an unfilled window is the lab's. */
export const LAB_CPU_BUSY_PCT = 45;

interface Window {
  busy: number;
  rwnd: number;
  sndbuf: number;
  /** Sums over the window's samples: packets in flight and the congestion window. */
  inFlight: number;
  cwnd: number;
}

/** In flight below this share of the congestion window: the sender did not fill its window. */
export const WINDOW_FILLED = 0.8;

const byWindow = <T extends { t: number }>(xs: T[]) => {
  const m = new Map<number, T[]>();
  for (const x of xs) {
    const k = Math.floor(x.t);
    const list = m.get(k);
    if (list) list.push(x);
    else m.set(k, [x]);
  }
  return m;
};

type BottleneckState = 'full' | 'lagging' | 'queued' | 'idle';

/** What the run's link checks proved about a bottleneck direction over the whole run. */
export interface LinkProof {
  /** The packet-spacing check passed: the bottleneck released packets on time. */
  timing: boolean;
  /** The bottleneck-rate check passed: whenever it had work the link sent at its rate. */
  rate: boolean;
}

/**
 * The bottleneck over one 1 s window: full (it dropped, or delivered >= 90 % of its rate);
 * lagging (over the steps where its queue never ran dry it sent under 90 % of its rate: netem is
 * not keeping up, the emulator is the limit); queued but not full (a standing queue, but no step
 * proves the link had work throughout: the queue may have come and gone, as under ACK-compressed
 * bursts or a window sawing around the BDP; or steps that do prove it show the rate kept); or idle.
 */
function bottleneckState(
  queue: QueueSample[],
  prevLast: QueueSample | undefined,
  rateBps: number,
): BottleneckState {
  const first = prevLast ?? queue[0];
  const last = queue[queue.length - 1];
  if (first && last && last !== first) {
    if (last.drops > first.drops) return 'full';
    const dt = last.t - first.t;
    if (dt > 0 && ((last.bytes - first.bytes) * 8) / dt >= FULL_LINK * rateBps) return 'full';
  }
  const steps = prevLast ? [prevLast, ...queue] : queue;
  let sentBits = 0;
  let rateBits = 0;
  for (let i = 1; i < steps.length; i++) {
    const a = steps[i - 1] as QueueSample;
    const b = steps[i] as QueueSample;
    if (b.bytes < a.bytes || !keptBusy(a, b, rateBps)) continue;
    sentBits += (b.bytes - a.bytes) * 8;
    rateBits += rateBps * (b.t - a.t);
  }
  if (rateBits > 0) return sentBits < FULL_LINK * rateBits ? 'lagging' : 'queued';
  const backlog = queue.map((q) => q.backlogPackets).sort((a, b) => a - b);
  return (backlog[Math.floor(backlog.length / 2)] ?? 0) >= STANDING_QUEUE_PACKETS ? 'queued' : 'idle';
}

function flowLimit(
  tcp: TcpFlowSample[],
  queue: QueueSample[],
  cpu: CpuSample[],
  rateAt: (t: number) => number,
  proof: LinkProof,
): FlowLimit | null {
  const withChrono = tcp.filter((s) => s.busyUs !== undefined);
  if (withChrono.length < 2) return null;
  const perWindow = new Map<number, Window>();
  for (let i = 1; i < withChrono.length; i++) {
    const a = withChrono[i - 1] as TcpFlowSample;
    const b = withChrono[i] as TcpFlowSample;
    const busy = (b.busyUs ?? 0) - (a.busyUs ?? 0);
    // A stream that ended or restarted resets its lifetime counters: skip that step.
    if (busy < 0) continue;
    const k = Math.floor(b.t);
    const w = perWindow.get(k) ?? { busy: 0, rwnd: 0, sndbuf: 0, inFlight: 0, cwnd: 0 };
    w.inFlight += b.unackedPackets ?? 0;
    w.cwnd += b.cwndPackets ?? 0;
    w.busy += busy;
    w.rwnd += Math.max(0, (b.rwndLimitedUs ?? 0) - (a.rwndLimitedUs ?? 0));
    w.sndbuf += Math.max(0, (b.sndbufLimitedUs ?? 0) - (a.sndbufLimitedUs ?? 0));
    perWindow.set(k, w);
  }
  const queueBy = byWindow(queue);
  const cpuBy = byWindow(cpu);
  const us: Record<LimitKind, number> = {
    network: 0,
    'congestion-control': 0,
    'receiver-window': 0,
    'send-buffer': 0,
    sender: 0,
  };
  for (const [k, w] of perWindow) {
    // The counters tick in jiffies: a window's parts may add up to a little more than its busy time.
    const rwnd = Math.min(w.rwnd, w.busy);
    const sndbuf = Math.min(w.sndbuf, w.busy - rwnd);
    const cwnd = w.busy - rwnd - sndbuf;
    us['receiver-window'] += rwnd;
    us['send-buffer'] += sndbuf;
    if (cwnd <= 0) continue;
    const q = queueBy.get(k) ?? [];
    const prev = queueBy.get(k - 1);
    const cpus = cpuBy.get(k) ?? [];
    const cpuPct = cpus.length ? cpus.reduce((s, c) => s + c.busyPct, 0) / cpus.length : 0;
    const state = q.length ? bottleneckState(q, prev?.at(-1), rateAt(k)) : 'full';
    // An idle link under a flow that keeps its window full is the congestion control's choice
    // (regrowth after a loss, a delay-based back-off), and so is one left unfilled while the lab
    // is calm (pacing); unfilled while the lab's CPU is busy it is the lab's (no cycles to send, or
    // pacing timers firing late).
    const unfilled = w.cwnd > 0 && w.inFlight < WINDOW_FILLED * w.cwnd;
    // A queue under a link delivering less than its rate is the lab's only when nothing shows the
    // link kept pace: not exact packet timing, not this second's steps with work throughout, not
    // the run's rate check. Otherwise the queue came and went within the second (ACK-compressed
    // bursts, a window sawing around the BDP) and the link idled between: the network's doing.
    const labHeld =
      (state === 'lagging' && !proof.timing) ||
      (state === 'queued' && !proof.timing && !proof.rate) ||
      (state === 'idle' && unfilled && cpuPct >= LAB_CPU_BUSY_PCT);
    us[labHeld ? 'sender' : state === 'idle' ? 'congestion-control' : 'network'] += cwnd;
  }
  const total = LIMIT_KINDS.reduce((s, kind) => s + us[kind], 0);
  if (total <= 0) return null;
  const shares = Object.fromEntries(LIMIT_KINDS.map((kind) => [kind, us[kind] / total])) as Record<
    LimitKind,
    number
  >;
  const limitedBy = LIMIT_KINDS.reduce((best, kind) => (shares[kind] > shares[best] ? kind : best));
  return { limitedBy, shares, busyS: total / 1e6 };
}

/**
 * Per flow, what limited it; null for a flow without chrono samples (user-space transports, old
 * runs). `proof` says what the run's link checks proved per bottleneck direction (exact packet
 * timing, the rate kept whenever there was work): with either, a queue that came and went within a
 * second is not the emulator lagging.
 */
export function flowLimits(
  spec: Spec,
  paths: PathTopology[],
  flows: FlowTopology[],
  samples: Sample[],
  proof: (path: string, direction: 'forward' | 'reverse') => LinkProof = () => ({
    timing: false,
    rate: false,
  }),
): Record<string, FlowLimit | null> {
  const cpu = samples.filter((s): s is CpuSample => s.kind === 'cpu' && s.t >= 0);
  const out: Record<string, FlowLimit | null> = {};
  for (const f of flows) {
    const path = spec.paths[f.path];
    const topo = paths.find((p) => p.name === f.path);
    if (!path || !topo) {
      out[f.name] = null;
      continue;
    }
    // The forward rate follows the path's schedule of changes, as the fidelity check reads it.
    const rateAt = (t: number) =>
      f.direction === 'reverse'
        ? path.reverse.rate
        : ([...path.changes].reverse().find((c) => c.rate !== undefined && c.at <= t * 1000)?.rate ??
          path.rate);
    const tcp = tcpSamplesOf(samples, f.name);
    const queue = samples.filter(
      (s): s is QueueSample =>
        s.kind === 'queue' &&
        s.path === f.path &&
        s.stage === 'bottleneck' &&
        s.direction === f.direction &&
        s.t >= 0,
    );
    out[f.name] = flowLimit(tcp, queue, cpu, rateAt, proof(f.path, f.direction));
  }
  return out;
}
