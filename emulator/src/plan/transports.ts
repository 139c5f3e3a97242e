// Seed 004's user-space transports as flows: the receiver is the flow's server (started before
// traffic, on the flow's receiving host), the sender its client (started on the flow's schedule).
// Both print an `#end` record with the SHA-256 of what they sent or received; the run compares them.
import type { Spec } from '../spec/schema.js';
import { psocketsReceiverArgv, psocketsSenderArgv } from '../transports/psockets.js';
import { rbudpReceiverArgv, rbudpSenderArgv } from '../transports/rbudp.js';
import { udtReceiverArgv, udtSenderArgv } from '../transports/udt.js';
import { inNs } from './netns.js';
import { listening } from './traffic.js';
import type { FlowTopology, Proc } from './types.js';

/**
 * Seconds without progress before a side gives up. The run's own deadline (planned end + grace)
 * catches a stuck transfer too; this makes the program end first and say why in its `#end`.
 */
export const TRANSPORT_STALL_S = 20;

/** Server (receiver) and client (sender) of a udt, rbudp or psockets flow. */
export function transportProcs(spec: Spec, f: FlowTopology): { server: Proc; client: Proc } {
  if (f.bytes === null) throw new Error(`flow ${f.name}: transport ${f.transport} needs bytes`);
  // Progress rows at iperf3's interval, so every flow's goodput series has the same grain.
  const reportHz = Math.max(1, Math.round(1000 / spec.sampleInterval));
  const payload = { bytes: f.bytes, seed: f.payloadSeed };
  // The receiver is up from t = 0 and waits for a sender that starts at the flow's start.
  const recv = { port: f.port, reportHz, timeoutS: Math.ceil(f.startMs / 1000) + TRANSPORT_STALL_S };
  const send = { connect: f.serverAddr, port: f.port, payload, reportHz, timeoutS: TRANSPORT_STALL_S };
  let receiver: string[];
  let sender: string[];
  switch (f.transport) {
    case 'rbudp': {
      if (f.rateBps === null) throw new Error(`flow ${f.name}: rbudp needs a rate`);
      receiver = rbudpReceiverArgv(recv);
      sender = rbudpSenderArgv({ ...send, rateBitsPerS: Math.round(f.rateBps) });
      break;
    }
    case 'udt':
      receiver = udtReceiverArgv(recv);
      sender = udtSenderArgv({
        ...send,
        ...(f.rateBps !== null ? { maxRateBitsPerS: Math.round(f.rateBps) } : {}),
      });
      break;
    case 'psockets': {
      // A window fixes every striped connection's buffers (autotuning off), as iperf3 -w does.
      const buf = f.windowBytes !== null ? { sockbufBytes: f.windowBytes } : {};
      receiver = psocketsReceiverArgv({ ...recv, ...buf });
      sender = psocketsSenderArgv({ ...send, ...buf, streams: f.streams, cc: f.stack });
      break;
    }
    default:
      throw new Error(`flow ${f.name}: ${f.transport} is not a user-space transport`);
  }
  return {
    server: {
      name: `server:${f.name}`,
      role: 'server',
      flow: f.name,
      at: 0,
      argv: inNs(f.serverNs, receiver),
      // RBUDP and PSockets accept on TCP (RBUDP's control connection); UDT binds a UDP socket.
      ready: listening(f.serverNs, f.port, f.transport === 'udt'),
    },
    client: {
      name: `client:${f.name}`,
      role: 'client',
      flow: f.name,
      at: f.startMs,
      argv: inNs(f.clientNs, sender),
    },
  };
}
