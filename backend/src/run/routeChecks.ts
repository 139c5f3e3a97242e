// The end hosts' routes as the spec sets them: `quickack 1` on a path's TCP hosts exactly when the
// path asks for it. Delayed ACKs change what a flow of a few packets measures (its RTT samples,
// any one-way delay timed from an echoed timestamp), so a run must show which it had.
import { type PathTopology, type Spec, tcpEndHosts } from '@lfnlab/emulator';
import type { Check } from './fidelity.js';
import { settingsCheck } from './settingsCheck.js';

/** An end host's route as `ip -j route show` prints it (the fields read here). */
export interface RouteEntry {
  dst: string;
  gateway?: string;
  dev?: string;
  /** The route's metrics, one object each: `{ quickack: 1 }` when it turns delayed ACKs off. */
  metrics?: Record<string, number>[];
}

/** Whether a route turns its host's delayed ACKs off (`quickack 1`). */
export const routeQuickack = (r: RouteEntry): boolean => (r.metrics ?? []).some((m) => m.quickack === 1);

/**
 * Null when the routes were not read (records from before they were) or when no path asks for
 * quickack and no host has it: delayed ACKs, as Linux does, need no proof beyond the plan.
 */
export function checkQuickack(
  spec: Pick<Spec, 'paths'>,
  paths: readonly PathTopology[],
  routes: Record<string, RouteEntry[]> | undefined,
): Check | null {
  if (!routes) return null;
  const hosts = paths.flatMap((p) =>
    tcpEndHosts(p).map((ns) => {
      const route = routes[ns]?.find((r) => r.dst === 'default');
      return { ns, want: spec.paths[p.name]?.quickack === true, got: route ? routeQuickack(route) : null };
    }),
  );
  if (!hosts.some((h) => h.want || h.got)) return null;
  const wrong = hosts
    .filter((h) => h.got !== h.want)
    .map(
      (h) =>
        `${h.ns} ${h.got === null ? 'has no default route' : h.got ? 'quickack 1' : 'delayed ACKs'} (spec ${h.want ? 'quickack' : 'delayed ACKs'})`,
    );
  const asked = hosts.filter((h) => h.want).length;
  return settingsCheck(
    'quickack',
    'quickack 1 on the default route of every end host of a path that asks for it, and only there',
    "end hosts' routes",
    wrong,
    `quickack 1 in force on ${asked} end host${asked === 1 ? '' : 's'}: every segment acknowledged at once`,
  );
}
