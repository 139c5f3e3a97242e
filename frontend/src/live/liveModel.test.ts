import { describe, expect, it } from 'vitest';
import type { LiveMessage } from '../api/types';
import { goodputSample, queueSample, tcpSample } from '../bench/syntheticRun';
import { LiveModel } from './liveModel';

const q = (seq: number, t: number, drops: number): LiveMessage => ({
  seq,
  type: 'sample',
  sample: queueSample(t, 'main', 10, drops),
});

describe('LiveModel', () => {
  it('routes samples to the charts in display units and ignores replayed seqs', () => {
    const m = new LiveModel(64, 0.1);
    m.apply({ seq: 1, type: 'sample', sample: goodputSample(0.1, 'a', 50e6) });
    m.apply({ seq: 1, type: 'sample', sample: goodputSample(0.1, 'a', 99e6) });
    m.apply({ seq: 2, type: 'sample', sample: tcpSample(0.1, 'a', 80, 71) });
    m.apply({ seq: 3, type: 'progress', elapsedS: 3, totalS: 10 });
    expect(m.charts.throughput.toColumns()[1]).toEqual([null, 50]); // bucket 0 (0-0.1 s) is empty
    expect(m.charts.cwnd.toColumns()[1]).toEqual([null, 80]);
    expect(m.charts.rtt.names).toEqual(['a']);
    expect(m.progress).toEqual({ elapsedS: 3, totalS: 10 });
  });

  it('finds loss bursts in the cumulative drop counter', () => {
    const m = new LiveModel(64, 0.1);
    m.apply(q(1, 1, 0));
    m.apply(q(2, 1.1, 5));
    m.apply(q(3, 1.2, 12));
    m.apply(q(4, 2.5, 12));
    const bursts = m.events.filter((e) => e.kind === 'loss-burst');
    expect(bursts).toHaveLength(1);
    expect(bursts[0]?.text).toMatch(/12 packets dropped/);
    expect(bursts[0]?.tS).toBe(1.1);
  });

  it('names flow events and ends on done', () => {
    const m = new LiveModel();
    m.apply({ seq: 1, type: 'event', event: 'flow-started', data: { flow: 'reno', t: 0 } });
    m.apply({ seq: 2, type: 'event', event: 'done', data: { status: 'completed' } });
    expect(m.events.map((e) => e.text)).toEqual(['Flow reno started', 'Run finished (completed)']);
    expect(m.done).toBe(true);
  });
});
