import { INFLUX_SCHEMA, MEASUREMENTS } from '@lfnlab/grafana';
import { describe, expect, it } from 'vitest';
import { lineProtocol, type RunContext, samplePoint } from './points.js';

const ctx: RunContext = {
  runId: 'r1',
  user: 'ada',
  t0EpochMs: 1_700_000_000_000,
  flows: { 'cubic-1': { stack: 'cubic', path: 'main', direction: 'forward' } },
};

describe('sample points', () => {
  it('turns a TCP sample into a tagged point on the lab clock, nanoseconds exact', () => {
    const p = samplePoint(ctx, {
      kind: 'tcp',
      t: 1.25,
      flow: 'cubic-1',
      streams: 1,
      cc: 'cubic',
      cwndPackets: 120,
      ssthreshPackets: null,
      srttMs: 50.5,
      rttvarMs: 1,
      minRttMs: 50,
      pacingBps: null,
      deliveryBps: 9e7,
      bytesAcked: 1e6,
      retransSegments: 3,
      lostPackets: 0,
      unackedPackets: 119,
      dataSegsOut: 800,
    });
    expect(p.measurement).toBe('lfn_tcp');
    expect(p.tags).toEqual({
      run: 'r1',
      user: 'ada',
      flow: 'cubic-1',
      stack: 'cubic',
      path: 'main',
      direction: 'forward',
    });
    expect(p.fields).not.toHaveProperty('ssthresh_packets'); // null is left out, not written as 0
    expect(p.timeNs).toBe('1700000001250000000');
    expect(lineProtocol(p)).toBe(
      'lfn_tcp,direction=forward,flow=cubic-1,path=main,run=r1,stack=cubic,user=ada streams=1,cwnd_packets=120,srtt_ms=50.5,rttvar_ms=1,min_rtt_ms=50,delivery_bps=90000000,bytes_acked=1000000,retrans_segments=3,lost_packets=0,unacked_packets=119,data_segs_out=800 1700000001250000000',
    );
  });
  it('escapes tag values and keeps every field in the schema', () => {
    const p = samplePoint(
      { ...ctx, runId: 'a b,c=d' },
      { kind: 'rtt', t: 0, path: 'main', rttMs: 20.1, seq: 4 },
    );
    expect(lineProtocol(p)).toBe(
      'lfn_rtt,path=main,run=a\\ b\\,c\\=d,user=ada rtt_ms=20.1,seq=4 1700000000000000000',
    );
    for (const m of Object.values(MEASUREMENTS).filter((m) => m !== 'lfn_health'))
      expect(INFLUX_SCHEMA[m].tags).toContain('run');
    expect(Object.keys(p.fields).every((f) => f in INFLUX_SCHEMA.lfn_rtt.fields)).toBe(true);
  });
});
