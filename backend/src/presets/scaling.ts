// Dimensionless groups of a preset, the paper's against ours. A preset scales the paper's rate by k
// (scaling.rateFactor; the RTT by rttFactor, usually 1), so the window in packets (the BDP) shrinks
// by k·rttFactor. A stack constant counted in packets keeps its meaning only if it shrinks with
// it; one counted in time keeps its meaning against the RTT but not against a congestion epoch,
// which grows with the window. See emulator/src/spec/stackParamCatalog.ts for the constants.
import {
  bdpBytes,
  frameBytes,
  type Spec,
  STACK_PARAMS,
  type StackParam,
  stackParam,
  usesKernelTcp,
} from '@lfnlab/emulator';
import { expandCampaign } from '../campaign/expand.js';
import { shortenForCi, shorteningOf } from './ci.js';
import { globRe, type Preset } from './load.js';

/** A group counts as preserved when ours is within this share of the paper's. */
export const PRESERVED_WITHIN = 0.1;

export interface DimensionlessGroup {
  /** `bdp`, `buffer`, `fast.alpha`, `htcp.delta_l/epoch`: what a scaling caveat names. */
  id: string;
  label: string;
  /** What the group compares: the window (packets), a rate, the RTT, a congestion epoch, the run. */
  against: 'none' | 'window' | 'rate' | 'rtt' | 'epoch' | 'run';
  paper: number | null;
  ours: number | null;
  /** null: the paper's value is not known here. */
  preserved: boolean | null;
  note?: string;
}

export interface PresetScaling {
  rateFactor: number;
  rttFactor: number;
  /** The paper's times to ours: the meta's timeFactor, times the shortening when runs were shortened. */
  timeFactor: number;
  /**
   * The operating point the groups are computed at: the preset's first run, at the length compared
   * (`runS`, absent in comparisons published before it was recorded).
   */
  at: { part: string; variant: string; rateMbps: number; rttMs: number; mtu: number; runS?: number };
  /** BDP in packets over every run and path of the preset, ours (the paper's: divide by rateFactor·rttFactor). */
  bdpRange: { min: number; max: number };
  /** Kernel stacks the preset's runs use. */
  stacks: string[];
  groups: DimensionlessGroup[];
}

const near = (a: number | null, b: number | null): boolean | null =>
  a === null || b === null ? null : b === 0 ? a === 0 : Math.abs(a / b - 1) <= PRESERVED_WITHIN;

/**
 * A whole-packet parameter is as preserved as it can be when it is the scaled default rounded to
 * the nearest whole packet, provided that is at least 2 (1 and 0 change what the rule means).
 */
export const wholePacketTarget = (def: number, k: number): number | null => {
  const ideal = def * k;
  return ideal >= 1.5 ? Math.round(ideal) : null;
};

/** A time constant in ms; null for one counted in RTTs (already relative to the RTT). */
function paramMs(p: StackParam, value: number): number | null {
  if (p.unit === 'ms') return value;
  if (p.unit === 's') return value * 1000;
  if (p.unit === 'us') return value / 1000;
  return null;
}

/** The groups of one operating point; `inForce` is the spec's stackParams (defaults elsewhere). */
export function scalingGroups(o: {
  rateBps: number;
  rttMs: number;
  mtu: number;
  /** Buffer over BDP in our runs, and whether the spec gives it in BDPs (then the rule keeps it). */
  bufferBdp: number;
  bufferInBdp: boolean;
  runMs: number;
  rateFactor: number;
  rttFactor: number;
  timeFactor: number;
  stacks: string[];
  inForce: Record<string, Record<string, number>>;
  /** Time between the starts of flows that then compete (count with every), or null. */
  staggerMs?: number | null;
  /** The most streams of one parallel flow (P-TCP), the paper's count; null without one. */
  parallelStreams?: number | null;
}): DimensionlessGroup[] {
  const k = o.rateFactor * o.rttFactor;
  const wOurs = bdpBytes(o.rateBps, o.rttMs) / frameBytes(o.mtu);
  const wPaper = wOurs / k;
  const rttPaper = o.rttMs / o.rttFactor;
  const runPaperMs = o.runMs / o.timeFactor;
  // Largest window of a loss-based flow: the pipe plus the buffer; the paper's buffer as ours in
  // BDPs (when it is not given in BDPs this is an assumption, said in the buffer group).
  const peak = (w: number) => w * (1 + o.bufferBdp);
  // Reno-like growth of one packet per RTT from half the peak back to it.
  const epochMs = (w: number, rtt: number) => (peak(w) / 2) * rtt;
  const groups: DimensionlessGroup[] = [
    {
      id: 'bdp',
      label: 'BDP (packets)',
      against: 'none',
      paper: wPaper,
      ours: wOurs,
      preserved: near(wOurs, wPaper),
    },
    {
      id: 'buffer',
      label: 'buffer / BDP',
      against: 'window',
      paper: o.bufferInBdp ? o.bufferBdp : null,
      ours: o.bufferBdp,
      preserved: o.bufferInBdp ? true : null,
      ...(o.bufferInBdp
        ? {}
        : { note: "the spec gives the buffer in packets or bytes; the paper's is not known here" }),
    },
  ];
  if (o.staggerMs) {
    // Both sides' epoch is one flow's; with n flows each window is n times smaller on both sides,
    // so the ratio holds for every n.
    const paper = o.staggerMs / o.timeFactor / epochMs(wPaper, rttPaper);
    const ours = o.staggerMs / epochMs(wOurs, o.rttMs);
    groups.push({
      id: 'stagger/epoch',
      label: 'stagger / congestion epoch',
      against: 'epoch',
      paper,
      ours,
      preserved: near(ours, paper),
      note: 'congestion epochs a newcomer and the flows before it go through until the next flow joins (epoch: one flow growing one packet per RTT from half the peak window back to it)',
    });
  }
  if (o.parallelStreams) {
    // n streams add n packets per RTT between them and a loss cuts 1/(2n) of the aggregate: a
    // count of packets per RTT like any stack constant, kept at the paper's n while the window shrinks.
    const n = o.parallelStreams;
    groups.push({
      id: 'streams',
      label: 'parallel streams / BDP',
      against: 'window',
      paper: n / wPaper,
      ours: n / wOurs,
      preserved: near(n / wOurs, n / wPaper),
      note: `${n} streams, the paper's count: the flow grows by ${n} packets per RTT and a loss costs it 1/${2 * n} of its window`,
    });
  }
  for (const stack of o.stacks) {
    for (const p of STACK_PARAMS[stack]?.params ?? []) {
      const by = p.scaledBy ? (o.inForce[stack]?.[p.scaledBy] ?? 100) : null;
      const v = by !== null ? (p.default * by) / 100 : (o.inForce[stack]?.[p.name] ?? p.default);
      const id = `${stack}.${p.name}`;
      if (p.dimension === 'window') {
        const paper = p.default / wPaper;
        const ours = v / wOurs;
        const rounded = by === null && v !== p.default && v === wholePacketTarget(p.default, k);
        groups.push({
          id,
          label: `${stack} ${p.name} / BDP`,
          against: 'window',
          paper,
          ours,
          preserved: rounded || near(ours, paper),
          ...(by !== null && by !== 100
            ? {
                note: `${p.scaledBy} = ${by}: in force ${p.default} × ${by / 100} = ${v.toFixed(2)} (${p.default} × k = ${(p.default * k).toFixed(2)})`,
              }
            : v !== p.default
              ? {
                  note: `set to ${v} (default ${p.default}; ${p.default} × ${k.toFixed(4)} = ${(p.default * k).toFixed(2)}${rounded ? ', rounded to whole packets' : ''})`,
                }
              : {}),
        });
      } else if (p.dimension === 'rate') {
        // 0 means "measured": the capacity the flow sees, which scales with the link by itself.
        const paper = p.default ? (p.default * 1e6) / (o.rateBps / o.rateFactor) : 1;
        const ours = v ? (v * 1e6) / o.rateBps : 1;
        groups.push({
          id,
          label: `${stack} ${p.name} / link rate`,
          against: 'rate',
          paper,
          ours,
          preserved: near(ours, paper),
        });
      } else if (p.dimension === 'time') {
        const msOurs = paramMs(p, v);
        const msPaper = paramMs(p, p.default);
        const ours = msOurs === null ? v : msOurs / o.rttMs;
        const paper = msPaper === null ? p.default : msPaper / rttPaper;
        groups.push({
          id,
          label: msOurs === null ? `${stack} ${p.name} (RTTs)` : `${stack} ${p.name} / RTT`,
          against: 'rtt',
          paper,
          ours,
          preserved: near(ours, paper),
        });
        if (msOurs !== null && msPaper !== null && msPaper >= 60_000) {
          groups.push({
            id: `${id}/run`,
            label: `${stack} ${p.name} / run length`,
            against: 'run',
            paper: msPaper / runPaperMs,
            ours: msOurs / o.runMs,
            preserved: near(msOurs / o.runMs, msPaper / runPaperMs),
          });
        }
      }
    }
    if (stack === 'htcp') {
      const paper = 1000 / epochMs(wPaper, rttPaper);
      const ours = 1000 / epochMs(wOurs, o.rttMs);
      groups.push({
        id: 'htcp.delta_l/epoch',
        label: 'htcp Δ_L / congestion epoch',
        against: 'epoch',
        paper,
        ours,
        preserved: near(ours, paper),
        note: 'epoch: Reno-like growth from half the peak window (BDP + buffer) back to it',
      });
    }
    if (stack === 'cubic') {
      // C = bic_scale·10/1024: the paper ran the default, ours is what the spec boots the lab with.
      const cOf = (bicScale: number) => bicScale * (10 / 1024);
      const kMs = (w: number, c: number) => Math.cbrt((peak(w) * 0.3) / c) * 1000;
      const bicScale = stackParam('cubic', 'bic_scale')?.default ?? 41;
      const paper = kMs(wPaper, cOf(bicScale)) / rttPaper;
      const ours = kMs(wOurs, cOf(o.inForce.cubic?.bic_scale ?? bicScale)) / o.rttMs;
      groups.push({
        id: 'cubic.K/rtt',
        label: 'cubic K / RTT',
        against: 'rtt',
        paper,
        ours,
        preserved: near(ours, paper),
        note: 'K = ∛(W·(1−β)/C): the time to regain the window after a loss, at the peak window',
      });
    }
  }
  return groups;
}

/** The kernel stacks a resolved spec's flows use. */
const kernelStacks = (spec: Spec): string[] =>
  spec.flows.filter((f) => usesKernelTcp(f.transport)).map((f) => f.stack);

/**
 * The time between joins of flows that then compete: the smallest `every` of a flow started more
 * than once whose copies overlap (each lasting longer than the stagger); null when none do.
 */
export function competingStaggerMs(spec: Spec): number | null {
  const staggers = spec.flows
    .filter((f) => f.count > 1 && f.every > 0 && (f.duration === undefined || f.duration > f.every))
    .map((f) => f.every);
  return staggers.length ? Math.min(...staggers) : null;
}

/**
 * The most streams of one parallel kernel-TCP flow in a spec whose window scales with the path (none
 * given, or in BDPs), so losses, not the socket buffer, pace its streams; null when there is none.
 * A flow of streams with fixed-size windows is window-bound: its count scales with the BDP counted in
 * windows, a choice the preset states itself (seed004-maxbw's 256 → 26).
 */
export function parallelStreams(spec: Spec): number | null {
  const lossBound = spec.flows.filter(
    (f) => usesKernelTcp(f.transport) && (f.window === undefined || 'bdp' in f.window),
  );
  const n = Math.max(1, ...lossBound.map((f) => f.streams));
  return n > 1 ? n : null;
}

/**
 * A preset's groups, at its first run's first path, for every stack any of its runs uses; with
 * `seconds`, at runs shortened to that length as CI and reproductions shorten them (every time in
 * the spec scaled alike, so the stagger and the run length move and time-scale groups with them).
 */
export function presetScaling(p: Preset, seconds: number | null = null): PresetScaling {
  const campaignOf = (c: Preset['parts'][number]['campaign']) =>
    seconds !== null && shorteningOf(c, seconds) < 1 ? shortenForCi(c, seconds) : c;
  const variants = p.parts.flatMap((part) =>
    expandCampaign(campaignOf(part.campaign)).map((v) => ({ part: part.name, v })),
  );
  const first = variants[0];
  if (!first) throw new Error(`${p.name}: no runs`);
  const spec = first.v.resolved;
  const firstPart = p.parts.find((x) => x.name === first.part);
  const shortening = seconds !== null && firstPart ? shorteningOf(firstPart.campaign, seconds) : 1;
  const [pathName, path] = Object.entries(spec.paths)[0] ?? [];
  if (!pathName || !path) throw new Error(`${p.name}: no path`);
  const stacks = [...new Set(variants.flatMap(({ v }) => kernelStacks(v.resolved)))].sort();
  // Window groups keep their paper/ours ratio (k) at every point; the BDP itself varies with the runs.
  const bdps = variants.flatMap(({ v }) =>
    Object.values(v.resolved.paths).map((x) => bdpBytes(x.rate, x.rtt) / frameBytes(v.resolved.mtu)),
  );
  const bdp = bdpBytes(path.rate, path.rtt);
  const buffer = path.buffer;
  const bufferBytes =
    'bdp' in buffer
      ? buffer.bdp * bdp
      : 'bytes' in buffer
        ? buffer.bytes
        : buffer.packets * frameBytes(spec.mtu);
  const { rateFactor, rttFactor } = p.meta.scaling;
  const timeFactor = p.meta.scaling.timeFactor * shortening;
  return {
    rateFactor,
    rttFactor,
    timeFactor,
    at: {
      part: first.part,
      variant: first.v.label,
      rateMbps: path.rate / 1e6,
      rttMs: path.rtt,
      mtu: spec.mtu,
      runS: spec.duration / 1000,
    },
    bdpRange: { min: Math.min(...bdps), max: Math.max(...bdps) },
    stacks,
    groups: scalingGroups({
      rateBps: path.rate,
      rttMs: path.rtt,
      mtu: spec.mtu,
      bufferBdp: bdp > 0 ? bufferBytes / bdp : 0,
      bufferInBdp: 'bdp' in buffer,
      runMs: spec.duration,
      rateFactor,
      rttFactor,
      timeFactor,
      stacks,
      inForce: spec.stackParams ?? {},
      staggerMs: competingStaggerMs(spec),
      parallelStreams: Math.max(0, ...variants.map(({ v }) => parallelStreams(v.resolved) ?? 0)) || null,
    }),
  };
}

/** The meta file's caveats that name a group (ids or `*` patterns). */
export function caveatsOf(p: Preset, groupId: string): Preset['meta']['scaling']['caveats'] {
  return p.meta.scaling.caveats.filter((c) => c.groups.some((g) => globRe(g).test(groupId)));
}

/** Groups the scaling does not keep that the meta file leaves unexplained (the BDP itself is the point). */
export function unexplainedGroups(p: Preset, s: PresetScaling): string[] {
  return s.groups
    .filter((g) => g.preserved === false && g.id !== 'bdp' && caveatsOf(p, g.id).length === 0)
    .map((g) => g.id);
}
