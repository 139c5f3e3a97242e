import { describe, expect, it } from 'vitest';
import { must } from '../../test/support/must';
import { defaultSpecForm } from '../designer/formModel';
import { pathTheory } from './specTheory';

describe('path theory', () => {
  it('computes BDP, buffer, responsiveness and link use for 100 Mbit/s × 70 ms', () => {
    const f = defaultSpecForm();
    const t = pathTheory(f, must(f.paths[0]));
    expect(t.bdpBytes).toBeCloseTo(875_000);
    expect(t.bdpPackets).toBeCloseTo(583.33, 1);
    expect(t.bufferPackets).toBeCloseTo(583.33, 1); // 1 × BDP
    // ρ = C·RTT²/(2·MSS) = 1e8 · 0.0049 / (16 · 1460) s
    expect(t.renoResponsivenessS).toBeCloseTo((1e8 * 0.07 ** 2) / (16 * 1460), 6);
    expect(t.forwardConnections).toBe(2);
    expect(t.expectedLinkUse).toBeCloseTo(0.875);
    expect(t.mathisBps).toBeNull();
  });

  it('turns BER into PER per packet size and a Mathis bound', () => {
    const f = defaultSpecForm();
    must(f.paths[0]).ber = '1e-7';
    const t = pathTheory(f, must(f.paths[0]));
    const per1500 = t.per?.find((p) => p.bytes === 1500)?.per ?? 0;
    expect(per1500).toBeCloseTo(1 - (1 - 1e-7) ** 12000, 10);
    expect(t.mathisBps).toBeGreaterThan(0);
  });

  it('blanks only what a bad field breaks', () => {
    const f = defaultSpecForm();
    must(f.paths[0]).rtt = 'soon';
    const t = pathTheory(f, must(f.paths[0]));
    expect(t.bdpBytes).toBeNull();
    expect(t.rateBps).toBe(1e8);
    expect(t.expectedLinkUse).toBeCloseTo(0.875);
  });
});
