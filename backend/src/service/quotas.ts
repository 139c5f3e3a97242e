// Quotas per role, checked when runs are started: each refusal names the spec field (or
// `concurrentRuns`) and the limit, so the UI can mark the field.
import type { Spec } from '@lfnlab/emulator';
import { type Problem, type Quota, type Role, ServiceError } from './types.js';

export function quotaProblems(spec: Spec, q: Quota, role: Role): Problem[] {
  const problems: Problem[] = [];
  const durationS = spec.duration / 1000;
  if (durationS > q.maxDurationS)
    problems.push({
      path: 'duration',
      message: `${durationS} s is above the ${role} quota of ${q.maxDurationS} s`,
    });
  for (const [name, p] of Object.entries(spec.paths)) {
    for (const [field, bps] of [
      ['rate', p.rate],
      ['reverse.rate', p.reverse.rate],
    ] as const) {
      const mbps = bps / 1e6;
      if (mbps > q.maxRateMbps)
        problems.push({
          path: `paths.${name}.${field}`,
          message: `${mbps} Mbit/s is above the ${role} quota of ${q.maxRateMbps} Mbit/s`,
        });
    }
  }
  if (spec.flows.length > q.maxFlows)
    problems.push({
      path: 'flows',
      message: `${spec.flows.length} flows (counts expanded) is above the ${role} quota of ${q.maxFlows}`,
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
