// Burst loss the spec did not ask for. A tail-drop FIFO of B packets only overflows without bursts
// when the flows crossing it have more than the pipe (BDP) plus B in flight. When every flow was in
// congestion avoidance (slow start's doubling bursts are the stack's own), had fewer than BDP + B/2
// packets in flight, and the queue sampler never saw the buffer half full around the drops, the
// queue overflowed in a burst the link made: bunched releases from late emulator timers. Reverse
// flows and UDP cross traffic put bursts on a path by design (ACK compression, their own load), so
// such paths are not judged.
import type { FlowTopology, PathTopology, Spec } from '@lfnlab/emulator';
import type { Check } from './fidelity.js';
import type { QueueSample, TcpFlowSample } from './samples.js';

export interface BurstDropCount {
  drops: number;
  /** Drops in sampling steps that match the burst signature. */
  burst: number;
  /** Drops while some flow was still in slow start (not judged). */
  slowStart: number;
}

/** Counts the forward bottleneck's drops by whether they match the burst signature. */
export function countBurstDrops(
  topo: PathTopology,
  flows: FlowTopology[],
  queue: QueueSample[],
  tcp: TcpFlowSample[],
): BurstDropCount {
  const names = new Set(
    flows.filter((f) => f.path === topo.name && f.direction === 'forward').map((f) => f.name),
  );
  const q = queue
    .filter((s) => s.path === topo.name && s.stage === 'bottleneck' && s.direction === 'forward')
    .sort((a, b) => a.t - b.t);
  const halfFull = Math.max(2, topo.bufferPackets.forward / 2);
  const pipe = topo.bdpPackets + topo.bufferPackets.forward / 2;
  const out: BurstDropCount = { drops: 0, burst: 0, slowStart: 0 };
  for (let i = 1; i < q.length; i++) {
    const a = q[i - 1] as QueueSample;
    const b = q[i] as QueueSample;
    const d = b.drops - a.drops;
    if (d <= 0) continue;
    out.drops += d;
    // Each flow's state when the step began: a flow not sampled yet, or in slow start then, makes
    // the step not judged (slow start's own bursts overflow small buffers).
    const span = b.t - a.t;
    const near = tcp.filter((s) => names.has(s.flow) && s.t >= a.t - span && s.t <= b.t);
    const before = [...names].map((n) =>
      tcp
        .filter((s) => s.flow === n && s.t <= a.t + 0.01)
        .reduce<TcpFlowSample | null>((m, s) => (m && m.t > s.t ? m : s), null),
    );
    const inSlowStart = before.some(
      (s) => s === null || s.ssthreshPackets === null || s.cwndPackets < s.ssthreshPackets,
    );
    if (inSlowStart) {
      out.slowStart += d;
      continue;
    }
    // In flight per flow: the most any sample in the window saw, summed over the flows.
    const inFlight = new Map<string, number>();
    for (const s of near) inFlight.set(s.flow, Math.max(inFlight.get(s.flow) ?? 0, s.unackedPackets));
    const total = [...inFlight.values()].reduce((x, y) => x + y, 0);
    const seenFull = a.backlogPackets >= halfFull || b.backlogPackets >= halfFull;
    if (total < pipe && !seenFull) out.burst += d;
  }
  return out;
}

/**
 * Warn from 10 burst drops making a quarter of the bottleneck's drops; fail from half of them.
 * When the same direction's packet-spacing check passed, the emulator provably released packets on
 * time, so the bursts came from the senders themselves (a window opening at once after loss
 * recovery sends a line-rate burst); they are then reported, not held against the lab.
 */
export function checkBurstDrops(
  spec: Spec,
  topo: PathTopology,
  flows: FlowTopology[],
  queue: QueueSample[],
  tcp: TcpFlowSample[],
  spacing?: Check,
): Check {
  const id = `burst-drops:${topo.name}`;
  const expected = 'no tail drops while the flows had less than the pipe in flight';
  const path = spec.paths[topo.name];
  const mixed =
    (path?.cross.length ?? 0) > 0 || flows.some((f) => f.path === topo.name && f.direction === 'reverse');
  if (mixed)
    return {
      id,
      status: 'skip',
      measured: null,
      expected,
      message: `${topo.name}: reverse flows or cross traffic make bursts by design; burst drops not judged`,
    };
  const c = countBurstDrops(topo, flows, queue, tcp);
  const share = c.drops ? c.burst / c.drops : 0;
  const status = c.burst >= 10 && share >= 0.5 ? 'fail' : c.burst >= 10 && share >= 0.25 ? 'warn' : 'pass';
  if (status !== 'pass' && spacing?.status === 'pass')
    return {
      id,
      status: 'pass',
      measured: c.burst,
      expected,
      message: `${topo.name} forward: ${c.burst} of ${c.drops} bottleneck drops match a burst, but the bottleneck's packet timing was exact (${spacing.message.replace(/^[^:]*: /, '')}): the senders' own bursts, not the emulator's`,
    };
  return {
    id,
    status,
    measured: c.burst,
    expected,
    message:
      c.burst > 0
        ? `${topo.name} forward: ${c.burst} of ${c.drops} bottleneck drops came while every flow was in congestion avoidance with less than BDP + half the buffer in flight and the queue never seen half full: bursts the emulator made (late timers), not the network`
        : `${topo.name} forward: no burst drops (${c.drops} drops, ${c.slowStart} of them in slow start)`,
  };
}
