// Types, parser and argv builders for lfn-udt (emulator/transports/udt.cpp): a bulk transfer over UDT4
// (Debian's libudt, linked statically). Progress rows carry UDT::perfmon's view: RTT, rates, losses, windows.

import {
  checkBytes,
  nsToMs,
  TRANSPORT_COMMON_COLUMNS,
  type TransportEndBase,
  type TransportReceiverOptions,
  type TransportRowBase,
  type TransportSenderOptions,
  uint,
} from './common.js';
import { pushSockbuf, type TransportRecord, transportProgram } from './program.js';

export const UDT_BINARY = 'lfn-udt';
export const UDT_DEFAULT_PORT = 5330;

export const UDT_COLUMNS = [
  ...TRANSPORT_COMMON_COLUMNS,
  'rtt_us',
  'bandwidth_bps',
  'send_rate_bps',
  'recv_rate_bps',
  'pkts_sent',
  'pkts_recv',
  'snd_loss',
  'rcv_loss',
  'retrans',
  'cwnd_pkts',
  'flow_window_pkts',
  'flight_pkts',
  'snd_period_ns',
  'snd_buf_avail',
  'rcv_buf_avail',
] as const;

/**
 * Progress row. `bytes`: payload bytes handed to UDT::send (send; ahead of delivery by up to UDT's send
 * buffer) / received in order (recv). The rest is UDT::perfmon, whose interval counters restart each row.
 */
export interface UdtRow extends TransportRowBase {
  rttUs: number;
  /** UDT's estimate of the link capacity. */
  bandwidthBitsPerS: number;
  sendRateBitsPerS: number;
  recvRateBitsPerS: number;
  /** Data packets sent (incl. retransmissions) / received in the interval. */
  pktsSent: number;
  pktsRecv: number;
  /** Packets reported lost to this side as sender (NAKs) / found missing as receiver, in the interval. */
  sndLoss: number;
  rcvLoss: number;
  retrans: number;
  cwndPackets: number;
  flowWindowPackets: number;
  flightPackets: number;
  /** Inter-packet sending period set by UDT's rate control. */
  sndPeriodMs: number;
  sndBufAvailBytes: number;
  rcvBufAvailBytes: number;
}

export interface UdtEnd extends TransportEndBase {
  /** UDT::perfmon totals for the connection. */
  pktsSent: number;
  pktsRecv: number;
  sndLoss: number;
  rcvLoss: number;
  retrans: number;
  acksSent: number;
  acksRecv: number;
  naksSent: number;
  naksRecv: number;
  rttUs: number;
  /** Actual buffer of the UDP socket under UDT (send buffer for the sender, receive buffer for the receiver). */
  sockbufBytes: number;
}

export type UdtRecord = TransportRecord<UdtRow, UdtEnd>;

interface UdtSocketOptions {
  /** UDT_MSS: packet size incl. UDT/UDP/IP headers, 76..65536 (UDT default 1500). */
  mssBytes?: number;
  /** UDT_FC: maximum flow window, 32..1000000 packets (UDT default 25600). */
  flowWindowPackets?: number;
  /** UDT_SNDBUF and UDT_RCVBUF, UDT's own buffers (UDT default 10240000). */
  udtBufBytes?: number;
  /** Buffers of the UDP socket under UDT, forced as root (program default 8 MiB; 0 = UDT's request). */
  sockbufBytes?: number;
}

export interface UdtReceiverOptions extends TransportReceiverOptions, UdtSocketOptions {}

export interface UdtSenderOptions extends TransportSenderOptions, UdtSocketOptions {
  /** UDT_MAXBW cap on the sending rate, bits per second (default: none). */
  maxRateBitsPerS?: number;
}

function udtArgs(argv: string[], o: UdtSocketOptions): void {
  if (o.mssBytes !== undefined) argv.push('--mss', checkBytes(o.mssBytes, 'mssBytes', 76, 65536));
  if (o.flowWindowPackets !== undefined)
    argv.push('--fc', checkBytes(o.flowWindowPackets, 'flowWindowPackets', 32, 1_000_000));
  if (o.udtBufBytes !== undefined)
    argv.push('--udt-buf', checkBytes(o.udtBufBytes, 'udtBufBytes', 65536, 2 ** 30));
  pushSockbuf(argv, o.sockbufBytes);
}

const udt = transportProgram<UdtRow, UdtEnd, UdtReceiverOptions, UdtSenderOptions>({
  program: UDT_BINARY,
  columns: UDT_COLUMNS,
  row: (f, text) => {
    const u = (i: number) => uint(f[i], UDT_COLUMNS[i] ?? String(i), text);
    return {
      rttUs: u(6),
      bandwidthBitsPerS: u(7),
      sendRateBitsPerS: u(8),
      recvRateBitsPerS: u(9),
      pktsSent: u(10),
      pktsRecv: u(11),
      sndLoss: u(12),
      rcvLoss: u(13),
      retrans: u(14),
      cwndPackets: u(15),
      flowWindowPackets: u(16),
      flightPackets: u(17),
      sndPeriodMs: nsToMs(f[18], 'snd_period_ns', text),
      sndBufAvailBytes: u(19),
      rcvBufAvailBytes: u(20),
    };
  },
  end: (u) => ({
    pktsSent: u('pkts_sent'),
    pktsRecv: u('pkts_recv'),
    sndLoss: u('snd_loss'),
    rcvLoss: u('rcv_loss'),
    retrans: u('retrans'),
    acksSent: u('acks_sent'),
    acksRecv: u('acks_recv'),
    naksSent: u('naks_sent'),
    naksRecv: u('naks_recv'),
    rttUs: u('rtt_us'),
    sockbufBytes: u('sockbuf'),
  }),
  receiverArgs: udtArgs,
  senderArgs: (argv, opts) => {
    udtArgs(argv, opts);
    if (opts.maxRateBitsPerS !== undefined)
      argv.push('--max-rate', checkBytes(opts.maxRateBitsPerS, 'maxRateBitsPerS', 8000, 100e9));
  },
});

/** Parses one line of lfn-udt output; see TransportProgram.parseLine. */
export const parseUdtLine: (line: string) => UdtRecord | null = udt.parseLine;
/** argv of a UDT receiver (see TransportProgram.receiverArgv). */
export const udtReceiverArgv = udt.receiverArgv;
/** argv of a UDT sender (see TransportProgram.senderArgv). */
export const udtSenderArgv = udt.senderArgv;
export const udtDigestArgv = udt.digestArgv;
