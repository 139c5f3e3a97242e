// When a bottleneck's queue samples prove the link had work for a whole sampling step: the backlog
// at the step's start holds at least the step's worth of sending at the rate in force. Only over
// such a step does sending less than the rate mean the emulated link lagged; over any other, the
// queue may have drained and the link idled between arrivals (a half-full 25 Mbit/s × 70 ms buffer
// drains in 37 ms). The rate check and the lab-limit attribution both count steps by this rule.
import type { QueueSample } from './samples.js';

export function keptBusy(a: QueueSample, b: QueueSample, rateBps: number): boolean {
  return b.t > a.t && a.backlogPackets >= 2 && (a.backlogBytes * 8) / rateBps >= b.t - a.t;
}
