// The runs list's filters (owner, stack, preset, verdict, status, campaign, dates): a query over
// records, apart from the run life cycle in runService.ts.
import type { Access } from './access.js';
import type { PublicUser, Run } from './types.js';

export interface RunFilter {
  owner?: string;
  stack?: string;
  preset?: string;
  verdict?: string;
  status?: string;
  campaign?: string;
  from?: string;
  to?: string;
}

/** The runs `viewer` may see that match `f`, newest first. */
export function visibleRuns(runs: Run[], access: Access, viewer: PublicUser, f: RunFilter): Run[] {
  const from = f.from ? Date.parse(f.from) : null;
  const to = f.to ? Date.parse(f.to) : null;
  return runs
    .filter((r) => access.canSee(viewer, r.ownerId))
    .filter((r) => !f.owner || r.owner === f.owner)
    .filter((r) => !f.stack || r.stacks.includes(f.stack))
    .filter((r) => !f.preset || r.preset === f.preset)
    .filter((r) => !f.verdict || r.verdict === f.verdict)
    .filter((r) => !f.status || r.status === f.status)
    .filter((r) => !f.campaign || r.campaign === f.campaign)
    .filter((r) => from === null || Date.parse(r.createdAt) >= from)
    .filter((r) => to === null || Date.parse(r.createdAt) <= to)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
