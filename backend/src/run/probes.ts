// Parsers for ping's summary and `ss -tin` socket dumps.

export interface PingSummary {
  sent: number;
  received: number;
  minMs: number;
  avgMs: number;
  maxMs: number;
  mdevMs: number;
}

export function parsePing(text: string): PingSummary | null {
  const counts = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(text);
  const rtt = /= ([\d.]+)\/([\d.]+)\/([\d.]+)\/([\d.]+) ms/.exec(text);
  if (!counts || !rtt) return null;
  return {
    sent: Number(counts[1]),
    received: Number(counts[2]),
    minMs: Number(rtt[1]),
    avgMs: Number(rtt[2]),
    maxMs: Number(rtt[3]),
    mdevMs: Number(rtt[4]),
  };
}

export interface SocketState {
  local: string;
  peer: string;
  localPort: number;
  peerPort: number;
  /** The congestion control the kernel reports for this socket. */
  stack: string | null;
  cwnd: number | null;
  rttMs: number | null;
}

/**
 * `ss -Htin state established` prints each socket on a line, and its internals (starting with the
 * stack's name) on an indented continuation line.
 */
const SS_FLAGS = new Set(['ts', 'sack', 'ecn', 'ecnseen', 'fastopen', 'app_limited']);

export function parseSs(text: string): SocketState[] {
  const out: SocketState[] = [];
  let cur: SocketState | undefined;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    if (!/^\s/.test(line)) {
      const f = line.trim().split(/\s+/);
      // With a state filter ss omits the state column: Recv-Q Send-Q Local Peer
      const addrs = f.filter((x) => /:\d+$/.test(x));
      const [local = '', peer = ''] = addrs;
      cur = {
        local,
        peer,
        localPort: Number(local.split(':').pop()),
        peerPort: Number(peer.split(':').pop()),
        stack: null,
        cwnd: null,
        rttMs: null,
      };
      out.push(cur);
    } else if (cur) {
      // ss prints option flags, then the stack's name, then key:value pairs.
      const words = line.trim().split(/\s+/);
      const firstPair = words.findIndex((w) => w.includes(':'));
      const bare = firstPair < 0 ? words : words.slice(0, firstPair);
      const name = bare.filter((w) => !SS_FLAGS.has(w)).pop();
      if (name) cur.stack = name;
      const cwnd = /\bcwnd:(\d+)/.exec(line);
      const rtt = /\brtt:([\d.]+)\//.exec(line);
      if (cwnd) cur.cwnd = Number(cwnd[1]);
      if (rtt) cur.rttMs = Number(rtt[1]);
    }
  }
  return out;
}
