// The traffic phase: servers listening, clients started on their schedule, each socket's stack read
// back mid-flow, every process's exit collected; bounded by the planned end plus a grace period.
import { setMaxListeners } from 'node:events';
import type { Cmd, PathChange, Plan } from '@lfnlab/emulator';
import type { ExitEvent } from '@lfnlab/lab-images';
import { parseIperf } from './iperf.js';
import { parseSs, type SocketState } from './probes.js';
import type { LabSession } from './session.js';
import type { FlowResult } from './summary.js';
import { transportExitError } from './transportFlows.js';

export class Aborted extends Error {}

/** When the last flow or cross-traffic source is planned to stop, s from traffic start. */
export const plannedEndS = (plan: Plan) =>
  Math.max(
    ...plan.topology.flows.map((f) => f.startMs + f.durationMs),
    ...plan.cross.map((c) => c.at + (c.durationMs ?? 0)),
  ) / 1000;

export const wait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new Aborted('aborted'));
    const onAbort = () => {
      clearTimeout(t);
      reject(new Aborted('aborted'));
    };
    // The listener goes when the wait is over: a run schedules many waits on one signal.
    const t = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });

function raceAbort<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => signal.addEventListener('abort', () => reject(new Aborted('aborted')))),
  ]);
}

export interface SocketProbe {
  t: number;
  ns: string;
  sockets: SocketState[];
}

export interface TrafficOptions {
  session: LabSession;
  plan: Plan;
  results: Map<string, FlowResult>;
  /** Host time (ms) that is t = 0 of the schedule. */
  t0: number;
  log: (line: string) => void;
  event: (type: string, detail: Record<string, unknown>) => void;
  signal?: AbortSignal;
  /** Grace after the planned end before the run is declared stuck. */
  graceS?: number;
  /** Filled with each UDP generator's exit (its reports and closing counters). */
  crossExits?: Map<string, ExitEvent>;
  /** The commands that carry out a scheduled change now (calibration applied). */
  changeCmds?: (c: PathChange) => Cmd[];
}

export async function runTraffic(o: TrafficOptions): Promise<SocketProbe[]> {
  const { session, plan, results, t0, log } = o;
  const elapsed = () => (Date.now() - t0) / 1000;
  const probes: SocketProbe[] = [];
  const procs = [...plan.servers, ...plan.clients, ...plan.cross];
  // Every start, socket probe and change waits on the run's signal at once: more than Node's
  // default of 10 listeners is the design here, not a leak.
  if (o.signal) setMaxListeners(0, o.signal);
  const exits = procs.map((p) => ({ proc: p, exit: session.exited(p.name) }));
  // Which clients have ended, as it happens (their output is parsed once every flow has started).
  const ended = new Set<string>();
  for (const { proc, exit } of exits)
    if (proc.role === 'client')
      void exit.then(
        () => ended.add(proc.flow),
        () => undefined,
      );

  const crossStarts = plan.cross.map(async (c) => {
    await wait(c.at - (Date.now() - t0), o.signal);
    await session.spawn(c);
    log(`  t=${elapsed().toFixed(1).padStart(6)} s  started UDP cross traffic ${c.flow}`);
    o.event('cross-started', { source: c.flow, t: elapsed() });
  });

  const clientStarts = plan.clients.map(async (c) => {
    await wait(c.at - (Date.now() - t0), o.signal);
    await session.spawn(c);
    const r = results.get(c.flow);
    if (r) r.startedAtS = elapsed();
    const f = r?.flow;
    const how =
      f && f.transport !== 'tcp' && f.transport !== f.stack ? `${f.transport}/${f.stack}` : f?.stack;
    log(
      `  t=${elapsed().toFixed(1).padStart(6)} s  started ${c.flow} (${how}, ${f?.direction}, ${f?.streams} stream${f?.streams === 1 ? '' : 's'})`,
    );
    o.event('flow-started', { flow: c.flow, t: elapsed() });
  });

  // One `ss -ti` per client namespace at each flow's midpoint: the stack each socket really uses.
  const probeTimes = new Map<string, { ns: string; at: number }>();
  // A sized transfer may be over long before the midpoint of the time it was given: one more probe
  // a second in, while its connections are surely up.
  for (const f of plan.topology.flows) {
    const ats = [f.startMs + f.durationMs / 2, ...(f.bytes !== null ? [f.startMs + 1000] : [])];
    for (const at of ats) probeTimes.set(`${f.clientNs}@${at}`, { ns: f.clientNs, at });
  }
  const socketProbes = [...probeTimes.values()].map(async ({ ns, at }) => {
    await wait(at - (Date.now() - t0), o.signal);
    const cmd = plan.socketProbes[ns] as Cmd;
    const r = await session.run({ ...cmd, allowFail: true });
    probes.push({ t: elapsed(), ns, sockets: parseSs(r.stdout) });
  });

  const changes = plan.changes.map(async (c) => {
    await wait(c.at - (Date.now() - t0), o.signal);
    await session.exec(o.changeCmds ? o.changeCmds(c) : c.cmds);
    const what = [
      c.rateBps !== undefined ? `rate ${c.rateBps / 1e6} Mbit/s` : '',
      c.rttMs !== undefined ? `RTT ${c.rttMs} ms` : '',
    ]
      .filter(Boolean)
      .join(', ');
    log(`  t=${elapsed().toFixed(1).padStart(6)} s  path ${c.path}: ${what}`);
    o.event('path-changed', {
      path: c.path,
      t: elapsed(),
      rateBps: c.rateBps ?? null,
      rttMs: c.rttMs ?? null,
    });
  });

  const end = plannedEndS(plan);
  const ticker = setInterval(() => {
    const running = plan.topology.flows.filter((f) => {
      const r = results.get(f.name);
      return r?.startedAtS !== null && !ended.has(f.name) && elapsed() < (f.startMs + f.durationMs) / 1000;
    }).length;
    log(
      `  t=${elapsed().toFixed(1).padStart(6)} s  of ${end} s, ${running} flow${running === 1 ? '' : 's'} running`,
    );
  }, 5000);
  try {
    await raceAbort(Promise.all([...clientStarts, ...crossStarts, ...socketProbes, ...changes]), o.signal);
    // The deadline's timer is cancelled once the flows are done, or it would hold the process.
    const finished = new AbortController();
    const grace = o.graceS ?? 30;
    const deadline = wait(
      (end + grace) * 1000 - (Date.now() - t0),
      AbortSignal.any([finished.signal, ...(o.signal ? [o.signal] : [])]),
    ).then(
      () => {
        throw new Error(`flows did not finish within ${grace} s of the planned end (${end} s)`);
      },
      (err) => {
        if (!finished.signal.aborted) throw err;
      },
    );
    const collected = Promise.all(
      exits.map(async ({ proc, exit }) => {
        const e = await exit;
        if (proc.role === 'cross') {
          o.crossExits?.set(proc.flow, e);
          return;
        }
        const r = results.get(proc.flow);
        if (!r) return;
        if (r.flow.transport !== 'tcp') {
          // Parsed, checked and recorded after the run (transportFlows.ts); here only what each side said.
          r.transportOut = {
            sender: r.transportOut?.sender ?? null,
            receiver: r.transportOut?.receiver ?? null,
            [proc.role === 'client' ? 'sender' : 'receiver']: e.stdout ?? '',
          };
          const why = transportExitError(proc.role === 'client' ? 'client' : 'server', e);
          if (why) r.error = r.error ?? why;
          return;
        }
        const json = parseIperf(e.stdout);
        if (proc.role === 'client') r.client = json;
        else r.server = json;
        if (e.code !== 0) {
          const why = json?.error ?? (e.stderr.trim() || `exit ${e.code}${e.signal ? ` (${e.signal})` : ''}`);
          r.error = r.error ?? `${proc.role}: ${why}`;
        }
      }),
    );
    try {
      await Promise.race([collected, deadline]);
    } finally {
      finished.abort();
    }
  } finally {
    clearInterval(ticker);
  }
  log(`  t=${elapsed().toFixed(1).padStart(6)} s  all flows done`);
  return probes;
}
