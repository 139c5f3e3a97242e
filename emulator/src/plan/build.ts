import type { Spec } from '../spec/schema.js';
import { plannedChanges } from './changes.js';
import { buildDumbbell } from './dumbbell.js';
import { inNs } from './netns.js';
import { buildCross, buildSamplers } from './sampling.js';
import { stackParamReadback, stackParamRestore, stackParamSetup } from './stackParams.js';
import { ROUTER_NS } from './stages.js';
import { buildTraffic, flowTopology, socketProbe } from './traffic.js';
import type { Plan } from './types.js';

/** The whole plan for a spec. Deterministic: the same spec always gives the same plan. */
export function buildPlan(spec: Spec): Plan {
  const net = buildDumbbell(spec);
  const flows = flowTopology(spec, net.paths);
  const { servers, clients } = buildTraffic(spec, flows);
  const samplers = buildSamplers(spec, net.paths, flows);
  const clientNs = [...new Set(flows.map((f) => f.clientNs))];
  const paramSetup = stackParamSetup(spec);
  const paramReadback = stackParamReadback(spec);
  return {
    specName: spec.name,
    seed: spec.seed,
    topology: {
      routerNs: ROUTER_NS,
      // In the order of the snapshot's per-namespace commands, which the record maps by position.
      namespaces: net.namespaces,
      paths: net.paths,
      flows,
    },
    // Stack parameters last: in force before any flow, after the links exist.
    setup: paramSetup ? [...net.setup, paramSetup] : net.setup,
    idleRtt: net.paths.flatMap((p) => {
      const path = spec.paths[p.name];
      const pairs = [
        { group: 0, rttMs: path?.rtt ?? 0, from: p.senderNs, to: p.receiverAddr },
        ...p.groups.map((g) => ({ group: g.index, rttMs: g.rttMs, from: g.senderNs, to: g.receiverAddr })),
      ];
      return pairs.map(({ group, rttMs, from, to }) => ({
        path: p.name,
        group,
        rttMs,
        // With jitter the minimum RTT sits below the configured one by design: nothing to correct.
        calibrate: rttMs > 0 && path?.jitter === 0,
        // The first packet pays for ARP; it is not part of the path's RTT.
        warmup: { argv: inNs(from, ['ping', '-n', '-c', '1', '-W', '5', to]), allowFail: true },
        probe: { argv: inNs(from, ['ping', '-n', '-q', '-c', '10', '-i', '0.2', to]) },
      }));
    }),
    snapshot: paramReadback ? [...net.snapshot, paramReadback] : net.snapshot,
    servers,
    clients,
    cross: buildCross(spec, net.paths),
    samplers,
    changes: plannedChanges(spec, net.paths),
    socketProbes: Object.fromEntries(clientNs.map((ns) => [ns, socketProbe(ns)])),
    // Defaults back first: a later run must not inherit this run's parameters.
    teardown: { ...net.teardown, cmds: [...stackParamRestore(spec), ...net.teardown.cmds] },
  };
}
