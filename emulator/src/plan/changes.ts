// A scheduled path change (the spec's `changes`) in tc's words. The plan shows it on the delay the
// spec configures; a run carries it out on the delay stages it calibrated, taking off the delay the
// emulator itself adds. Both go through pathChangeCmds, so the two can differ only by that correction.
import type { Spec } from '../spec/schema.js';
import { calibrateDelay, rateChange } from './stages.js';
import type { Cmd, PathChange, PathTopology } from './types.js';

/**
 * The commands of one change on one path: a new bottleneck rate on the stage's own qdisc, and/or
 * new delay stages for the new RTT less `excessMs`, the RTT the emulator was measured to add on
 * this path (0 when nothing was measured, as in a dry run; see calibrateDelay).
 */
export function pathChangeCmds(
  spec: Spec,
  topo: PathTopology,
  change: Pick<PathChange, 'rateBps' | 'rttMs'>,
  excessMs: number,
): Cmd[] {
  const path = spec.paths[topo.name];
  if (!path) return [];
  return [
    ...(change.rateBps !== undefined
      ? rateChange(topo.routerIfs.forwardIfb, change.rateBps, topo.bufferPackets.forward, path.aqm)
      : []),
    ...(change.rttMs !== undefined ? calibrateDelay(spec, topo, excessMs, change.rttMs).cmds : []),
  ];
}

/** The spec's scheduled changes, path by path, as planned: on the configured delay. */
export function plannedChanges(spec: Spec, paths: PathTopology[]): PathChange[] {
  return paths.flatMap((topo) =>
    (spec.paths[topo.name]?.changes ?? []).map(
      (c): PathChange => ({
        at: c.at,
        path: topo.name,
        rateBps: c.rate,
        rttMs: c.rtt,
        cmds: pathChangeCmds(spec, topo, { rateBps: c.rate, rttMs: c.rtt }, 0),
      }),
    ),
  );
}

/**
 * The plan's changes as a run carries them out: each one's commands built again on the delay
 * stages the run calibrated. `excessMs` is keyed by path; a path missing from it was not corrected.
 */
export function calibratedChanges(
  spec: Spec,
  changes: PathChange[],
  paths: PathTopology[],
  excessMs: Record<string, number>,
): PathChange[] {
  return changes.map((c) => {
    const topo = paths.find((p) => p.name === c.path);
    return topo && spec.paths[c.path]
      ? { ...c, cmds: pathChangeCmds(spec, topo, c, excessMs[c.path] ?? 0) }
      : c;
  });
}
