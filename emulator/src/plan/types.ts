// A plan is what the lab will execute, as literal argv: computed on the host, printed by
// --dry-run, sent to the agent. Nothing here is ever joined into a shell string.
import type { ConnectMode, Transport, TxQueueLens } from '../spec/index.js';

export interface Cmd {
  argv: string[];
  /** Text fed to the command's standard input (`tee FILE` writes a sysfs value this way). */
  stdin?: string;
  /** Why this command is there, printed above it by --dry-run. */
  comment?: string;
  /** Best effort (teardown): a failure does not abort the plan. */
  allowFail?: boolean;
  /** Repeat until it succeeds (bounded), e.g. waiting for a listening port. */
  until?: { timeoutMs: number; intervalMs: number; stdoutNonEmpty?: boolean };
  timeoutMs?: number;
  /**
   * Where it runs: absent, in the lab; 'hosts', on the lab host for a wire's external hosts, through
   * the agent there (wire.ts).
   */
  on?: 'hosts';
}

export interface Section {
  title: string;
  cmds: Cmd[];
}

/** A supervised process started `at` ms after the traffic phase begins. */
export interface Proc {
  name: string;
  role: 'server' | 'client' | 'cross';
  flow: string;
  at: number;
  /** How long it runs, ms, when the process ends by itself after a set time (cross traffic). */
  durationMs?: number;
  argv: string[];
  /** The condition that says the process is ready (servers: their port is listening). */
  ready?: Cmd;
  /**
   * Where it runs: absent, in the lab; 'hosts', on the lab host for a wire's external hosts, through
   * the agent there (wire.ts).
   */
  on?: 'hosts';
}

export interface PathChange {
  at: number;
  path: string;
  rateBps?: number;
  rttMs?: number;
  cmds: Cmd[];
}

export interface Sampler {
  name: string;
  /**
   * 'capture' keeps its output raw (a packet trace); 'timing' (lfn-pkttiming) is judged after the
   * run; the others become typed samples.
   */
  kind: 'tcp' | 'qdisc' | 'ping' | 'capture' | 'udpsink' | 'timing' | 'flowmeter';
  ns: string;
  /** For ping: the path it probes. */
  path?: string;
  argv: string[];
  /**
   * Where it runs: absent, in the lab; 'hosts', on the lab host for a wire's external hosts, through
   * the agent there (wire.ts).
   */
  on?: 'hosts';
}

/**
 * Hosts for flows whose RTT differs from their path's: their own sender and receiver namespaces
 * and delay stages, feeding the path's bottleneck IFBs.
 */
export interface HostGroup {
  /** 1, 2, ... (0 is the path's own hosts). */
  index: number;
  rttMs: number;
  senderNs: string;
  receiverNs: string;
  senderAddr: string;
  receiverAddr: string;
  routerIfs: { toSender: string; toReceiver: string };
  delayLimitPackets: { forward: number; reverse: number };
}

export interface PathTopology {
  name: string;
  index: number;
  senderNs: string;
  receiverNs: string;
  /** The RTT probe's own host, on the sender side: its pings share the bottleneck with the flows. */
  probeNs: string;
  senderAddr: string;
  receiverAddr: string;
  probeAddr: string;
  /** Router-side interfaces: towards each host, and the two bottleneck IFBs. */
  routerIfs: {
    toSender: string;
    toReceiver: string;
    toProbe: string;
    forwardIfb: string;
    reverseIfb: string;
  };
  frameBytes: number;
  bdpBytes: number;
  bdpPackets: number;
  bufferPackets: { forward: number; reverse: number };
  delayLimitPackets: { forward: number; reverse: number };
  /** Per-packet loss probability from the BER, for ACK-sized and full-sized frames. */
  per: { ackFrame: number; fullFrame: number; ackFrameBytes: number };
  socketBufferMax: number;
  /** Host groups of flows with their own RTT (empty when every flow uses the path's). */
  groups: HostGroup[];
  /** The UDP cross-traffic host, when the path has forward cross traffic: sender side, same bottleneck. */
  udp: UdpHost | null;
  /** The reverse UDP host, when the path has reverse cross traffic: receiver side, reverse bottleneck. */
  udpReverse: UdpHost | null;
  /** txqueuelen per role as the spec sets it (null: the kernel's default). */
  txqueuelen: TxQueueLens;
}

export interface UdpHost {
  ns: string;
  addr: string;
  /** The router's veth towards it. */
  toUdp: string;
}

export interface FlowTopology {
  name: string;
  /** How the data moves: iperf3 over kernel TCP, or a user-space transport (emulator/transports). */
  transport: Transport;
  /** The TCP stack (tcp, psockets); for udt and rbudp, the transport's name. */
  stack: string;
  path: string;
  direction: 'forward' | 'reverse';
  streams: number;
  /** serial: one iperf3 -P opens the streams one by one; together: one iperf3 per stream, all at once. Absent in older plans (serial). */
  connect?: ConnectMode;
  /** Its server's port; the first of `ports` when the flow has one iperf3 per stream. */
  port: number;
  /** Every server port of the flow, one per stream, when its streams connect together; absent otherwise. */
  ports?: number[];
  /** Its round-trip propagation delay: its path's, or its own (host group). */
  rttMs: number;
  clientNs: string;
  serverNs: string;
  serverAddr: string;
  startMs: number;
  /** How long it sends; for a sized transfer, the time it has to finish. */
  durationMs: number;
  /** The start of the flow left out of its per-interval statistics (spec `omit`); absent in older plans. */
  omitMs?: number;
  /** A sized transfer's bytes, or null for a timed flow. */
  bytes: number | null;
  windowBytes: number | null;
  /** rbudp: the blast rate; udt: a cap on its rate (bit/s); null otherwise. */
  rateBps: number | null;
  /** Seed of a transport's generated payload (the receiver hashes what arrives; the sender what it sent). */
  payloadSeed: number;
}

export interface Topology {
  routerNs: string;
  /** A bump in the wire: the lab's two ports and the host taps behind them (null: the dumbbell). */
  wire?: WireTopology | null;
  namespaces: string[];
  paths: PathTopology[];
  flows: FlowTopology[];
}

export interface Plan {
  specName: string;
  seed: number;
  /**
   * What the lab kernel must have booted with (load-time stack parameters, `tcp_cubic.bic_scale=7`);
   * empty for most specs. The lab is restarted with them when it runs without them, or with others.
   * Absent in plan.json files before them.
   */
  labKernelArgs?: string[];
  topology: Topology;
  setup: Section[];
  /**
   * Idle RTT per path, measured before any traffic. When `calibrate`, the emulator's own excess
   * over the configured RTT is taken off the delay stages and the RTT measured again.
   */
  idleRtt: { path: string; group: number; rttMs: number; warmup: Cmd; probe: Cmd; calibrate: boolean }[];
  /** Read-only state to record (qdisc trees with counters, offloads, sysctls). */
  snapshot: Section[];
  servers: Proc[];
  clients: Proc[];
  /** UDP cross-traffic generators, started on the flows' schedule (their sinks are samplers). */
  cross: Proc[];
  /** Samplers started before the servers and stopped after the last flow: TCP state, queues, CPU, RTT. */
  samplers: Sampler[];
  /**
   * Changes to a path during traffic, in time order. `cmds` are the nominal commands (what --dry-run
   * prints); at run time an RTT change is also corrected by the calibration, like the initial delay
   * (calibratedChanges, through the same pathChangeCmds).
   */
  changes: PathChange[];
  /** Socket state read back while flows run, per client namespace: proves each socket's stack. */
  socketProbes: Record<string, Cmd>;
  teardown: Section;
}

/** The lab as a bump in the wire (wire.ts): which lab port faces which external host, and how. */
export interface WireTopology {
  /** The lab's ports: a faces the sender side, b the receiver side. */
  ports: { a: string; b: string };
  /** The lab host's taps behind them, each on its own bridge with the external hosts of its side. */
  taps: { a: string; b: string };
  bridges: { a: string; b: string };
  /** The bridge in the lab's router that joins the two ports. */
  labBridge: string;
}
