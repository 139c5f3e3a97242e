import { describe, expect, it } from 'vitest';
import { BIC_SCALES, cubicScaleAb, cubicScaleSpec, cubicScaleText, lossEpochs } from './cubicScale.js';

/**
 * A sawtooth sampled at 10 Hz: slow start to 1000, then a loss episode every `epochS`: cut to 700,
 * up a little, and cut again 0.3 s later (a second loss in the same window), then a climb back.
 */
function sawtooth(epochS: number, seconds: number) {
  const t: number[] = [];
  const w: number[] = [];
  const every = epochS * 10;
  for (let i = 0; i <= seconds * 10; i++) {
    t.push(i / 10);
    if (i < 30) {
      w.push(10 + 33 * i);
      continue;
    }
    const j = (i - 30) % every;
    w.push([800, 700, 720, 560][j] ?? 560 + (440 * (j - 3)) / (every - 3));
  }
  return { t, w };
}

describe('CUBIC C A/B', () => {
  it('measures loss-to-loss epochs, one per episode, leaving slow start out', () => {
    const { t, w } = sawtooth(10, 45);
    const epochs = lossEpochs(t, w);
    // Episodes at 3, 13, 23, 33 and 43 s, each two reductions 0.3 s apart.
    expect(epochs.length).toBe(4);
    for (const e of epochs) expect(e).toBeCloseTo(10, 5);
    expect(lossEpochs([0], [10])).toEqual([]);
  });

  it('sets C through the spec and compares the epoch ratio with ∛(41/7)', async () => {
    expect(cubicScaleSpec(7, 90).stackParams).toEqual({ cubic: { bic_scale: 7 } });
    const asked: number[] = [];
    const r = await cubicScaleAb({
      pairs: 2,
      seconds: 90,
      run: async (spec) => {
        const c = (spec.stackParams as { cubic: { bic_scale: number } }).cubic.bic_scale;
        asked.push(c);
        const { t, w } = sawtooth(c === 41 ? 10 : 18, 90);
        return { t, cwnd: w, inForce: c, verdict: 'valid' };
      },
      log: () => undefined,
    });
    // AB, then BA: a drift in the host falls on both.
    expect(asked).toEqual([41, 7, 7, 41]);
    expect(r.epochRatios).toHaveLength(2);
    for (const x of r.epochRatios) expect(x).toBeCloseTo(1.8, 5);
    expect(r.theory).toBeCloseTo(Math.cbrt(BIC_SCALES[0] / BIC_SCALES[1]), 12);
    expect(cubicScaleText(r)).toMatch(/bic_scale 7 over 41: 1\.800 .*theory ∛\(41\/7\) = 1\.803/);
  });
});
