// Fixed-memory time series for live charts. Points fall into time buckets; when the run outgrows
// `cap` buckets, neighbouring buckets merge pairwise and the bucket width doubles. A 1-hour run at
// 10 Hz therefore costs the same to draw as a 3-minute one (≤ cap points per series), and the
// picture is the bucket means, never a thinned-out subset of raw points.

export class BucketSeries {
  /** Seconds per bucket. */
  step: number;
  /** Buckets in use (highest index written + 1). */
  length = 0;
  /** Bumped on every change, so a chart redraws only when something changed. */
  version = 0;
  readonly names: string[] = [];
  private readonly index = new Map<string, number>();
  private sums: Float64Array[] = [];
  private counts: Uint32Array[] = [];

  constructor(
    readonly cap = 2048,
    baseStepS = 0.1,
  ) {
    this.step = baseStepS;
  }

  /** Column of a series, created on first use (flows appear as they start). */
  column(name: string): number {
    let c = this.index.get(name);
    if (c === undefined) {
      c = this.names.length;
      this.names.push(name);
      this.index.set(name, c);
      this.sums.push(new Float64Array(this.cap));
      this.counts.push(new Uint32Array(this.cap));
    }
    return c;
  }

  add(tS: number, name: string, value: number): void {
    if (!Number.isFinite(tS) || !Number.isFinite(value) || tS < 0) return;
    const c = this.column(name);
    let i = this.bucketOf(tS);
    while (i >= this.cap) {
      this.coarsen();
      i = this.bucketOf(tS);
    }
    const sums = this.sums[c] as Float64Array;
    const counts = this.counts[c] as Uint32Array;
    sums[i] = (sums[i] as number) + value;
    counts[i] = (counts[i] as number) + 1;
    if (i + 1 > this.length) this.length = i + 1;
    this.version++;
  }

  /** Samplers tick at multiples of the base step; the epsilon keeps 0.3 / 0.1 = 2.999… in bucket 3. */
  private bucketOf(tS: number): number {
    return Math.floor(tS / this.step + 1e-6);
  }

  /** Merge bucket pairs: 2k and 2k+1 become k. */
  private coarsen(): void {
    const half = this.cap / 2;
    for (let c = 0; c < this.names.length; c++) {
      const s = this.sums[c] as Float64Array;
      const n = this.counts[c] as Uint32Array;
      for (let k = 0; k < half; k++) {
        s[k] = (s[2 * k] as number) + (s[2 * k + 1] as number);
        n[k] = (n[2 * k] as number) + (n[2 * k + 1] as number);
      }
      s.fill(0, half);
      n.fill(0, half);
    }
    this.step *= 2;
    this.length = Math.ceil(this.length / 2);
  }

  /** uPlot's column data: bucket centre times, then each series' bucket means (null where empty). */
  toColumns(): [number[], ...(number | null)[][]] {
    const n = this.length;
    const xs = new Array<number>(n);
    for (let i = 0; i < n; i++) xs[i] = (i + 0.5) * this.step;
    const cols = this.names.map((_, c) => {
      const s = this.sums[c] as Float64Array;
      const k = this.counts[c] as Uint32Array;
      const ys = new Array<number | null>(n);
      for (let i = 0; i < n; i++) ys[i] = k[i] ? (s[i] as number) / (k[i] as number) : null;
      return ys;
    });
    return [xs, ...cols];
  }

  /** Points held in all series (for tests and the bench). */
  pointCount(): number {
    let total = 0;
    for (const k of this.counts) for (let i = 0; i < this.length; i++) if (k[i]) total++;
    return total;
  }
}
