// The typed samples a run produces. Every consumer (run directory, live stream, later the
// database and the UI) takes these; nothing downstream parses sampler output again.
import type { IntervalSample } from './iperf.js';

export type { IntervalSample };

/** A flow's sender-side TCP state at one tick, summed or averaged over its data streams. */
export interface TcpFlowSample {
  kind: 'tcp';
  /** s from traffic start */
  t: number;
  flow: string;
  streams: number;
  /** Stack names the sockets report. */
  cc: string;
  cwndPackets: number;
  ssthreshPackets: number | null;
  srttMs: number;
  rttvarMs: number;
  minRttMs: number | null;
  pacingBps: number | null;
  deliveryBps: number;
  bytesAcked: number;
  retransSegments: number;
  lostPackets: number;
  unackedPackets: number;
  dataSegsOut: number;
  /**
   * tcp_info's chrono counters, lifetime µs summed over the streams (absent in older records):
   * time with data in flight, and the parts of it held by the receiver's window and by the send
   * buffer; the rest was the congestion window's (what limitedBy.ts reads).
   */
  busyUs?: number;
  rwndLimitedUs?: number;
  sndbufLimitedUs?: number;
  /**
   * The stack's own state (tcpvegas_info, raw), for a one-stream flow whose stack gives it; each
   * stack's get_info says what the four numbers are (Vegas: enabled, RTTs this round, last RTT µs,
   * base RTT µs; tcp_hstcplp: inference on, reactions, smoothed queueing delay µs, threshold µs;
   * tcp_fast: mode, updates, average RTT µs, base RTT µs). Absent otherwise and in older records.
   */
  vegasEnabled?: number;
  vegasRttcnt?: number;
  vegasRtt?: number;
  vegasMinrtt?: number;
}

/** Goodput of a flow at its receiver: the change in bytes received since the previous tick. */
export interface GoodputSample {
  kind: 'goodput';
  t: number;
  flow: string;
  bps: number;
  bytesReceived: number;
}

/** A router qdisc at one tick. */
export interface QueueSample {
  kind: 'queue';
  t: number;
  path: string;
  stage: 'bottleneck' | 'delay';
  direction: 'forward' | 'reverse';
  dev: string;
  backlogPackets: number;
  backlogBytes: number;
  drops: number;
  packets: number;
  bytes: number;
}

/** The lab's CPU use between two ticks, percent of all CPUs. */
export interface CpuSample {
  kind: 'cpu';
  t: number;
  busyPct: number;
  userPct: number;
  systemPct: number;
  softirqPct: number;
}

/** One reply of a path's RTT probe. */
export interface RttSample {
  kind: 'rtt';
  t: number;
  path: string;
  rttMs: number;
  seq: number;
}

/** UDP cross traffic as its sink received it over one report interval. */
export interface UdpSample {
  kind: 'udp';
  t: number;
  source: string;
  path: string;
  /** bit/s at the IP layer. */
  bps: number;
  lost: number;
  /** Mean one-way delay, ms; null when nothing arrived. */
  owdMeanMs: number | null;
}

/**
 * A wire's flow as the lab saw it on its two ports over one sampler tick (lfn-flowmeter, summed
 * over the flow's connections): what the sender put in, what left toward the receiver for the
 * first time, the window in flight and the RTT from TCP timestamps, all from the lab's side.
 */
export interface WireFlowSample {
  kind: 'wireflow';
  t: number;
  flow: string;
  /** Payload that left the lab toward the receiver for the first time this tick, bytes. */
  newBytes: number;
  /** The same as a rate over the tick, bit/s: goodput at the lab's exit. */
  goodputBps: number;
  /** Payload the sender put into the lab this tick, retransmissions included, bytes. */
  inBytes: number;
  /** Data segments that entered at or below what had entered already. */
  retransSegments: number;
  /** Highest sequence sent minus highest ACK, bytes: the sender's window as the lab sees it. */
  flightBytes: number;
  /** RTT from TCP timestamps, ms: the mean and the least of this tick's samples (null: none). */
  rttMs: number | null;
  rttMinMs: number | null;
  rttSamples: number;
}

export type Sample =
  | IntervalSample
  | TcpFlowSample
  | GoodputSample
  | QueueSample
  | CpuSample
  | RttSample
  | UdpSample
  | WireFlowSample;
export type SampleKind = Sample['kind'];

/** One flow's TCP samples from traffic start on (ticks before it precede every flow). */
export function tcpSamplesOf(samples: readonly Sample[], flow: string): TcpFlowSample[] {
  return samples.filter((s): s is TcpFlowSample => s.kind === 'tcp' && s.flow === flow && s.t >= 0);
}
export const SAMPLE_KINDS: SampleKind[] = [
  'interval',
  'tcp',
  'goodput',
  'queue',
  'cpu',
  'rtt',
  'udp',
  'wireflow',
];
