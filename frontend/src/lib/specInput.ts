// A run carries its spec normalised (ms, bit/s, bytes, expanded flows). To re-run it or open it in
// the designer we need it as a person writes it again; this is the inverse of the schema's
// transform, checked by the schema itself in the tests (normalise ∘ this = identity).
import { formatMs, formatRate, type SpecInput } from '@lfnlab/emulator/spec';

type Loose = Record<string, unknown>;

const ms = (x: unknown) => (typeof x === 'number' ? formatMs(x) : x);
const bps = (x: unknown) => (typeof x === 'number' ? formatRate(x) : x);

function amount(a: unknown): unknown {
  if (!a || typeof a !== 'object') return a;
  const o = a as { packets?: number; bytes?: number; bdp?: number };
  if (o.packets !== undefined) return o.packets;
  if (o.bytes !== undefined) return `${o.bytes}B`;
  if (o.bdp !== undefined) return `${o.bdp}bdp`;
  return undefined;
}

const prune = (o: Loose): Loose => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

function cross(c: Loose): Loose {
  const p = (c.pattern ?? {}) as Loose;
  const common = { start: ms(c.start), duration: ms(c.duration), size: c.size };
  switch (p.kind) {
    case 'cbr':
      return prune({ pattern: 'cbr', rate: bps(p.rateBps), ...common });
    case 'sine':
      return prune({
        pattern: 'sine',
        mean: bps(p.meanBps),
        amplitude: bps(p.amplitudeBps),
        period: typeof p.periodS === 'number' ? formatMs(p.periodS * 1000) : undefined,
        ...common,
      });
    default:
      return prune({
        pattern: 'selfsimilar',
        mean: bps(p.meanBps),
        hurst: p.hurst,
        sources: p.sources,
        ...common,
      });
  }
}

/** True when the spec is already in written form (units as strings). */
export const isWrittenSpec = (spec: unknown): boolean => typeof (spec as Loose | null)?.duration === 'string';

export function toSpecInput(spec: unknown): SpecInput {
  if (isWrittenSpec(spec)) return spec as SpecInput;
  const s = (spec ?? {}) as Loose;
  const paths = Object.fromEntries(
    Object.entries((s.paths ?? {}) as Record<string, Loose>).map(([name, p]) => {
      const rev = (p.reverse ?? {}) as Loose;
      return [
        name,
        prune({
          rtt: ms(p.rtt),
          rate: bps(p.rate),
          buffer: amount(p.buffer),
          ber: p.ber,
          jitter: ms(p.jitter),
          jitterDistribution: p.jitterDistribution,
          aqm: p.aqm,
          cross: Array.isArray(p.cross) ? (p.cross as Loose[]).map(cross) : undefined,
          changes: Array.isArray(p.changes)
            ? (p.changes as Loose[]).map((c) => prune({ at: ms(c.at), rate: bps(c.rate), rtt: ms(c.rtt) }))
            : undefined,
          reverse: p.reverse ? prune({ rate: bps(rev.rate), buffer: amount(rev.buffer) }) : undefined,
        }),
      ];
    }),
  );
  const flows = ((s.flows ?? []) as Loose[]).map((f) =>
    prune({
      name: f.name,
      transport: f.transport === 'tcp' ? undefined : f.transport,
      // udt and rbudp carry their transport's name as their stack once normalised; they take none.
      stack: f.transport === 'udt' || f.transport === 'rbudp' ? undefined : f.stack,
      path: f.path,
      streams: f.streams,
      connect: f.connect === 'serial' ? undefined : f.connect,
      start: ms(f.start),
      omit: f.omit ? ms(f.omit) : undefined,
      // A sized transfer's duration was filled in by the schema ("until the run ends").
      duration: f.bytes === undefined ? ms(f.duration) : undefined,
      rtt: ms(f.rtt),
      direction: f.direction,
      bytes: typeof f.bytes === 'number' ? `${f.bytes}B` : f.bytes,
      rate: bps(f.rate),
      window: amount(f.window),
    }),
  );
  return prune({
    name: s.name,
    description: s.description,
    duration: ms(s.duration),
    sampleInterval: ms(s.sampleInterval),
    sampleHz: s.sampleHz,
    seed: s.seed,
    mtu: s.mtu,
    paths,
    sysctls: s.sysctls,
    stackParams: s.stackParams,
    flows,
  }) as SpecInput;
}
