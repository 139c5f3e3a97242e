import { describe, expect, it } from 'vitest';
import type { Sample } from '../run/samples.js';
import { Downsampler, RunChannel } from './liveHub.js';

const tcp = (t: number, flow = 'a'): Sample =>
  ({
    kind: 'tcp',
    t,
    flow,
    streams: 1,
    cc: 'reno',
    cwndPackets: 1,
    ssthreshPackets: null,
    srttMs: 1,
    rttvarMs: 1,
    minRttMs: 1,
    pacingBps: null,
    deliveryBps: 1,
    bytesAcked: 0,
    retransSegments: 0,
    lostPackets: 0,
    unackedPackets: 0,
    dataSegsOut: 0,
  }) as Sample;

describe('live hub', () => {
  it('keeps at most maxHz points per second per series', () => {
    const d = new Downsampler(10);
    const kept = (flow: string) =>
      Array.from({ length: 1000 }, (_, i) => tcp(i / 100, flow)).filter((s) => d.keep(s)).length;
    expect(kept('a')).toBe(100);
    expect(kept('b')).toBe(100);
  });

  it('numbers messages, keeps a bounded window and replays after a cursor', () => {
    const c = new RunChannel({ capacity: 5, maxHz: 1000 });
    for (let i = 0; i < 8; i++) c.sample(tcp(i));
    expect(c.lastSeq).toBe(8);
    expect(c.since(0).map((m) => m.seq)).toEqual([4, 5, 6, 7, 8]);
    expect(c.since(6).map((m) => m.seq)).toEqual([7, 8]);
    const got: number[] = [];
    const off = c.subscribe((m) => got.push(m.seq));
    c.publish({ type: 'progress', elapsedS: 1, totalS: 2 });
    off();
    c.publish({ type: 'event', event: 'done', data: {} });
    expect(got).toEqual([9]);
    expect(c.ended).toBe(true);
  });
});
