// Quotas per role, checked when runs are started: each refusal names the spec field (or
// `concurrentRuns`) and the limit, so the UI can mark the field.
// The per-spec rules live beside the spec schema (emulator/src/spec/quota.ts) so the designer
// checks them as the person types, with the same messages.
import { quotaProblems, type Spec } from '@lfnlab/emulator';
import { type Problem, type Quota, type Role, ServiceError } from './types.js';

export { quotaProblems };

/** Every exceeded limit for starting these runs now, each naming its field and the limit. */
export function quotaFit(specs: Spec[], q: Quota, role: Role, active: number): Problem[] {
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
  return problems;
}

/** Throws 403 naming every exceeded limit. `active`: the user's queued and running runs now. */
export function enforceQuota(specs: Spec[], q: Quota, role: Role, active: number): void {
  const problems = quotaFit(specs, q, role, active);
  if (problems.length)
    throw new ServiceError(
      403,
      `over quota: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      problems,
    );
}
