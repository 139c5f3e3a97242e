// Sampler output → typed samples, live. Each sampler's lines arrive in batches over the control
// channel; a tick is complete when a later tick's first record (or the end record) arrives.
import {
  type FlowTopology,
  flowPorts,
  type PktTimingWindow,
  type Plan,
  parsePktTimingLine,
  parseQdiscStatLine,
  parseSamplerLine,
  parseUdpSinkLine,
  type Sampler,
  type SamplerEnd,
  type TcpSample,
  type VegasInfo,
} from '@lfnlab/emulator';
import { QdiscDemux } from './qdiscDemux.js';
import type { GoodputSample, RttSample, Sample, TcpFlowSample, UdpSample } from './samples.js';
import { WireFlowDemux } from './wireFlows.js';

/**
 * iperf3's control connection shares the flow's port. It never carries more than a few KiB (the
 * parameters and results as JSON), so a socket that has moved more than this is a data stream.
 */
export const DATA_STREAM_BYTES = 64 * 1024;

export interface SamplerCounters {
  name: string;
  kind: Sampler['kind'];
  /** Lines received from the lab. */
  lines: number;
  /** Data records among them (what the sampler's closing `records` counter must equal). */
  records: number;
  /** Typed samples produced from them. */
  samples: number;
  /** The sampler's own closing counters, when it ended cleanly. */
  end: Record<string, number | string> | null;
  /** Lines that did not parse (kept in the raw file, counted here). */
  unparsed: number;
}

type Emit = (s: Sample) => void;

/** Splits a stream of chunks into whole lines. */
class Lines {
  private rest = '';
  push(chunk: string): string[] {
    const parts = (this.rest + chunk).split('\n');
    this.rest = parts.pop() ?? '';
    return parts;
  }
  flush(): string[] {
    const r = this.rest;
    this.rest = '';
    return r ? [r] : [];
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** A socket's tcpvegas_info as a flow sample's vegas* fields (none when it gave none). */
const vegasFields = (v: VegasInfo | null | undefined): Partial<TcpFlowSample> =>
  v ? { vegasEnabled: v.enabled, vegasRttcnt: v.rttcnt, vegasRtt: v.rtt, vegasMinrtt: v.minrtt } : {};

class TcpDemux {
  private tick: TcpSample[] = [];
  private dataSockets = new Set<string>();
  /** When each socket was first seen established (its clock, ms): a data stream is dated from it. */
  private firstSeenMs = new Map<string, number>();
  /** Per flow, when each of its data streams came up (its clock, ms), by socket cookie. */
  private streamsUp = new Map<string, Map<string, number>>();
  /**
   * Per flow, when its data began (s from t0), seen from the sender's side: when the last of its
   * data streams came up. iperf3 -P sends on none before its last stream is connected; recorded
   * in the lab: 8 streams at 400 ms first seen at 2.1 s, their data flowing from about 14 s.
   */
  readonly dataStarts = new Map<string, number>();
  private lastReceived = new Map<string, { bytes: number; monoMs: number }>();

  constructor(
    private readonly ns: string,
    private readonly flows: FlowTopology[],
    private readonly t: (realMs: number) => number,
    private readonly emit: Emit,
  ) {}

  record(r: TcpSample): number {
    let n = 0;
    if (this.tick.length && this.tick[0]?.tick !== r.tick) n = this.flushTick();
    if (!this.firstSeenMs.has(r.cookie)) this.firstSeenMs.set(r.cookie, r.timeMs);
    this.tick.push(r);
    return n;
  }

  /** Aggregates one tick's sockets per flow: sender state where the flow's client runs, goodput where its server runs. */
  flushTick(): number {
    const recs = this.tick;
    this.tick = [];
    if (!recs.length) return 0;
    let n = 0;
    const first = recs[0] as TcpSample;
    for (const f of this.flows) {
      if (f.clientNs === this.ns) {
        const socks = recs.filter((r) => flowPorts(f).includes(r.remotePort) && this.isData(r, r.bytesAcked));
        if (socks.length) {
          const up = this.streamsUp.get(f.name) ?? new Map<string, number>();
          const before = up.size;
          for (const s of socks)
            if (!up.has(s.cookie)) up.set(s.cookie, this.firstSeenMs.get(s.cookie) ?? first.timeMs);
          this.streamsUp.set(f.name, up);
          if (up.size > before) this.dataStarts.set(f.name, this.t(Math.max(...up.values())));
          const ssth = socks.map((s) => s.ssthreshPackets).filter((x): x is number => x !== null);
          const minRtts = socks.map((s) => s.minRttUs).filter((x): x is number => x !== null);
          const pacing = socks.map((s) => s.pacingRateBytesPerS).filter((x): x is number => x !== null);
          const sample: TcpFlowSample = {
            kind: 'tcp',
            t: this.t(first.timeMs),
            flow: f.name,
            streams: socks.length,
            cc: [...new Set(socks.map((s) => s.cc ?? '?'))].join(','),
            cwndPackets: socks.reduce((a, s) => a + s.cwndPackets, 0),
            ssthreshPackets: ssth.length ? ssth.reduce((a, b) => a + b, 0) : null,
            srttMs: mean(socks.map((s) => s.srttUs)) / 1000,
            rttvarMs: mean(socks.map((s) => s.rttvarUs)) / 1000,
            minRttMs: minRtts.length ? Math.min(...minRtts) / 1000 : null,
            pacingBps: pacing.length ? pacing.reduce((a, b) => a + b, 0) * 8 : null,
            deliveryBps: socks.reduce((a, s) => a + s.deliveryRateBytesPerS, 0) * 8,
            bytesAcked: socks.reduce((a, s) => a + s.bytesAcked, 0),
            retransSegments: socks.reduce((a, s) => a + s.totalRetrans, 0),
            lostPackets: socks.reduce((a, s) => a + s.lostPackets, 0),
            unackedPackets: socks.reduce((a, s) => a + s.unackedPackets, 0),
            dataSegsOut: socks.reduce((a, s) => a + s.dataSegsOut, 0),
            busyUs: socks.reduce((a, s) => a + s.busyUs, 0),
            rwndLimitedUs: socks.reduce((a, s) => a + s.rwndLimitedUs, 0),
            sndbufLimitedUs: socks.reduce((a, s) => a + s.sndbufLimitedUs, 0),
            // Several streams have several states: only a one-socket flow's is kept.
            ...vegasFields(socks.length === 1 ? socks[0]?.vegas : null),
          };
          this.emit(sample);
          n++;
        }
      }
      if (f.serverNs === this.ns) {
        const socks = recs.filter(
          (r) => flowPorts(f).includes(r.localPort) && this.isData(r, r.bytesReceived),
        );
        if (socks.length) {
          const bytes = socks.reduce((a, s) => a + s.bytesReceived, 0);
          const prev = this.lastReceived.get(f.name);
          this.lastReceived.set(f.name, { bytes, monoMs: first.monoMs });
          if (prev && first.monoMs > prev.monoMs && bytes >= prev.bytes) {
            const g: GoodputSample = {
              kind: 'goodput',
              t: this.t(first.timeMs),
              flow: f.name,
              bps: ((bytes - prev.bytes) * 8) / ((first.monoMs - prev.monoMs) / 1000),
              bytesReceived: bytes,
            };
            this.emit(g);
            n++;
          }
        }
      }
    }
    return n;
  }

  private isData(r: TcpSample, bytes: number): boolean {
    if (this.dataSockets.has(r.cookie)) return true;
    if (bytes > DATA_STREAM_BYTES) {
      this.dataSockets.add(r.cookie);
      return true;
    }
    return false;
  }
}

/** `[1732200000.123456] 64 bytes from 10.1.2.2: icmp_seq=12 ttl=63 time=50.3 ms` */
const PING_LINE = /^\[(\d+\.\d+)\].*icmp_seq=(\d+).*time=([\d.]+) ms/;

export class SampleDemux {
  private lines = new Map<string, Lines>();
  private tcp = new Map<string, TcpDemux>();
  private wire = new Map<string, WireFlowDemux>();
  private qdisc: QdiscDemux;
  readonly counters = new Map<string, SamplerCounters>();
  /** The packet-timing capture's windows, judged after the run (timingChecks.ts). */
  readonly timing: PktTimingWindow[] = [];

  /**
   * When each TCP flow's data began, s from t0: the first sighting of its last data stream, so
   * within one sampler tick of that handshake. iperf3 times its intervals from that moment, which
   * can be seconds after the process started when a SYN was lost, and a round trip or more per
   * stream with -P.
   */
  get dataStarts(): Map<string, number> {
    const out = new Map<string, number>();
    for (const d of this.tcp.values())
      for (const [flow, t] of d.dataStarts) out.set(flow, Math.min(t, out.get(flow) ?? t));
    return out;
  }
  private readonly labT: (realMs: number) => number;
  private readonly hostsT: (realMs: number) => number;

  /**
   * `t0RealMs`: the lab's CLOCK_REALTIME at traffic start, so sample times line up with the
   * schedule whatever the host's clock says; for a wire also the lab host's at the same moment,
   * for the samplers on its external hosts (`on: 'hosts'`).
   */
  constructor(
    private readonly plan: Plan,
    t0RealMs: number | { lab: number; hosts: number },
    private readonly emit: Emit,
    private readonly raw?: (sampler: string, text: string) => void,
  ) {
    const t0 = typeof t0RealMs === 'number' ? { lab: t0RealMs, hosts: t0RealMs } : t0RealMs;
    this.labT = (realMs: number) => Math.round(realMs - t0.lab) / 1000;
    this.hostsT = (realMs: number) => Math.round(realMs - t0.hosts) / 1000;
    this.qdisc = new QdiscDemux(plan, this.labT, emit);
    for (const s of plan.samplers) {
      this.counters.set(s.name, {
        name: s.name,
        kind: s.kind,
        lines: 0,
        records: 0,
        samples: 0,
        end: null,
        unparsed: 0,
      });
      this.lines.set(s.name, new Lines());
      if (s.kind === 'tcp')
        this.tcp.set(s.name, new TcpDemux(s.ns, plan.topology.flows, this.clockOf(s), emit));
      if (s.kind === 'flowmeter')
        this.wire.set(s.name, new WireFlowDemux(s, plan.topology.flows, this.clockOf(s), emit));
    }
  }

  /** Seconds from t0 for a sampler's own stamps: the lab's clock, or the lab host's. */
  private clockOf(s: { on?: 'hosts' }): (realMs: number) => number {
    return s.on === 'hosts' ? this.hostsT : this.labT;
  }

  feed(name: string, chunk: string): void {
    const lines = this.lines.get(name);
    if (!lines) return;
    this.raw?.(name, chunk);
    for (const l of lines.push(chunk)) this.line(name, l);
  }

  /** The sampler exited: flush its partial line and its last tick. */
  end(name: string): void {
    for (const l of this.lines.get(name)?.flush() ?? []) this.line(name, l);
    const c = this.counters.get(name);
    const tcp = this.tcp.get(name);
    if (c && tcp) c.samples += tcp.flushTick();
    const wire = this.wire.get(name);
    if (c && wire) c.samples += wire.flush();
  }

  private line(name: string, line: string): void {
    const c = this.counters.get(name);
    const sampler = this.plan.samplers.find((s) => s.name === name);
    if (!c || !sampler || !line.trim()) return;
    c.lines++;
    try {
      if (sampler.kind === 'tcp') {
        const r = parseSamplerLine(line);
        if (r?.type === 'sample') {
          c.records++;
          c.samples += this.tcp.get(name)?.record(r) ?? 0;
        } else if (r?.type === 'end') c.end = endCounters(r);
      } else if (sampler.kind === 'qdisc') {
        const r = parseQdiscStatLine(line);
        if (r?.type === 'qdisc' || r?.type === 'cpu') c.records++;
        if (r?.type === 'qdisc') c.samples += this.qdisc.qdisc(r);
        else if (r?.type === 'cpu') c.samples += this.qdisc.cpu(r);
        else if (r?.type === 'end') c.end = endCounters(r);
      } else if (sampler.kind === 'udpsink') {
        const r = parseUdpSinkLine(line);
        if (r?.type === 'interval') {
          c.records++;
          const s: UdpSample = {
            kind: 'udp',
            t: this.clockOf(sampler)(r.timeMs + r.intervalMs),
            source: sampler.name.replace(/^udpsink:/, ''),
            path: sampler.path ?? '',
            bps: r.rateBps,
            lost: r.lost,
            owdMeanMs: r.owdMeanUs === null ? null : r.owdMeanUs / 1000,
          };
          this.emit(s);
          c.samples++;
        } else if (r?.type === 'end') c.end = endCounters(r as never);
      } else if (sampler.kind === 'flowmeter') {
        const r = this.wire.get(name)?.line(line);
        if (r) {
          c.records += r.records;
          c.samples += r.samples;
          if (r.end) c.end = r.end;
        }
      } else if (sampler.kind === 'timing') {
        const r = parsePktTimingLine(line);
        if (r?.type === 'window') {
          c.records++;
          this.timing.push(r);
        } else if (r?.type === 'end') c.end = endCounters(r as never);
      } else if (sampler.kind === 'ping') {
        const m = PING_LINE.exec(line);
        if (m) {
          const s: RttSample = {
            kind: 'rtt',
            t: this.clockOf(sampler)(Number(m[1]) * 1000),
            path: sampler.path ?? '',
            rttMs: Number(m[3]),
            seq: Number(m[2]),
          };
          this.emit(s);
          c.samples++;
        } else {
          const stats = /(\d+) packets transmitted, (\d+) received/.exec(line);
          if (stats) c.end = { sent: Number(stats[1]), received: Number(stats[2]) };
        }
      }
    } catch {
      c.unparsed++;
    }
  }
}

function endCounters(r: SamplerEnd | { type: 'end' }): Record<string, number | string> {
  const { type: _t, ...rest } = r as unknown as Record<string, number | string>;
  return rest;
}
