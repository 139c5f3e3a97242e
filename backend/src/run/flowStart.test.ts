import { buildPlan, validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { checkFlowStarts, startAllowanceS } from './flowStart.js';

/** Three flows over 20 ms, sampled at 10 Hz: a clean start allows 4 × 20 ms + 2 ticks = 0.28 s. */
function flowsOf(duration: string) {
  const v = validateSpec({
    name: 'starts',
    duration,
    paths: { main: { rtt: '20ms', rate: '20Mbit' } },
    flows: [{ stack: 'reno' }, { stack: 'cdg' }, { stack: 'vegas' }],
  });
  if (!v.ok) throw new Error('bad spec');
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
    const oneSyn = checkFlowStarts(flowsOf('6s'), new Map([['cdg-2', 1.41]]), 10);
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

  it('lets a long flow lose a SYN: 1 s of 300 s passes', () => {
    expect(checkFlowStarts(flowsOf('300s'), new Map([['cdg-2', 1.41]]), 10).status).toBe('pass');
  });

  it('says nothing of flows the tcp sampler never saw', () => {
    expect(checkFlowStarts(flowsOf('6s'), new Map(), 10).status).toBe('skip');
  });
});
