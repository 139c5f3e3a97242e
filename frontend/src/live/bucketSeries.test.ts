import { describe, expect, it } from 'vitest';
import { BucketSeries } from './bucketSeries';

describe('BucketSeries', () => {
  it('averages points per bucket and aligns series on one time axis', () => {
    const s = new BucketSeries(8, 1);
    s.add(0.2, 'a', 10);
    s.add(0.7, 'a', 20);
    s.add(1.5, 'b', 5);
    const [xs, a, b] = s.toColumns();
    expect(xs).toEqual([0.5, 1.5]);
    expect(a).toEqual([15, null]);
    expect(b).toEqual([null, 5]);
  });

  it('stays within its cap for a 1-hour, 16-flow run at 10 Hz by doubling the bucket width', () => {
    const s = new BucketSeries(2048, 0.1);
    for (let i = 0; i < 36_000; i++) for (let f = 0; f < 16; f++) s.add(i / 10, `flow${f}`, f);
    expect(s.length).toBeLessThanOrEqual(2048);
    expect(s.step).toBeCloseTo(3.2); // 0.1 s doubled five times (cap 2048)
    const cols = s.toColumns();
    expect(cols).toHaveLength(17);
    expect(cols[5]?.every((v) => v === 4)).toBe(true); // means survive merging
  });
});
