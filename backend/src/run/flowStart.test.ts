import { buildPlan, validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { checkFlowStarts, sequentialConnectS, startAllowanceS } from './flowStart.js';
import { finishGraceS } from './schedule.js';

/** Three flows over 20 ms, sampled at 10 Hz: a clean start allows 4 × 20 ms + 2 ticks = 0.28 s. */
function flowsOf(duration: string, extra: Record<string, unknown> = {}) {
  const v = validateSpec({
    name: 'starts',
    duration,
    paths: { main: { rtt: '20ms', rate: '20Mbit' } },
    flows: [{ stack: 'reno' }, { stack: 'cdg' }, { stack: 'vegas', ...extra }],
  });
  if (!v.ok) throw new Error(`bad spec: ${JSON.stringify(v.problems)}`);
  return buildPlan(v.spec).topology.flows;
}

describe('checkFlowStarts', () => {
  it('allows the two handshakes and two sampler ticks', () => {
    expect(startAllowanceS({ rttMs: 20 }, 10)).toBeCloseTo(0.28, 9);
    expect(startAllowanceS({ rttMs: 600 }, 50)).toBeCloseTo(2.44, 9);
  });

  it('passes flows that began within their handshake', () => {
    const starts = new Map([
      ['reno-1', 0.21],
      ['cdg-2', 0.31],
      ['vegas-3', 0.5],
    ]);
    const c = checkFlowStarts(flowsOf('6s'), starts, 10);
    expect(c.status).toBe('pass');
    expect(c.measured).toBeCloseTo(0.22, 9);
  });

  it('makes a short run suspect when one SYN was lost, and invalid when a flow missed the others', () => {
    // Recorded in the lab: 17 flows into one BDP; cdg's data came up 7.41 s into a 6 s run.
    const onTime: [string, number][] = [
      ['reno-1', 0.2],
      ['vegas-3', 0.21],
    ];
    const oneSyn = checkFlowStarts(flowsOf('6s'), new Map([...onTime, ['cdg-2', 1.41]]), 10);
    expect(oneSyn.status).toBe('warn');
    expect(oneSyn.message).toContain('cdg-2 began 1.41 s after its planned 0.00 s (19 % of its 6.00 s)');
    const missed = checkFlowStarts(
      flowsOf('6s'),
      new Map([
        ['reno-1', 0.2],
        ['cdg-2', 7.41],
        ['vegas-3', 1.41],
      ]),
      10,
    );
    expect(missed.status).toBe('fail');
    expect(missed.measured).toBeCloseTo(7.13, 9);
    // The worst first.
    expect(missed.message.indexOf('cdg-2')).toBeLessThan(missed.message.indexOf('vegas-3'));
  });

  it("names iperf3's one-by-one stream connects as the cause of a parallel flow's late start", () => {
    // Recorded: one Scalable flow against 48 Reno streams at 1.2 s, 120 s; the streams' data began
    // 93.5 s in, all 48 up at 104 s, and the run was cut off 30 s past its planned end.
    const v = validateSpec({
      name: 'parallel',
      duration: '120s',
      paths: { main: { rtt: '1200ms', rate: '100Mbit' } },
      flows: [
        { name: 'one', stack: 'scalable' },
        { name: 'many', stack: 'reno', streams: 48 },
      ],
    });
    if (!v.ok) throw new Error('bad spec');
    const plan = buildPlan(v.spec);
    const [one, many] = plan.topology.flows;
    expect(one && sequentialConnectS(one)).toBe(0);
    expect(many && sequentialConnectS(many)).toBeCloseTo(56.4, 9);
    expect(finishGraceS(plan)).toBeCloseTo(142.8, 9);
    const c = checkFlowStarts(
      plan.topology.flows,
      new Map([
        ['one', 0.6],
        ['many', 93.5],
      ]),
      10,
    );
    expect(c.status).toBe('fail');
    expect(c.message).toContain('many began 93.50 s after its planned 0.00 s');
    expect(c.message).toContain(
      'iperf3 opens its 48 streams one after another, a round trip or more each: at least 56.40 s (`connect: together` starts them at once)',
    );
    // With one iperf3 per stream, started together, there is nothing to wait for.
    const together = buildPlan({
      ...v.spec,
      flows: v.spec.flows.map((f) => ({ ...f, connect: 'together' })),
    });
    expect(together.topology.flows.map(sequentialConnectS)).toEqual([0, 0]);
    expect(finishGraceS(together)).toBe(30);
  });

  it('lets a long flow lose a SYN: 1 s of 300 s passes', () => {
    const starts = new Map([
      ['reno-1', 0.2],
      ['cdg-2', 1.41],
      ['vegas-3', 0.21],
    ]);
    expect(checkFlowStarts(flowsOf('300s'), starts, 10).status).toBe('pass');
  });

  it('fails a flow that began no data stream while the sampler dated the others', () => {
    // Recorded in CI: 17 flows into one BDP, vegas's data never passed 64 KiB in its 6 s.
    const starts = new Map([
      ['reno-1', 0.2],
      ['cdg-2', 0.21],
    ]);
    const c = checkFlowStarts(flowsOf('6s'), starts, 10, 6);
    expect(c.status).toBe('fail');
    expect(c.message).toContain('vegas-3 began no data stream (64 KiB acknowledged) in its 6.00 s');
    expect(c.measured).toBe(6);
    // Beside a late one, both are named, the missing flow first.
    const both = checkFlowStarts(flowsOf('300s'), new Map([['reno-1', 0.2]]), 10, 300);
    expect(both.status).toBe('fail');
    expect(both.message).toMatch(/^cdg-2, vegas-3 began no data stream .* in their runs/);
  });

  it('does not expect a data stream from a sized transfer or a window too small to fill one', () => {
    const starts = new Map([
      ['reno-1', 0.2],
      ['cdg-2', 0.21],
    ]);
    // A 4-packet window for 6 s at 20 ms is 300 windows, megabytes; 4 KiB for 1 s at 600 ms is
    // under two streams' worth.
    expect(checkFlowStarts(flowsOf('6s', { bytes: '20KB' }), starts, 10, 6).status).toBe('pass');
    expect(checkFlowStarts(flowsOf('6s', { window: '4packets' }), starts, 10, 6).status).toBe('fail');
    const slow = checkFlowStarts(flowsOf('1s', { window: '4096B', rtt: '600ms' }), starts, 10, 1);
    expect(slow.status).toBe('pass');
  });

  it('says nothing of a missing flow once the sampling ended before it would be late', () => {
    const starts = new Map([
      ['reno-1', 0.2],
      ['cdg-2', 0.21],
    ]);
    // Late by a quarter of 6 s past its 0.28 s allowance at 1.78 s: a run cut at 1.7 s cannot tell.
    expect(checkFlowStarts(flowsOf('6s'), starts, 10, 1.7).status).toBe('pass');
    expect(checkFlowStarts(flowsOf('6s'), starts, 10, 1.8).status).toBe('fail');
    expect(checkFlowStarts(flowsOf('6s'), starts, 10).status).toBe('pass');
  });

  it('says nothing of flows the tcp sampler never saw', () => {
    expect(checkFlowStarts(flowsOf('6s'), new Map(), 10).status).toBe('skip');
  });
});
