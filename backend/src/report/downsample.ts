// Downsampling for plots and resampling for exports.

export interface Point {
  t: number;
  v: number;
}

/**
 * At most `maxPoints` points, keeping every bucket's minimum and maximum in time order, so spikes and
 * dips survive (a plain stride would drop them). Input must be sorted by t. Buckets are equal spans
 * of time, so a burst of samples does not crowd out the rest of the run.
 */
export function downsampleMinMax(points: readonly Point[], maxPoints: number): Point[] {
  if (maxPoints < 2) throw new Error('maxPoints must be at least 2');
  if (points.length <= maxPoints) return points.slice();
  const buckets = Math.floor(maxPoints / 2);
  const first = points[0] as Point;
  const last = points[points.length - 1] as Point;
  const span = last.t - first.t;
  const out: Point[] = [];
  let i = 0;
  for (let b = 0; b < buckets && i < points.length; b++) {
    const end = b === buckets - 1 ? Number.POSITIVE_INFINITY : first.t + (span * (b + 1)) / buckets;
    let lo: Point | null = null;
    let hi: Point | null = null;
    let loI = 0;
    let hiI = 0;
    for (; i < points.length && (points[i] as Point).t <= end; i++) {
      const p = points[i] as Point;
      if (!lo || p.v < lo.v) {
        lo = p;
        loI = i;
      }
      if (!hi || p.v > hi.v) {
        hi = p;
        hiI = i;
      }
    }
    if (!lo || !hi) continue;
    if (loI === hiI) out.push(lo);
    else if (loI < hiI) out.push(lo, hi);
    else out.push(hi, lo);
  }
  return out;
}

/**
 * Split a series where it has a gap (a flow that stopped, a probe that went quiet): longer than
 * `gapS`, so a line is not drawn across time with no data.
 */
export function splitAtGaps(points: readonly Point[], gapS: number): Point[][] {
  const out: Point[][] = [];
  let cur: Point[] = [];
  let prev: Point | null = null;
  for (const p of points) {
    if (prev && p.t - prev.t > gapS && cur.length) {
      out.push(cur);
      cur = [];
    }
    cur.push(p);
    prev = p;
  }
  if (cur.length) out.push(cur);
  return out;
}

/** The median step between consecutive samples; a robust "sample interval". */
export function medianStep(points: readonly Point[]): number | null {
  const d: number[] = [];
  for (let i = 1; i < points.length; i++) {
    const x = (points[i] as Point).t - (points[i - 1] as Point).t;
    if (x > 0) d.push(x);
  }
  if (!d.length) return null;
  d.sort((a, b) => a - b);
  return d[Math.floor(d.length / 2)] as number;
}

/**
 * Values on a regular grid by linear interpolation between the samples around each grid instant.
 * A grid instant further than `maxDistS` from the nearest sample gets null, as Flent does, so
 * a flow that had not started yet or has stopped reads as "no data" rather than a made-up value.
 */
export function resample(
  points: readonly Point[],
  grid: readonly number[],
  maxDistS: number,
  /** How far before its first sample a series may start (Flent: half a step). */
  leadDistS = maxDistS,
): (number | null)[] {
  const out: (number | null)[] = [];
  let j = 0;
  for (const t of grid) {
    while (j < points.length && (points[j] as Point).t <= t) j++;
    const prev = j > 0 ? (points[j - 1] as Point) : null;
    const next = j < points.length ? (points[j] as Point) : null;
    if (prev && next) {
      if (next.t - prev.t <= 2 * maxDistS)
        out.push(
          next.t === prev.t ? prev.v : prev.v + ((next.v - prev.v) * (t - prev.t)) / (next.t - prev.t),
        );
      // A gap in the data: the nearer side if it is close enough, nothing otherwise.
      else if (t - prev.t <= maxDistS) out.push(prev.v);
      else if (next.t - t <= maxDistS) out.push(next.v);
      else out.push(null);
    } else if (prev) out.push(t - prev.t <= maxDistS ? prev.v : null);
    else if (next) out.push(next.t - t <= leadDistS ? next.v : null);
    else out.push(null);
  }
  return out;
}
