// A role's per-run limits applied to a spec: length, the rate the run really offers each
// bottleneck direction (schedule changes, cross traffic and blast transports included), flows and
// connections. Each problem names the field and the limit. The service enforces these at launch;
// the designer shows them while the person types (the same function, so the same words).
import { effectiveLoad } from './effectiveLoad.js';
import type { Spec } from './schema.js';

/** A field as a dotted path with numeric indices (`paths.main.rate`, `flows`), as the API names it. */
export interface QuotaProblem {
  path: string;
  message: string;
}

/** The per-run part of a role's quota (the service adds how many runs may wait at once). */
export interface SpecQuota {
  maxDurationS: number;
  maxRateMbps: number;
  maxFlows: number;
}

export function quotaProblems(spec: Spec, q: SpecQuota, role: string): QuotaProblem[] {
  const problems: QuotaProblem[] = [];
  const durationS = spec.duration / 1000;
  if (durationS > q.maxDurationS)
    problems.push({
      path: 'duration',
      message: `${durationS} s is above the ${role} quota of ${q.maxDurationS} s`,
    });
  // The load the run really puts on the lab: every rate offered to a bottleneck direction (schedule
  // changes, UDP cross traffic, blast transports), not only the path's `rate`.
  const load = effectiveLoad(spec);
  for (const [name, p] of Object.entries(load.paths))
    for (const [dir, d] of [
      ['forward', p.forward],
      ['reverse', p.reverse],
    ] as const) {
      const mbps = d.peakBps / 1e6;
      if (mbps <= q.maxRateMbps) continue;
      const worst = [...d.parts].sort((a, b) => b.bps - a.bps)[0];
      problems.push({
        path: (worst?.field ?? `paths.${name}.rate`).replace(/\[(\d+)\]/g, '.$1'),
        message: `${name} ${dir} would carry up to ${mbps} Mbit/s (${d.parts.map((x) => `${x.field} ${x.bps / 1e6}`).join(', ')}), above the ${role} quota of ${q.maxRateMbps} Mbit/s`,
      });
    }
  if (spec.flows.length > q.maxFlows)
    problems.push({
      path: 'flows',
      message: `${spec.flows.length} flows (counts expanded) is above the ${role} quota of ${q.maxFlows}`,
    });
  // Parallel streams are connections too: P-TCP's 16 per flow fit, 64 × 4 do not.
  const streams = spec.flows.reduce((n, f) => n + f.streams, 0);
  if (streams > q.maxFlows * 16)
    problems.push({
      path: 'flows',
      message: `${streams} TCP connections (flows × streams) is above the ${role} quota of ${q.maxFlows * 16} (16 per flow of the quota's ${q.maxFlows})`,
    });
  return problems;
}
