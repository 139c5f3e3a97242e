// A transport flow's part of the record: both sides' raw output, the checked transfer, and the
// receiver's progress as interval samples. Kept out of runExperiment.ts, which only calls it.
import type { RunRecorder } from './record.js';
import type { FlowResult } from './summary.js';
import {
  describeTransfer,
  parseTransportOutput,
  transferIntervals,
  transferResult,
  type UserTransport,
} from './transportFlows.js';

/** Fills `r.transfer` and `r.intervals`, writes flows/NAME.{sender,receiver}.txt and .transfer.json; returns a log line. */
export function finishTransfer(r: FlowResult, rec: RunRecorder): string {
  const transport = r.flow.transport as UserTransport;
  const out = r.transportOut ?? { sender: null, receiver: null };
  const sender = parseTransportOutput(transport, out.sender);
  const receiver = parseTransportOutput(transport, out.receiver);
  const t = transferResult(transport, r.flow.bytes ?? 0, sender, receiver);
  r.transfer = t;
  r.intervals = transferIntervals(r.flow.name, r.startedAtS ?? r.flow.startMs / 1000, receiver);
  if (out.sender !== null) rec.text(`flows/${r.flow.name}.sender.txt`, out.sender);
  if (out.receiver !== null) rec.text(`flows/${r.flow.name}.receiver.txt`, out.receiver);
  rec.json(`flows/${r.flow.name}.transfer.json`, { ...t, roundsDetail: sender.rounds });
  return describeTransfer(r.flow.name, t);
}
