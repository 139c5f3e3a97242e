// The fidelity verdict: did the emulated link do what the spec said? Each check is a pure function
// of what the run measured. Any failed check makes the run invalid, any warning suspect.
import { type FlowTopology, type PathTopology, type Spec, stackParamSettings } from '@lfnlab/emulator';
import { checkBurstDrops } from './burstDrops.js';
import { grade } from './checkGrade.js';
import { checkCrossTraffic } from './crossCheck.js';
import type { SamplerCounters } from './demux.js';
import { checkDelayStageLoss, checkHiddenDrops } from './dropChecks.js';
import { checkFlowStarts } from './flowStart.js';
import type { PingSummary } from './probes.js';
import { keptBusy } from './queueSteps.js';
import type { RouteEntry } from './routeChecks.js';
import { checkQuickack } from './routeChecks.js';
import type { CpuSample, QueueSample, TcpFlowSample } from './samples.js';
import { settingsCheck } from './settingsCheck.js';
import { checkTcpMemory, type TcpCounters } from './tcpMemory.js';
import { checkDelayJitter, checkPacketSpacing, type DirectionTiming } from './timingChecks.js';

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';
export type Verdict = 'valid' | 'suspect' | 'invalid';

export interface Check {
  id: string;
  status: CheckStatus;
  /** What was measured, with its unit in the message. */
  measured: number | null;
  expected: string;
  message: string;
}

export interface FidelityReport {
  verdict: Verdict;
  checks: Check[];
  reasons: string[];
}

/** One qdisc or link counter set from a `tc -s -j` / `ip -s -j` snapshot. */
export interface QdiscStat {
  kind: string;
  handle: string;
  dev: string;
  root?: boolean;
  parent?: string;
  bytes: number;
  packets: number;
  drops: number;
}

export interface LinkStat {
  ifname: string;
  stats64?: { rx?: { dropped?: number; over_errors?: number }; tx?: { dropped?: number } };
}

/** Idle RTT = configured ± (0.2 ms + 1 %), the lab's idle-RTT tolerance; up to twice that is suspect. */
export function checkIdleRtt(
  path: string,
  configuredMs: number,
  jitterMs: number,
  ping: PingSummary | null,
): Check {
  const id = `idle-rtt:${path}`;
  const tol = 0.2 + 0.01 * configuredMs;
  const expected = `${configuredMs} ms ± ${tol.toFixed(2)} ms`;
  if (!ping || ping.received === 0)
    return {
      id,
      status: 'fail',
      measured: null,
      expected,
      message: `${path}: no reply to the idle RTT probe`,
    };
  if (jitterMs > 0) {
    const ok = ping.minMs >= configuredMs - 2 * jitterMs - tol && ping.minMs <= configuredMs + tol;
    return {
      id,
      status: ok ? 'pass' : 'warn',
      measured: ping.minMs,
      expected: `${configuredMs} ms − jitter`,
      message: `${path}: idle min RTT ${ping.minMs.toFixed(2)} ms with ±${jitterMs} ms jitter`,
    };
  }
  const off = Math.abs(ping.minMs - configuredMs);
  return {
    id,
    status: grade(off <= tol, off <= 2 * tol),
    measured: ping.minMs,
    expected,
    message: `${path}: idle min RTT ${ping.minMs.toFixed(2)} ms for ${configuredMs} ms configured (off by ${off.toFixed(2)} ms)`,
  };
}

/**
 * A busy bottleneck must serve at its configured rate. From the queue samples, a step counts only
 * when the backlog at its start could not have drained within the step at that rate: then the link
 * had work throughout, and what its qdisc sent (frames as netem counts them) is its rate. A backlog
 * seen at both ends of a step proves nothing about the time between: under bursty (ACK-compressed)
 * arrivals a half-full 25 Mbit/s × 70 ms buffer drains in 37 ms and refills, so a 100 ms step would
 * count idle time as a slow link. Needs 2 s of such steps; short of that (steps longer than the
 * buffer's drain time, as at 10 Hz on a small buffer), the packet timing's busy gaps judge the rate
 * instead: the link's service rate while it had a queue (on a direction that carried ≥ 5 % of its rate).
 */
export function checkBottleneckRate(
  path: string,
  direction: 'forward' | 'reverse',
  /** The configured rate, or the rate in force at time t (s) when it changes during the run. */
  rate: number | ((t: number) => number),
  queue: QueueSample[],
  timing?: DirectionTiming,
): Check {
  const rateAt = typeof rate === 'number' ? () => rate : rate;
  const id = `bottleneck-rate:${path}:${direction}`;
  const where = `${path} ${direction}`;
  const q = queue
    .filter((s) => s.path === path && s.stage === 'bottleneck' && s.direction === direction)
    .sort((a, b) => a.t - b.t);
  let bytes = 0;
  let seconds = 0;
  let expectedBits = 0;
  let longestBacklogS = 0;
  for (let i = 1; i < q.length; i++) {
    const a = q[i - 1] as QueueSample;
    const b = q[i] as QueueSample;
    if (b.t <= a.t || b.bytes < a.bytes) continue;
    const r = rateAt((a.t + b.t) / 2);
    const drainS = (a.backlogBytes * 8) / r;
    longestBacklogS = Math.max(longestBacklogS, drainS);
    if (keptBusy(a, b, r)) {
      bytes += b.bytes - a.bytes;
      seconds += b.t - a.t;
      expectedBits += r * (b.t - a.t);
    }
  }
  const tolerance = ' ± 3 %';
  const grade3 = (ratio: number): CheckStatus =>
    grade(Math.abs(ratio - 1) <= 0.03, ratio >= 0.9 && ratio <= 1.05);
  if (seconds >= 2) {
    const configured = expectedBits / seconds;
    const measured = (bytes * 8) / seconds;
    const ratio = measured / configured;
    return {
      id,
      status: grade3(ratio),
      measured,
      expected: `${(configured / 1e6).toFixed(3)} Mbit/s${tolerance}`,
      message: `${where}: the bottleneck sent ${(measured / 1e6).toFixed(2)} Mbit/s over ${seconds.toFixed(1)} s it never ran out of queue (${(ratio * 100).toFixed(1)} % of configured)`,
    };
  }
  // A lightly used direction (a forward flow's ACKs) is left alone, as in the packet-spacing check:
  // its few queued frames wait for the lab's next round of packet work, which is not the link's rate.
  const utilisation = bottleneckUtilisation(path, direction, rateAt, queue) ?? 0;
  const used = utilisation >= 0.05;
  const g = timing?.gaps;
  if (used && g && g.busy >= 200 && g.servedBps !== null && g.configuredBps !== null) {
    const ratio = g.servedBps / g.configuredBps;
    return {
      id,
      status: grade3(ratio),
      measured: g.servedBps,
      expected: `${(g.configuredBps / 1e6).toFixed(3)} Mbit/s${tolerance}`,
      message: `${where}: the bottleneck served ${(g.servedBps / 1e6).toFixed(2)} Mbit/s while it had a queue (${g.busy} busy dequeue gaps timed; ${(ratio * 100).toFixed(1)} % of configured)`,
    };
  }
  const sampleS = q.length > 1 ? ((q.at(-1) as QueueSample).t - (q[0] as QueueSample).t) / (q.length - 1) : 0;
  return {
    id,
    status: 'skip',
    measured: null,
    expected: `${(rateAt(0) / 1e6).toFixed(3)} Mbit/s${tolerance}`,
    message: `${where}: the queue never held a step's worth of work (${(1000 * seconds).toFixed(0)} ms of ${(1000 * sampleS).toFixed(0)} ms steps; longest backlog ${(1000 * longestBacklogS).toFixed(0)} ms of sending) and ${used ? `only ${g?.busy ?? 0} busy gaps were timed` : `the direction carried ${(100 * utilisation).toFixed(1)} % of its rate`}; rate not judged`,
  };
}

/** The lab must not be CPU-bound, or timers and pacing go wrong: below ~70 % busy on average. */
export function checkLabCpu(cpu: CpuSample[], fromS: number, toS: number): Check {
  const xs = cpu.filter((c) => c.t >= fromS && c.t <= toS).map((c) => c.busyPct);
  if (xs.length === 0)
    return { id: 'lab-cpu', status: 'skip', measured: null, expected: '< 70 %', message: 'no CPU samples' };
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    id: 'lab-cpu',
    status: grade(m < 70, m < 85),
    measured: m,
    expected: '< 70 % busy',
    message: `lab CPU ${m.toFixed(1)} % busy on average while flows ran (peak ${Math.max(...xs).toFixed(1)} %)`,
  };
}

/** Every sampler kept its rate and every line it wrote arrived. */
export function checkSamplers(counters: SamplerCounters[]): Check[] {
  return counters
    .filter((c) => c.kind === 'tcp' || c.kind === 'qdisc')
    .map((c): Check => {
      const id = `sampler:${c.name}`;
      if (!c.end)
        return {
          id,
          status: 'warn',
          measured: null,
          expected: 'a closing record',
          message: `${c.name}: ended without its closing counters`,
        };
      const ticks = Number(c.end.ticks ?? 0);
      const skipped = Number(c.end.skipped ?? 0);
      // The qdisc poller counts its cpu lines apart from its qdisc lines.
      const records = Number(c.end.records ?? 0) + Number(c.end.cpuRecords ?? 0);
      const kept = ticks / Math.max(1, ticks + skipped);
      const lost = records - c.records;
      return {
        id,
        status: lost > 0 ? 'fail' : grade(kept >= 0.95, kept >= 0.8),
        measured: kept,
        expected: '>= 95 % of ticks on time, no record lost',
        message: `${c.name}: ${ticks} ticks, ${skipped} skipped (${(kept * 100).toFixed(1)} % kept), ${records} records written, ${lost > 0 ? `${lost} lost` : 'all received'}`,
      };
    });
}

export function verdictOf(checks: Check[]): FidelityReport {
  const failed = checks.filter((c) => c.status === 'fail');
  const warned = checks.filter((c) => c.status === 'warn');
  return {
    verdict: failed.length ? 'invalid' : warned.length ? 'suspect' : 'valid',
    checks,
    reasons: [...failed, ...warned].map((c) => c.message),
  };
}

/** What share of its rate a bottleneck direction carried over the samples, from its qdisc's byte counter. */
export function bottleneckUtilisation(
  path: string,
  direction: 'forward' | 'reverse',
  rateAt: (t: number) => number,
  queue: QueueSample[],
): number | null {
  const q = queue
    .filter((s) => s.path === path && s.stage === 'bottleneck' && s.direction === direction)
    .sort((a, b) => a.t - b.t);
  let bits = 0;
  let capacity = 0;
  for (let k = 1; k < q.length; k++) {
    const a = q[k - 1] as QueueSample;
    const b = q[k] as QueueSample;
    if (b.bytes < a.bytes || b.t <= a.t) continue;
    bits += (b.bytes - a.bytes) * 8;
    capacity += rateAt((a.t + b.t) / 2) * (b.t - a.t);
  }
  return capacity > 0 ? bits / capacity : null;
}

export interface FidelityInput {
  spec: Spec;
  paths: PathTopology[];
  idleRtt: Record<string, PingSummary | null>;
  qdiscBefore: QdiscStat[];
  qdiscAfter: QdiscStat[];
  linksBefore: Record<string, LinkStat[]>;
  linksAfter: Record<string, LinkStat[]>;
  queue: QueueSample[];
  cpu: CpuSample[];
  samplers: SamplerCounters[];
  trafficS: [number, number];
  /** For the burst-drop check: the flows and their TCP samples (absent: not judged). */
  flows?: FlowTopology[];
  tcp?: TcpFlowSample[];
  /** The packet-timing capture's findings per path and direction (absent: not judged). */
  timing?: DirectionTiming[];
  /** When each TCP flow's data began, s from traffic start (absent: starts not judged). */
  dataStarts?: ReadonlyMap<string, number>;
  /** The stack parameters read back before and after traffic (absent: not read, not judged). */
  stackParamsInForce?: (Record<string, Record<string, number | null>> | undefined)[];
  /** The end hosts' routes read before traffic (absent: not read, not judged). */
  routes?: Record<string, RouteEntry[]>;
  /** The end hosts' TcpExt counters before and after traffic (absent: not read, not judged). */
  tcpCounters?: [TcpCounters | undefined, TcpCounters | undefined];
  /** Each UDP cross-traffic source's generator output (null: it left none); absent: not judged. */
  crossReports?: Record<string, string | null>;
}

/**
 * The spec's stack parameters were in force for the whole run: each read back before and after
 * traffic equals the value the spec sets. A kept dumbbell once carried the previous run's value
 * into a run whose spec set another, and every other check passed.
 */
export function checkStackParams(
  spec: Pick<Spec, 'stackParams'>,
  reads: readonly (Record<string, Record<string, number | null>> | undefined)[],
): Check | null {
  const set = stackParamSettings(spec);
  const read = reads.filter((r): r is Record<string, Record<string, number | null>> => r !== undefined);
  if (!set.length || !read.length) return null;
  const wrong = set.flatMap((p) =>
    read
      .map((r) => r[p.stack]?.[p.name])
      .filter((v) => v !== p.value)
      .map((v) => `${p.stack} ${p.name} ${v ?? 'unreadable'} (spec ${p.value})`),
  );
  return settingsCheck(
    'stack-params',
    'every stack parameter the spec sets in force before and after traffic',
    'stack parameters',
    [...new Set(wrong)],
    `${set.length} stack parameter${set.length === 1 ? '' : 's'} in force as the spec sets ${set.length === 1 ? 'it' : 'them'}`,
  );
}

export function fidelity(i: FidelityInput): FidelityReport {
  const checks: Check[] = [];
  const params = checkStackParams(i.spec, i.stackParamsInForce ?? []);
  if (params) checks.push(params);
  const quickack = checkQuickack(i.spec, i.paths, i.routes);
  if (quickack) checks.push(quickack);
  for (const p of i.paths) {
    const path = i.spec.paths[p.name];
    if (!path) continue;
    checks.push(checkIdleRtt(p.name, path.rtt, path.jitter, i.idleRtt[p.name] ?? null));
    // The forward rate follows the path's schedule of changes, if it has one.
    const forwardRate = (t: number) =>
      [...path.changes].reverse().find((c) => c.rate !== undefined && c.at <= t * 1000)?.rate ?? path.rate;
    const timingOf = (direction: 'forward' | 'reverse') =>
      i.timing?.find((x) => x.path === p.name && x.direction === direction);
    checks.push(checkBottleneckRate(p.name, 'forward', forwardRate, i.queue, timingOf('forward')));
    checks.push(checkBottleneckRate(p.name, 'reverse', path.reverse.rate, i.queue, timingOf('reverse')));
    checks.push(...checkDelayStageLoss(p, path.ber, i.qdiscBefore, i.qdiscAfter));
    const timingChecks = (i.timing?.filter((x) => x.path === p.name) ?? []).map((d) => ({
      direction: d.direction,
      spacing: checkPacketSpacing(
        d,
        bottleneckUtilisation(
          p.name,
          d.direction,
          d.direction === 'forward' ? forwardRate : () => path.reverse.rate,
          i.queue,
        ),
      ),
      jitter: checkDelayJitter(d, path.jitter),
    }));
    if (i.flows && i.tcp) {
      const spacing = timingChecks.find((t) => t.direction === 'forward')?.spacing;
      checks.push(checkBurstDrops(i.spec, p, i.flows, i.queue, i.tcp, spacing));
    }
    for (const t of timingChecks) checks.push(t.spacing, t.jitter);
    // Host groups (flows with their own RTT): their idle RTT and their own delay stages.
    for (const g of p.groups) {
      const key = `${p.name}@${g.rttMs}ms`;
      checks.push(checkIdleRtt(key, g.rttMs, path.jitter, i.idleRtt[key] ?? null));
      checks.push(
        ...checkDelayStageLoss(
          { ...p, name: key, routerIfs: { ...p.routerIfs, ...g.routerIfs } },
          path.ber,
          i.qdiscBefore,
          i.qdiscAfter,
        ),
      );
    }
  }
  for (const [source, report] of Object.entries(i.crossReports ?? {}))
    checks.push(checkCrossTraffic(source, report));
  if (i.flows && i.dataStarts) {
    // A long run holds more samples than Math.max takes as arguments.
    const sampledUntilS = i.tcp?.length ? i.tcp.reduce((a, s) => Math.max(a, s.t), -Infinity) : null;
    checks.push(checkFlowStarts(i.flows, i.dataStarts, i.spec.sampleHz, sampledUntilS));
  }
  const memory = checkTcpMemory(...(i.tcpCounters ?? [undefined, undefined]));
  if (memory) checks.push(memory);
  checks.push(checkHiddenDrops(i.linksBefore, i.linksAfter));
  checks.push(checkLabCpu(i.cpu, i.trafficS[0], i.trafficS[1]));
  checks.push(...checkSamplers(i.samplers));
  return verdictOf(checks);
}
