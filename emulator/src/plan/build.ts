import type { Spec } from '../spec/schema.js';
import { plannedChanges } from './changes.js';
import { buildDumbbell } from './dumbbell.js';
import { inNs } from './netns.js';
import { buildCross, buildSamplers } from './sampling.js';
import { labKernelArgs, stackParamReadback, stackParamRestore, stackParamSetup } from './stackParams.js';
import { ROUTER_NS } from './stages.js';
import { buildTraffic, flowTopology, socketProbe } from './traffic.js';
import type { Cmd, Plan, Proc, Sampler } from './types.js';
import { buildWire, wireTapNames } from './wire.js';

export interface PlanOptions {
  /** A wire's host taps (the lab's, from its record); by default those of the lab named `default`. */
  wireTaps?: { a: string; b: string };
}

/** The whole plan for a spec. Deterministic: the same spec (and lab) always gives the same plan. */
export function buildPlan(spec: Spec, opts: PlanOptions = {}): Plan {
  const wired = spec.wire ? buildWire(spec, opts.wireTaps ?? wireTapNames('default')) : null;
  const net = wired ?? buildDumbbell(spec);
  const flows = flowTopology(spec, net.paths);
  const { servers, clients } = buildTraffic(spec, flows);
  const samplers = buildSamplers(spec, net.paths, flows, wired?.wire);
  const clientNs = [...new Set(flows.map((f) => f.clientNs))];
  const paramSetup = stackParamSetup(spec);
  const paramReadback = stackParamReadback(spec);
  const plan: Plan = {
    specName: spec.name,
    seed: spec.seed,
    labKernelArgs: labKernelArgs(spec),
    topology: {
      routerNs: ROUTER_NS,
      // In the order of the snapshot's per-namespace commands, which the record maps by position.
      namespaces: net.namespaces,
      paths: net.paths,
      flows,
      wire: wired?.wire ?? null,
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
  return wired ? onExternalHosts(plan, net.namespaces) : plan;
}

/**
 * With a wire, the flows, their probes and the samplers of their sockets live on the external
 * hosts: everything that runs in one of their namespaces is marked to run there.
 */
function onExternalHosts(plan: Plan, namespaces: string[]): Plan {
  const external = new Set(namespaces.filter((ns) => ns !== ROUTER_NS));
  const there = (argv: string[]) =>
    argv[0] === 'ip' && argv[1] === 'netns' && argv[2] === 'exec' && external.has(argv[3] ?? '');
  const cmd = (c: Cmd): Cmd => (there(c.argv) ? { ...c, on: 'hosts' } : c);
  const proc = (p: Proc): Proc => ({
    ...p,
    ...(there(p.argv) ? { on: 'hosts' as const } : {}),
    ...(p.ready ? { ready: cmd(p.ready) } : {}),
  });
  const sampler = (s: Sampler): Sampler => (external.has(s.ns) ? { ...s, on: 'hosts' } : s);
  return {
    ...plan,
    idleRtt: plan.idleRtt.map((r) => ({ ...r, warmup: cmd(r.warmup), probe: cmd(r.probe) })),
    servers: plan.servers.map(proc),
    clients: plan.clients.map(proc),
    samplers: plan.samplers.map(sampler),
    socketProbes: Object.fromEntries(Object.entries(plan.socketProbes).map(([ns, c]) => [ns, cmd(c)])),
  };
}
