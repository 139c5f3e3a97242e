// Quotas per role, checked when runs are started: each refusal names the spec field (or
// `concurrentRuns`) and the limit, so the UI can mark the field.
import { effectiveLoad, type Spec } from '@lfnlab/emulator';
import { type Problem, type Quota, type Role, ServiceError } from './types.js';

export function quotaProblems(spec: Spec, q: Quota, role: Role): Problem[] {
  const problems: Problem[] = [];
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

/** Throws 403 naming every exceeded limit. `active`: the user's queued and running runs now. */
export function enforceQuota(specs: Spec[], q: Quota, role: Role, active: number): void {
  const problems: Problem[] = [];
  if (active + specs.length > q.concurrentRuns)
    problems.push({
      path: 'concurrentRuns',
      message: `${active} run(s) queued or running and ${specs.length} more asked for; the ${role} quota is ${q.concurrentRuns} at a time`,
    });
  const seen = new Set<string>();
  for (const s of specs)
    for (const p of quotaProblems(s, q, role))
      if (!seen.has(p.path)) {
        seen.add(p.path);
        problems.push(p);
      }
  if (problems.length)
    throw new ServiceError(
      403,
      `over quota: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      problems,
    );
}
