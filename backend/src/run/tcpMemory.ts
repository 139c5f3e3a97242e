// The end hosts' TCP memory. A testbed's hosts each have their own memory; a lab's senders and
// receivers share the guest's, under one net.ipv4.tcp_mem. When that comes under pressure the kernel
// shrinks every socket's buffers and advertised windows, and the flows are held back by the lab, not
// by the network: two flows of 16 streams with 1.2 BDP windows at 170 ms crawled at 4.9 Mbit/s
// each, "receiver-window limited", under the kernel's default limit for a 2 GiB guest.
import type { Check } from './fidelity.js';
import type { StepResult } from './session.js';

/** TcpExt counters per end-host namespace, as each one's /proc/net/netstat gives them. */
export type TcpCounters = Record<string, Record<string, number>>;

/** The TcpExt counters of one /proc/net/netstat: a line of names, then a line of values. */
export function parseTcpExt(text: string): Record<string, number> {
  const lines = text.split('\n').filter((l) => l.startsWith('TcpExt:'));
  const names = lines[0]?.split(/\s+/).slice(1) ?? [];
  const values = lines[1]?.split(/\s+/).slice(1) ?? [];
  return Object.fromEntries(
    names.map((n, i) => [n, Number(values[i])]).filter(([, v]) => Number.isFinite(v)),
  );
}

/** `ip netns exec NS cat /proc/net/netstat` results, per namespace (the argv's fourth word). */
export const tcpCountersByNs = (results: readonly StepResult[]): TcpCounters =>
  Object.fromEntries(results.map((r) => [r.argv[3] ?? '?', parseTcpExt(r.stdout)]));

/**
 * No end host's TCP entered memory pressure during the run (TCPMemoryPressures did not move). Null
 * when the counters were not read (records from before they were).
 */
export function checkTcpMemory(
  before: TcpCounters | undefined,
  after: TcpCounters | undefined,
): Check | null {
  if (!before || !after) return null;
  const hosts = Object.keys(after).filter((ns) => before[ns] !== undefined);
  if (!hosts.length) return null;
  const grew = (ns: string, key: string) => (after[ns]?.[key] ?? 0) - (before[ns]?.[key] ?? 0);
  const hit = hosts
    .map((ns) => ({ ns, times: grew(ns, 'TCPMemoryPressures'), ms: grew(ns, 'TCPMemoryPressuresChrono') }))
    .filter((h) => h.times > 0);
  const times = hit.reduce((a, h) => a + h.times, 0);
  const expected = "no TCP memory pressure on the end hosts (the lab's hosts share net.ipv4.tcp_mem)";
  if (!hit.length)
    return {
      id: 'tcp-memory',
      status: 'pass',
      measured: 0,
      expected,
      message: `no TCP memory pressure on ${hosts.length} end host${hosts.length === 1 ? '' : 's'}`,
    };
  return {
    id: 'tcp-memory',
    status: 'fail',
    measured: times,
    expected,
    message: `TCP memory pressure ${times} time${times === 1 ? '' : 's'} (${hit.map((h) => `${h.ns}: ${h.times}, ${h.ms} ms`).join('; ')}): the lab's hosts share the guest's TCP memory and it ran short, so the kernel shrank every socket's buffers and windows; give the lab more memory (lfnlab lab up --mem)`,
  };
}
