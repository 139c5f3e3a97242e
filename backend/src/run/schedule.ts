// The traffic phase: the whole timetable (sampler starts, client and cross-traffic starts, socket
// probes, scheduled path changes) handed to the lab at once and carried out on the lab's own clock,
// so every start lands exactly on time in guest time even when the lab's clock is dilated and runs
// at its own pace. The host follows along on the lab's clock (its heartbeats carry it): progress,
// the deadline and the dilation factor are all in guest seconds. Bounded by the planned end plus a
// grace period of guest time, and by a wall-clock stall detector for a lab that stops answering.
import { setMaxListeners } from 'node:events';
import type { Cmd, PathChange, Plan } from '@lfnlab/emulator';
import type { ExitEvent, FiredEvent, LabClockReading } from '@lfnlab/lab-images';
import { sequentialConnectS } from './flowStart.js';
import { type IperfJson, mergeIperf, parseIperf } from './iperf.js';
import { parseSs, type SocketState } from './probes.js';
import type { LabSession, TimetableItem, TimetableStart } from './session.js';
import type { FlowResult } from './summary.js';
import { transportExitError } from './transportFlows.js';

export class Aborted extends Error {}

/** When the last flow or cross-traffic source is planned to stop, s from traffic start. */
export const plannedEndS = (plan: Plan) =>
  Math.max(
    ...plan.topology.flows.map((f) => f.startMs + f.durationMs),
    ...plan.cross.map((c) => c.at + (c.durationMs ?? 0)),
  ) / 1000;

export interface SocketProbe {
  t: number;
  ns: string;
  sockets: SocketState[];
}

/** Where the run stands, in the lab's time. `dilation`: guest seconds per wall second so far. */
export interface TrafficProgress {
  t: number;
  endS: number;
  dilation: number | null;
}

/** The lab's clock during a run: realtime or dilated, and how fast lab time went against the host's. */
export interface RunClock {
  mode: 'realtime' | 'dilated';
  /** Lab seconds per wall second over the traffic phase; null when too short to tell. */
  dilation: number | null;
  /** The traffic phase's length on each clock, s. */
  guestS: number;
  wallS: number;
}

export interface TrafficOptions {
  session: LabSession;
  plan: Plan;
  results: Map<string, FlowResult>;
  log: (line: string) => void;
  event: (type: string, detail: Record<string, unknown>) => void;
  signal?: AbortSignal;
  /** Guest seconds after the planned end before the run is declared stuck. */
  graceS?: number;
  /** Wall seconds without any sign of the lab's clock moving before the lab is declared stuck. */
  stallS?: number;
  /** Filled with each UDP generator's exit (its reports and closing counters). */
  crossExits?: Map<string, ExitEvent>;
  /** The plan's scheduled changes as this run carries them out (calibration applied); the plan's own if absent. */
  changes?: PathChange[];
  /** More items that start with the timetable (the samplers), and what to do once t0 is known. */
  extraItems?: TimetableItem[];
  leadMs?: number;
  onStart?: (t0: TimetableStart) => void;
  onProgress?: (p: TrafficProgress) => void;
}

export interface TrafficOutcome {
  probes: SocketProbe[];
  t0: TimetableStart;
  /** Guest seconds per wall second over the traffic phase (null when too short to tell). */
  dilation: number | null;
  /** Guest seconds from t0 to the last exit. */
  guestS: number;
  wallS: number;
}

/** Guest seconds per wall second between two heartbeat readings, when they are far enough apart. */
export function dilationBetween(a: LabClockReading | undefined, b: LabClockReading | undefined) {
  if (!a || !b || b.hostMs - a.hostMs < 1500) return null;
  return (b.monoMs - a.monoMs) / (b.hostMs - a.hostMs);
}

const fmtT = (t: number) => `t=${t.toFixed(1).padStart(6)} s`;

/**
 * When to run `ss -ti` in each client namespace (lab ms): the stack each socket really uses. At each
 * flow's midpoint, and again at three quarters, because a flow whose SYNs were dropped (many flows
 * starting together into one small buffer) may connect only seconds after its start. A sized
 * transfer may be over long before its midpoint: one more probe a second in, while it surely runs.
 */
export function socketProbeTimes(plan: Plan): { ns: string; at: number }[] {
  const times = new Map<string, { ns: string; at: number }>();
  for (const f of plan.topology.flows) {
    const ats = [0.5, 0.75].map((share) => f.startMs + Math.round(f.durationMs * share));
    if (f.bytes !== null) ats.push(f.startMs + 1000);
    for (const at of ats) times.set(`${f.clientNs}@${at}`, { ns: f.clientNs, at });
  }
  return [...times.values()].sort((a, b) => a.at - b.at || a.ns.localeCompare(b.ns));
}

function buildTimetable(o: TrafficOptions): TimetableItem[] {
  const { plan } = o;
  const items: TimetableItem[] = [...(o.extraItems ?? [])];
  for (const c of [...plan.cross, ...plan.clients])
    items.push({ tag: `start:${c.name}`, atMs: c.at, spawn: { name: c.name, argv: c.argv } });
  for (const { ns, at } of socketProbeTimes(plan)) {
    const cmd = plan.socketProbes[ns] as Cmd;
    items.push({ tag: `probe:${ns}`, atMs: at, exec: [{ ...cmd, allowFail: true }] });
  }
  for (const [i, c] of (o.changes ?? plan.changes).entries())
    items.push({ tag: `change:${i}`, atMs: c.at, exec: c.cmds });
  return items;
}

/**
 * Guest seconds past the planned end before a run is stuck: 30, plus what iperf3 may spend opening
 * a flow's streams one by one, by which its timed run ends late (the flow-start check judges that):
 * twice the round trips, for SYNs that queue behind a full 1 BDP buffer.
 */
export function finishGraceS(plan: Pick<Plan, 'topology'>): number {
  return 30 + 2 * Math.max(0, ...plan.topology.flows.map(sequentialConnectS));
}

export async function runTraffic(o: TrafficOptions): Promise<TrafficOutcome> {
  const { session, plan, results, log } = o;
  const probes: SocketProbe[] = [];
  const procs = [...plan.servers, ...plan.clients, ...plan.cross];
  const byName = new Map([...plan.clients, ...plan.cross].map((p) => [p.name, p]));
  if (o.signal) setMaxListeners(0, o.signal);
  const end = plannedEndS(plan);
  const items = buildTimetable(o);
  const exits = procs.map((p) => ({ proc: p, exit: session.exited(p.name) }));
  // A flow has ended when all its clients have (one per stream when its streams connect together).
  const ended = new Set<string>();
  const clientsLeft = new Map<string, number>();
  for (const c of plan.clients) clientsLeft.set(c.flow, (clientsLeft.get(c.flow) ?? 0) + 1);
  for (const { proc, exit } of exits)
    if (proc.role === 'client')
      void exit.then(
        () => {
          const left = (clientsLeft.get(proc.flow) ?? 1) - 1;
          clientsLeft.set(proc.flow, left);
          if (left <= 0) ended.add(proc.flow);
        },
        () => undefined,
      );
  // Each iperf3's report, in plan order, per flow and side: merged into one when a flow has several.
  const reports = new Map<string, (IperfJson | null)[]>();
  const procsOf = (flow: string, role: string) =>
    [...plan.servers, ...plan.clients].filter((p) => p.flow === flow && p.role === role);

  // Everything that can end the phase early rejects this one promise.
  let fail!: (err: Error) => void;
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  failed.catch(() => undefined);
  const onAbort = () => fail(new Aborted('aborted'));
  if (o.signal?.aborted) throw new Aborted('aborted');
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const onClose = () =>
    fail(
      new Error('the control channel closed mid-run: the lab or its agent stopped (see the lab console log)'),
    );
  session.channel.once('close', onClose);

  let pending = items.length;
  let allFired!: () => void;
  const fired = new Promise<void>((r) => {
    allFired = r;
  });
  if (pending === 0) allFired();
  const onFired = (e: FiredEvent) => {
    const t = e.tMs / 1000;
    if (e.tag.startsWith('start:')) {
      const c = byName.get(e.tag.slice('start:'.length));
      if (e.error) return fail(new Error(`could not start ${c?.name}: ${e.error}`));
      if (c?.role === 'cross') {
        log(`  ${fmtT(t)}  started UDP cross traffic ${c.flow}`);
        o.event('cross-started', { source: c.flow, t });
      } else if (c && results.get(c.flow)?.startedAtS == null) {
        // A flow whose streams connect together starts one iperf3 per stream: told once.
        const r = results.get(c.flow);
        if (r) r.startedAtS = t;
        const f = r?.flow;
        const how =
          f && f.transport !== 'tcp' && f.transport !== f.stack ? `${f.transport}/${f.stack}` : f?.stack;
        log(
          `  ${fmtT(t)}  started ${c.flow} (${how}, ${f?.direction}, ${f?.streams} stream${f?.streams === 1 ? '' : 's'})`,
        );
        o.event('flow-started', { flow: c.flow, t });
      }
    } else if (e.tag.startsWith('sampler:')) {
      if (e.error) return fail(new Error(`could not start ${e.tag}: ${e.error}`));
    } else if (e.tag.startsWith('probe:')) {
      probes.push({ t, ns: e.tag.slice('probe:'.length), sockets: parseSs(e.results?.[0]?.stdout ?? '') });
    } else if (e.tag.startsWith('change:')) {
      const c = (o.changes ?? plan.changes)[Number(e.tag.slice('change:'.length))];
      if (!e.ok) {
        const bad = e.results?.find((r) => r.code !== 0 || r.error);
        return fail(
          new Error(`scheduled change failed: ${bad?.argv.join(' ')}: ${bad?.stderr ?? bad?.error}`),
        );
      }
      if (c) {
        const what = [
          c.rateBps !== undefined ? `rate ${c.rateBps / 1e6} Mbit/s` : '',
          c.rttMs !== undefined ? `RTT ${c.rttMs} ms` : '',
        ]
          .filter(Boolean)
          .join(', ');
        log(`  ${fmtT(t)}  path ${c.path}: ${what}`);
        o.event('path-changed', { path: c.path, t, rateBps: c.rateBps ?? null, rttMs: c.rttMs ?? null });
      }
    }
    if (--pending === 0) allFired();
  };
  const offFired = session.onFired(onFired);

  const t0 = await Promise.race([session.schedule(items, o.leadMs ?? 500), failed]);
  const wallT0 = Date.now();
  o.onStart?.(t0);

  // Following the lab's clock: each heartbeat says where guest time is.
  const ch = session.channel;
  let first: LabClockReading | undefined;
  let lastMove = Date.now();
  let lastMono = -Infinity;
  let lastLog = Date.now();
  const guestT = () => (ch.labClock ? (ch.labClock.monoMs - t0.t0MonoMs) / 1000 : 0);
  const watch = setInterval(() => {
    const now = ch.labClock;
    if (now && now.monoMs >= t0.t0MonoMs && !first) first = now;
    if (now && now.monoMs > lastMono) {
      lastMono = now.monoMs;
      lastMove = Date.now();
    }
    const t = guestT();
    const dilation = dilationBetween(first, now);
    o.onProgress?.({ t: Math.min(Math.max(t, 0), end), endS: end, dilation });
    const grace = o.graceS ?? finishGraceS(plan);
    if (t > end + grace)
      fail(new Error(`flows did not finish within ${grace} s of the planned end (${end} s), lab time`));
    const stall = o.stallS ?? 60;
    if ((Date.now() - lastMove) / 1000 > stall)
      fail(new Error(`the lab's clock did not move for ${stall} s of wall time: the lab is stuck`));
    if (Date.now() - lastLog >= 5000) {
      lastLog = Date.now();
      const running = plan.topology.flows.filter((f) => {
        const r = results.get(f.name);
        return r?.startedAtS !== null && !ended.has(f.name) && t < (f.startMs + f.durationMs) / 1000;
      }).length;
      const pace = dilation === null ? '' : `, ${dilation.toFixed(2)} lab s per wall s`;
      log(
        `  ${fmtT(Math.max(t, 0))}  of ${end} s, ${running} flow${running === 1 ? '' : 's'} running${pace}`,
      );
    }
  }, 1000);

  let lastExitMono = t0.t0MonoMs;
  try {
    await Promise.race([fired, failed]);
    const collected = Promise.all(
      exits.map(async ({ proc, exit }) => {
        const e = await exit;
        if (e.monoMs !== undefined) lastExitMono = Math.max(lastExitMono, e.monoMs);
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
        const side = procsOf(proc.flow, proc.role);
        const key = `${proc.role}:${proc.flow}`;
        const got = reports.get(key) ?? side.map(() => null);
        got[side.indexOf(proc)] = json;
        reports.set(key, got);
        const merged = side.length > 1 ? mergeIperf(got) : json;
        if (proc.role === 'client') r.client = merged;
        else r.server = merged;
        if (e.code !== 0) {
          const why = json?.error ?? (e.stderr.trim() || `exit ${e.code}${e.signal ? ` (${e.signal})` : ''}`);
          const who =
            side.length > 1 ? `${proc.role} ${side.indexOf(proc) + 1} of ${side.length}` : proc.role;
          r.error = r.error ?? `${who}: ${why}`;
        }
      }),
    );
    await Promise.race([collected, failed]);
  } finally {
    clearInterval(watch);
    offFired();
    session.channel.off('close', onClose);
    o.signal?.removeEventListener('abort', onAbort);
  }
  const guestS = (lastExitMono - t0.t0MonoMs) / 1000;
  const wallS = (Date.now() - wallT0) / 1000;
  const dilation = dilationBetween(first, ch.labClock) ?? (wallS > 0 ? guestS / wallS : null);
  log(
    `  ${fmtT(guestS)}  all flows done (${wallS.toFixed(1)} s of wall time${dilation ? `, ${dilation.toFixed(2)} lab s per wall s` : ''})`,
  );
  return { probes, t0, dilation, guestS, wallS };
}
