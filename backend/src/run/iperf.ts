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

const total = (xs: readonly (number | undefined)[]): number | undefined =>
  xs.some((x) => x === undefined) ? undefined : xs.reduce<number>((a, b) => a + (b ?? 0), 0);

/**
 * The reports of a flow's single-stream iperf3s (its streams connect together) as one iperf3 -P
 * would give them: the streams side by side, the sums added. Each process numbers its sockets from
 * the same few descriptors, so they are renumbered 1, 2, … in process order. Interval i is each
 * process's i-th interval from its own start: they start together and connect within a few round
 * trips of each other, under one interval apart at the rates and RTTs the presets use.
 */
export function mergeIperf(reports: readonly (IperfJson | null)[]): IperfJson | null {
  const rs = reports.filter((r): r is IperfJson => r !== null);
  if (rs.length <= 1) return rs[0] ?? null;
  const ids = rs.map(() => new Map<number, number>());
  let next = 1;
  const socket = (j: number, s: number): number => {
    const m = ids[j] as Map<number, number>;
    if (!m.has(s)) m.set(s, next++);
    return m.get(s) as number;
  };
  const connected = rs.flatMap((r, j) =>
    (r.start?.connected ?? []).map((c) => ({ ...c, socket: socket(j, c.socket) })),
  );
  const n = Math.max(...rs.map((r) => r.intervals?.length ?? 0));
  const intervals: NonNullable<IperfJson['intervals']> = [];
  for (let i = 0; i < n; i++) {
    const parts = rs.flatMap((r, j) => {
      const iv = r.intervals?.[i];
      return iv ? [{ iv, j }] : [];
    });
    const first = parts[0]?.iv.sum;
    if (!first) continue;
    intervals.push({
      streams: parts.flatMap(({ iv, j }) =>
        iv.streams.map((st) => ({ ...st, socket: socket(j, st.socket) })),
      ),
      sum: {
        start: first.start,
        end: first.end,
        bytes: parts.reduce((a, p) => a + p.iv.sum.bytes, 0),
        bits_per_second: parts.reduce((a, p) => a + p.iv.sum.bits_per_second, 0),
        retransmits: total(parts.map((p) => p.iv.sum.retransmits)),
      },
    });
  }
  const sums = (pick: (e: NonNullable<IperfJson['end']>) => IperfSum | undefined): IperfSum | undefined => {
    const xs = rs.map((r) => (r.end ? pick(r.end) : undefined));
    if (xs.some((x) => x === undefined)) return undefined;
    const ok = xs as IperfSum[];
    return {
      bytes: ok.reduce((a, x) => a + x.bytes, 0),
      seconds: Math.max(...ok.map((x) => x.seconds)),
      bits_per_second: ok.reduce((a, x) => a + x.bits_per_second, 0),
      retransmits: total(ok.map((x) => x.retransmits)),
    };
  };
  const cpu = rs.map((r) => r.end?.cpu_utilization_percent);
  const end: NonNullable<IperfJson['end']> = {
    streams: rs.flatMap((r, j) =>
      (r.end?.streams ?? []).map((st) =>
        st.sender ? { ...st, sender: { ...st.sender, socket: socket(j, st.sender.socket) } } : st,
      ),
    ),
    sum_sent: sums((e) => e.sum_sent),
    sum_received: sums((e) => e.sum_received),
    // Each process's share of a CPU: the flow's is their sum.
    cpu_utilization_percent: cpu.every((c) => c !== undefined)
      ? {
          host_total: cpu.reduce((a, c) => a + (c?.host_total ?? 0), 0),
          remote_total: cpu.reduce((a, c) => a + (c?.remote_total ?? 0), 0),
        }
      : undefined,
    sender_tcp_congestion: rs[0]?.end?.sender_tcp_congestion,
    receiver_tcp_congestion: rs[0]?.end?.receiver_tcp_congestion,
  };
  return { start: { ...rs[0]?.start, connected }, intervals, end, error: rs.find((r) => r.error)?.error };
}

type IperfSum = { bytes: number; seconds: number; bits_per_second: number; retransmits?: number };
