// UDP cross traffic on a path (seed 000's sinusoidal load, seed 002's CBR and self-similar
// backgrounds): the fields, the checks that depend on the pattern, and the resolved source with its
// rates in bit/s. Shares ("10%") are of the bottleneck the source's direction crosses.
import { z } from 'zod';
import { duration, int, rateOrShare, strict } from './fields.js';
import { LIMITS } from './limits.js';
import { formatMs, formatRate } from './units.js';

export const CrossSchema = z
  .array(
    strict({
      pattern: z.enum(['cbr', 'sine', 'selfsimilar'], { error: 'must be cbr, sine or selfsimilar' }),
      /**
       * forward: from a UDP host on the sender side through the forward bottleneck to a sink at the
       * receiver side; reverse: from a UDP host on the receiver side through the reverse bottleneck
       * to a sink at the sender side (where the forward flows' ACKs queue).
       */
      direction: z
        .enum(['forward', 'reverse'], { error: 'must be forward or reverse' })
        .default('forward')
        .meta({ description: 'forward (default): through the forward bottleneck; reverse: the reverse one' }),
      /** cbr: the constant rate. */
      rate: rateOrShare(LIMITS.rateBps.min, LIMITS.rateBps.max).optional(),
      /** sine and selfsimilar: the mean rate. */
      mean: rateOrShare(LIMITS.rateBps.min, LIMITS.rateBps.max).optional(),
      /** sine: rate(t) = mean + amplitude · sin(2πt / period); at most the mean. */
      amplitude: rateOrShare(0, LIMITS.rateBps.max).optional(),
      period: duration(100, LIMITS.runMs.max).optional(),
      /** selfsimilar: the Hurst parameter of the superposed on/off sources. */
      hurst: z
        .number({ error: 'must be a Hurst parameter from 0.5 to 0.99' })
        .min(0.5, { error: 'must be a Hurst parameter from 0.5 to 0.99' })
        .max(0.99, { error: 'must be a Hurst parameter from 0.5 to 0.99' })
        .optional(),
      sources: int('a whole number from 1 to 1024', 1, 1024).default(16),
      start: duration(0, LIMITS.runMs.max).prefault('0s'),
      duration: duration(1000, LIMITS.runMs.max).optional(),
      /** UDP payload per datagram, bytes. */
      size: int('a datagram payload from 16 to 65507 bytes', 16, 65507).default(1472),
    }),
    { error: 'must be a list of cross-traffic sources' },
  )
  .max(8, { error: 'must have at most 8 cross-traffic sources' })
  .default([]);

type CrossOut = z.output<typeof CrossSchema>[number];
type RateOrShare = { bps: number } | { share: number } | undefined;
/** What a source needs of its path: the rates its shares are of. */
interface PathRates {
  rate: number;
  reverse?: { rate?: number | undefined } | undefined;
}

const directionRate = (p: PathRates, c: CrossOut) =>
  c.direction === 'reverse' ? (p.reverse?.rate ?? p.rate) : p.rate;

/** The pattern's checks for one path's sources; `at` turns (source, field) into an issue path. */
export function checkCross(
  sources: CrossOut[],
  p: PathRates,
  runMs: number,
  issue: (i: number, field: string, message: string) => void,
): void {
  sources.forEach((c, i) => {
    const of = directionRate(p, c);
    const bps = (r: RateOrShare) => (r === undefined ? undefined : 'bps' in r ? r.bps : r.share * of);
    const need = (field: 'rate' | 'mean' | 'amplitude' | 'period' | 'hurst') => {
      if (c[field] === undefined) issue(i, field, `is required for the ${c.pattern} pattern`);
    };
    if (c.pattern === 'cbr') need('rate');
    if (c.pattern === 'sine') for (const f of ['mean', 'amplitude', 'period'] as const) need(f);
    if (c.pattern === 'selfsimilar') for (const f of ['mean', 'hurst'] as const) need(f);
    const mean = bps(c.mean);
    const amp = bps(c.amplitude);
    if (mean !== undefined && amp !== undefined && amp > mean)
      issue(
        i,
        'amplitude',
        `must be at most the mean (${formatRate(mean)}), or the rate would go below zero`,
      );
    if (c.start >= runMs) issue(i, 'start', `must be before the run ends (${formatMs(runMs)})`);
    else if (c.duration !== undefined && c.start + c.duration > runMs)
      issue(i, 'duration', `start + duration must be at most the run's duration ${formatMs(runMs)}`);
  });
}

/** A cross-traffic source with its rates in bit/s, in the generator's own pattern vocabulary. */
export type CrossPattern =
  | { kind: 'cbr'; rateBps: number }
  | { kind: 'sine'; meanBps: number; amplitudeBps: number; periodS: number }
  | { kind: 'selfsimilar'; meanBps: number; hurst: number; sources: number; seed: number };

/** `seedBase`: the run's seed spread per path, so each source has its own reproducible schedule. */
export function resolveCross(
  pname: string,
  p: PathRates & { cross: CrossOut[] },
  runMs: number,
  seedBase: number,
) {
  return p.cross.map((c, k) => {
    const of = directionRate(p, c);
    const bps = (r: RateOrShare) => (r === undefined ? 0 : 'bps' in r ? r.bps : r.share * of);
    const pattern: CrossPattern =
      c.pattern === 'cbr'
        ? { kind: 'cbr', rateBps: bps(c.rate) }
        : c.pattern === 'sine'
          ? {
              kind: 'sine',
              meanBps: bps(c.mean),
              amplitudeBps: bps(c.amplitude),
              periodS: (c.period ?? 0) / 1000,
            }
          : {
              kind: 'selfsimilar',
              meanBps: bps(c.mean),
              hurst: c.hurst ?? 0.8,
              sources: c.sources,
              seed: seedBase + k,
            };
    return {
      name: `${pname}-udp${k + 1}`,
      direction: c.direction,
      pattern,
      start: c.start,
      duration: c.duration ?? runMs - c.start,
      size: c.size,
    };
  });
}
