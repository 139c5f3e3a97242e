import { buildPlan, validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { checkBurstDrops, countBurstDrops } from './burstDrops.js';
import type { QueueSample, TcpFlowSample } from './samples.js';

function setup(extra: Record<string, unknown> = {}) {
  const v = validateSpec({
    name: 'b',
    duration: '20s',
    paths: { main: { rtt: '100ms', rate: '50Mbit', buffer: '0.05bdp' } },
    flows: [{ name: 'reno', stack: 'reno' }],
    ...extra,
  });
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  const plan = buildPlan(v.spec);
  return { spec: v.spec, topo: plan.topology.paths[0]!, flows: plan.topology.flows };
}

const queue = (t: number, backlog: number, drops: number): QueueSample => ({
  kind: 'queue',
  t,
  path: 'main',
  stage: 'bottleneck',
  direction: 'forward',
  dev: 'p0-fwd',
  backlogPackets: backlog,
  backlogBytes: backlog * 1514,
  drops,
  packets: 0,
  bytes: 0,
});

const tcp = (t: number, cwnd: number, ssthresh: number | null, unacked = cwnd): TcpFlowSample => ({
  kind: 'tcp',
  t,
  flow: 'reno',
  streams: 1,
  cc: 'reno',
  cwndPackets: cwnd,
  ssthreshPackets: ssthresh,
  srttMs: 100,
  rttvarMs: 1,
  minRttMs: 100,
  pacingBps: null,
  deliveryBps: 0,
  bytesAcked: 0,
  retransSegments: 0,
  lostPackets: 0,
  unackedPackets: unacked,
  dataSegsOut: 0,
});

/** Samples every 0.1 s from 0 to 3 s; drops `n` in the step ending at 2 s. */
function run(backlogAtDrop: number, cwnd: number, ssthresh: number | null, n = 40) {
  const q: QueueSample[] = [];
  const t: TcpFlowSample[] = [];
  for (let i = 0; i <= 30; i++) {
    const at = i / 10;
    q.push(queue(at, at === 2 ? backlogAtDrop : 1, at >= 2 ? n : 0));
    t.push(tcp(at, cwnd, ssthresh));
  }
  return { q, t };
}

describe('burst drops', () => {
  it('fails drops in congestion avoidance with far less than the pipe in flight and the queue never seen half full', () => {
    const { spec, topo, flows } = setup();
    const { q, t } = run(0, 80, 40); // the pipe holds ~433 packets; 80 in flight cannot overflow 21
    const c = checkBurstDrops(spec, topo, flows, q, t);
    expect(c.status).toBe('fail');
    expect(c.measured).toBe(40);
    expect(c.message).toMatch(/late timers/);
  });

  it("reports the same drops as the senders' own bursts when the packet timing was exact", () => {
    const { spec, topo, flows } = setup();
    const { q, t } = run(0, 80, 40);
    const check = (status: 'pass' | 'fail' | 'skip') =>
      ({
        id: 'packet-spacing:main:forward',
        status,
        measured: 0.98,
        expected: '',
        message: 'main forward: 98.0 % of 900 busy dequeue gaps within 10 %',
      }) as const;
    const exact = checkBurstDrops(spec, topo, flows, q, t, check('pass'));
    expect(exact.status).toBe('pass');
    expect(exact.measured).toBe(40);
    expect(exact.message).toMatch(/senders' own bursts/);
    // Timing not proven (bunched, or not judged): the lab stays the suspect.
    expect(checkBurstDrops(spec, topo, flows, q, t, check('fail')).status).toBe('fail');
    expect(checkBurstDrops(spec, topo, flows, q, t, check('skip')).status).toBe('fail');
  });

  it('passes the same drops when the flow filled the pipe or the queue was seen near full', () => {
    const { spec, topo, flows } = setup();
    const full = run(0, topo.bdpPackets + topo.bufferPackets.forward, 40);
    expect(checkBurstDrops(spec, topo, flows, full.q, full.t).status).toBe('pass');
    const seen = run(topo.bufferPackets.forward, 80, 40);
    expect(checkBurstDrops(spec, topo, flows, seen.q, seen.t).status).toBe('pass');
  });

  it('leaves slow start alone: its doubling bursts overflow a small buffer by themselves', () => {
    const { spec, topo, flows } = setup();
    const { q, t } = run(0, 60, null);
    expect(countBurstDrops(topo, flows, q, t)).toEqual({ drops: 40, burst: 0, slowStart: 40 });
    expect(checkBurstDrops(spec, topo, flows, q, t).status).toBe('pass');
  });

  it('warns when burst drops are a quarter to a half of all drops, and ignores a handful', () => {
    const { spec, topo, flows } = setup();
    const { q, t } = run(0, 80, 40, 12);
    // 12 burst drops plus 24 more at 2.5 s with the queue seen full.
    for (const s of q) if (s.t >= 2.5) s.drops += 24;
    const at25 = q.find((s) => s.t === 2.5);
    if (at25) at25.backlogPackets = topo.bufferPackets.forward;
    expect(checkBurstDrops(spec, topo, flows, q, t).status).toBe('warn');
    const few = run(0, 80, 40, 5);
    expect(checkBurstDrops(spec, topo, flows, few.q, few.t).status).toBe('pass');
  });

  it('does not judge a drop step before which the flow was not sampled yet (slow start at a low sample rate)', () => {
    const { spec, topo, flows } = setup();
    const { q, t } = run(0, 80, 40);
    // The first TCP sample comes after the step with the drops, already past slow start.
    const late = t.filter((s) => s.t > 2);
    expect(countBurstDrops(topo, flows, q, late).burst).toBe(0);
    expect(checkBurstDrops(spec, topo, flows, q, late).status).toBe('pass');
  });

  it('does not judge paths with reverse flows or cross traffic', () => {
    const { spec, topo, flows } = setup({
      flows: [
        { name: 'reno', stack: 'reno' },
        { name: 'back', stack: 'reno', direction: 'reverse' },
      ],
    });
    const { q, t } = run(0, 80, 40);
    expect(checkBurstDrops(spec, topo, flows, q, t).status).toBe('skip');
  });
});
