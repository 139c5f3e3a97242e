// iperf3 -J output → per-flow interval samples. iperf3 3.12 has no live JSON stream, so the
// intervals arrive when each process ends; they become the same typed samples a live sampler
// will produce.

export interface IperfStreamInterval {
  socket: number;
  start: number;
  end: number;
  bytes: number;
  bits_per_second: number;
  retransmits?: number;
  snd_cwnd?: number;
  rtt?: number;
  rttvar?: number;
  omitted?: boolean;
}

export interface IperfJson {
  start?: {
    connected?: { socket: number; local_port: number; remote_port: number }[];
    sock_bufsize?: number;
    sndbuf_actual?: number;
    rcvbuf_actual?: number;
    tcp_mss_default?: number;
  };
  intervals?: {
    streams: IperfStreamInterval[];
    sum: { start: number; end: number; bytes: number; bits_per_second: number; retransmits?: number };
  }[];
  end?: {
    streams?: {
      sender?: {
        bytes: number;
        seconds: number;
        retransmits?: number;
        max_snd_cwnd?: number;
        min_rtt?: number;
        mean_rtt?: number;
        max_rtt?: number;
        socket: number;
      };
    }[];
    sum_sent?: { bytes: number; seconds: number; bits_per_second: number; retransmits?: number };
    sum_received?: { bytes: number; seconds: number; bits_per_second: number };
    cpu_utilization_percent?: { host_total: number; remote_total: number };
    sender_tcp_congestion?: string;
    receiver_tcp_congestion?: string;
  };
  error?: string;
}

/** One flow's state over one interval. Times are seconds from the run's traffic start. */
export interface IntervalSample {
  kind: 'interval';
  flow: string;
  /** Interval end, s from traffic start. */
  t: number;
  seconds: number;
  /** Goodput at the receiver, bit/s (all streams). */
  goodputBps: number | null;
  /** Sending rate at the sender, bit/s. */
  sendBps: number | null;
  retransmits: number | null;
  /** Sum of the streams' congestion windows, bytes. */
  cwndBytes: number | null;
  /** Mean smoothed RTT over the streams, ms. */
  rttMs: number | null;
  streams: {
    socket: number;
    cwndBytes: number | null;
    rttMs: number | null;
    retransmits: number | null;
    sendBps: number;
  }[];
}

export function parseIperf(text: string | undefined): IperfJson | null {
  if (!text?.trim()) return null;
  try {
    return JSON.parse(text) as IperfJson;
  } catch {
    return null;
  }
}

const sum = (xs: (number | undefined)[]) =>
  xs.some((x) => x === undefined) ? null : xs.reduce<number>((a, b) => a + (b ?? 0), 0);

/**
 * Merge a flow's client and server reports. The sender side gives cwnd, RTT and retransmits; the
 * receiver side gives goodput. Reverse flows are the same: the client is always the sender.
 */
export function flowIntervals(
  flow: string,
  offsetS: number,
  client: IperfJson | null,
  server: IperfJson | null,
): IntervalSample[] {
  const sent = client?.intervals ?? [];
  const received = server?.intervals ?? [];
  const n = Math.max(sent.length, received.length);
  const out: IntervalSample[] = [];
  for (let i = 0; i < n; i++) {
    const s = sent[i];
    const r = received[i];
    const base = s?.sum ?? r?.sum;
    if (!base) continue;
    const streams = (s?.streams ?? []).map((st) => ({
      socket: st.socket,
      cwndBytes: st.snd_cwnd ?? null,
      rttMs: st.rtt === undefined ? null : st.rtt / 1000,
      retransmits: st.retransmits ?? null,
      sendBps: st.bits_per_second,
    }));
    const rtts = streams.map((x) => x.rttMs).filter((x): x is number => x !== null);
    out.push({
      kind: 'interval',
      flow,
      t: offsetS + base.end,
      seconds: base.end - base.start,
      goodputBps: r ? r.sum.bits_per_second : null,
      sendBps: s ? s.sum.bits_per_second : null,
      retransmits: s?.sum.retransmits ?? null,
      cwndBytes: s ? sum(s.streams.map((x) => x.snd_cwnd)) : null,
      rttMs: rtts.length ? rtts.reduce((a, b) => a + b, 0) / rtts.length : null,
      streams,
    });
  }
  return out;
}
