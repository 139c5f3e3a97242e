// A wire's flows as the lab sees them: lfn-flowmeter's half-flows (one direction of one
// connection) become one typed sample per flow and tick, and each flow's whole-run numbers from the
// lab's side (`labSide` in the summary), beside what iperf3 and the sender's sockets say.
import {
  type FlowmeterRecord,
  type FlowTopology,
  flowPorts,
  parseFlowmeterLine,
  type Sampler,
} from '@lfnlab/emulator';
import type { Sample, WireFlowSample } from './samples.js';

/** A flow's whole run from the lab's side. */
export interface LabSideFlow {
  /** Payload delivered toward the receiver for the first time, bytes, and as a rate over the flow's time. */
  bytes: number;
  goodputMbps: number;
  /** RTT from TCP timestamps, ms: least and median of the ticks' means (null without timestamps). */
  rttMs: { min: number; median: number } | null;
  retransSegments: number;
  peakFlightBytes: number;
}

/**
 * Which flow a half-flow's data belongs to: iperf3's client sends to the server's port, so a flow's
 * data half-flows are those to its port (the control connection's few hundred bytes included).
 */
const flowOf = (flows: FlowTopology[], r: FlowmeterRecord) =>
  flows.find((f) => flowPorts(f).includes(r.dstPort));

export class WireFlowDemux {
  private tick = -1;
  private t = 0;
  private acc = new Map<
    string,
    Omit<WireFlowSample, 'kind' | 't' | 'flow' | 'goodputBps'> & { rttSum: number }
  >();
  private readonly hz: number;

  constructor(
    sampler: Sampler,
    private readonly flows: FlowTopology[],
    private readonly time: (realMs: number) => number,
    private readonly emit: (s: Sample) => void,
  ) {
    this.hz = Number(sampler.argv[sampler.argv.indexOf('--hz') + 1]) || 10;
  }

  /** One output line; returns how many samples it completed, or 'end' for the closing record. */
  line(text: string): { records: number; samples: number; end?: Record<string, number | string> } {
    const r = parseFlowmeterLine(text);
    if (!r) return { records: 0, samples: 0 };
    if (r.type === 'end') {
      const { type: _t, ...end } = r;
      return { records: 0, samples: this.flush(), end };
    }
    const samples = r.tick !== this.tick ? this.flush() : 0;
    this.tick = r.tick;
    this.t = this.time(r.t);
    const f = flowOf(this.flows, r);
    if (!f) return { records: 1, samples };
    const a = this.acc.get(f.name) ?? {
      newBytes: 0,
      inBytes: 0,
      retransSegments: 0,
      flightBytes: 0,
      rttMs: null,
      rttMinMs: null,
      rttSamples: 0,
      rttSum: 0,
    };
    a.newBytes += r.newBytes;
    a.inBytes += r.inBytes;
    a.retransSegments += r.retransIn;
    a.flightBytes += r.flightBytes;
    if (r.rttN > 0 && r.rttMeanUs !== null && r.rttMinUs !== null) {
      a.rttSum += (r.rttMeanUs / 1000) * r.rttN;
      a.rttSamples += r.rttN;
      a.rttMinMs = Math.min(a.rttMinMs ?? Number.POSITIVE_INFINITY, r.rttMinUs / 1000);
    }
    this.acc.set(f.name, a);
    return { records: 1, samples };
  }

  /** The tick's samples, one per flow that had frames in it. */
  flush(): number {
    let n = 0;
    for (const [flow, a] of this.acc) {
      const { rttSum, ...v } = a;
      this.emit({
        kind: 'wireflow',
        t: this.t,
        flow,
        ...v,
        goodputBps: v.newBytes * 8 * this.hz,
        rttMs: v.rttSamples > 0 ? rttSum / v.rttSamples : null,
      });
      n++;
    }
    this.acc.clear();
    return n;
  }
}

/** A flow's whole run from the lab's side, from its wireflow samples; null when there are none. */
export function labSideOf(flow: { name: string; durationMs: number }, samples: Sample[]): LabSideFlow | null {
  const mine = samples.filter((s): s is WireFlowSample => s.kind === 'wireflow' && s.flow === flow.name);
  if (!mine.length) return null;
  const bytes = mine.reduce((a, s) => a + s.newBytes, 0);
  const rtts = mine.flatMap((s) => (s.rttMs === null ? [] : [s.rttMs])).sort((a, b) => a - b);
  const mins = mine.flatMap((s) => (s.rttMinMs === null ? [] : [s.rttMinMs]));
  return {
    bytes,
    goodputMbps: (bytes * 8) / (flow.durationMs / 1000) / 1e6,
    rttMs: rtts.length
      ? { min: Math.min(...mins), median: rtts[Math.floor((rtts.length - 1) / 2)] as number }
      : null,
    retransSegments: mine.reduce((a, s) => a + s.retransSegments, 0),
    peakFlightBytes: Math.max(...mine.map((s) => s.flightBytes)),
  };
}
