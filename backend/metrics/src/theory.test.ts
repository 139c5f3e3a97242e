import { bdpBytes, perFromBer } from '@lfnlab/emulator/sizing';
import { describe, expect, it } from 'vitest';
import { MetricInputError } from './guard.js';
import {
  bdpPackets,
  gridDecreaseShare,
  lineErrorsPerS,
  MATHIS_C,
  mathisMaxLossRate,
  mathisThroughputBitPerS,
  nFlowLinkUse,
  recoveryIncrements,
  responsivenessS,
} from './theory.js';

const k = 1e3;
const M = 1e6;
const G = 1e9;
const MIN = 60;

/** Rounds to `digits` significant figures, the way the papers quote their results. */
const sig = (x: number, digits: number) => (digits === 0 ? Math.round(x) : Number(x.toPrecision(digits)));

describe('responsiveness (seed 003 §III.A.1, β = 0.9 as in the paper)', () => {
  // [case, C bit/s, RTT s, MSS bytes, published ρ, its unit (s), significant figures quoted
  //  (0: rounded to whole units), published N_inc, significant figures quoted]
  const cases: [string, number, number, number, number, number, number, number, number][] = [
    ['1 LAN 1988, 2 ms', 10 * M, 0.002, 1460, 1.5, 1e-3, 2, 1, 1],
    ['1 LAN 1988, 20 ms', 10 * M, 0.02, 1460, 150, 1e-3, 2, 8, 1],
    ['2 WAN 1988', 9.6 * k, 0.04, 1460, 0.6, 1e-3, 1, 1, 1],
    ['3 LAN today', 100 * M, 0.005, 1460, 96, 1e-3, 2, 20, 2],
    ['4 WAN today', 2 * M, 0.04, 1460, 120, 1e-3, 2, 4, 1],
    ['5 CERN-StarTAP', 155 * M, 0.12, 1460, 86, 1, 2, 720, 2],
    ['6 CERN-StarLight', 622 * M, 0.12, 1460, 6, MIN, 1, 2900, 2],
    ['7 2.5 Gbit/s jumbo', 2.5 * G, 0.12, 8960, 4, MIN, 1, 1900, 2],
    ['7 2.5 Gbit/s', 2.5 * G, 0.12, 1460, 23, MIN, 2, 11_600, 3],
    ['8 10 Gbit/s jumbo', 10 * G, 0.12, 8960, 15, MIN, 2, 7500, 2],
    ['9 Sun-Earth', 10, 1000, 1500, 6, MIN, 1, 1, 1],
    ['10 Mars-Earth, 20 min', 10, 20 * MIN, 1500, 9, MIN, 1, 1, 1],
    ['10 Mars-Earth, 50 min', 10, 50 * MIN, 1500, 1, 3600, 0, 2, 1], // 56 min: "about 1 h"
  ];

  it.each(cases)('case %s', (_name, c, rtt, mss, rho, unit, rhoDigits, nInc, nDigits) => {
    const input = { capacityBitPerS: c, rttS: rtt, mssBytes: mss, payloadRatio: 0.9 };
    expect(sig(responsivenessS(input) / unit, rhoDigits)).toBe(rho);
    expect(sig(recoveryIncrements(input), nDigits)).toBe(nInc);
  });

  it('case 6 in seconds: 622 Mbit/s, 120 ms, 1460 B is about 345 s (the "6 minutes")', () => {
    const rho = responsivenessS({ capacityBitPerS: 622 * M, rttS: 0.12, mssBytes: 1460, payloadRatio: 0.9 });
    expect(rho).toBeCloseTo((0.9 * 622 * M * 0.12 ** 2) / (16 * 1460), 9);
    expect(rho).toBeGreaterThan(5.5 * MIN);
    expect(rho).toBeLessThan(6 * MIN);
  });

  it('case 8 at 1460 B: 1 h 32 min (§III.B; §III.A rounds it to 1 h 30)', () => {
    const rho = responsivenessS({ capacityBitPerS: 10 * G, rttS: 0.12, mssBytes: 1460, payloadRatio: 0.9 });
    expect(Math.floor(rho / MIN)).toBe(92);
    expect(
      recoveryIncrements({ capacityBitPerS: 10 * G, rttS: 0.12, mssBytes: 1460, payloadRatio: 0.9 }),
    ).toBe(46_233);
  });

  it('defaults to β = 1 (the plain C·RTT²/(2·MSS))', () => {
    const rho = responsivenessS({ capacityBitPerS: 622 * M, rttS: 0.12, mssBytes: 1460 });
    expect(rho).toBeCloseTo((622 * M * 0.12 ** 2) / (16 * 1460), 9);
  });

  it('rejects a zero capacity or MSS', () => {
    expect(() => responsivenessS({ capacityBitPerS: 0, rttS: 0.1, mssBytes: 1460 })).toThrow(
      /capacityBitPerS/,
    );
    expect(() => responsivenessS({ capacityBitPerS: 1, rttS: 0.1, mssBytes: 0 })).toThrow(/mssBytes/);
  });
});

// bdpBytes and perFromBer are the emulator's (RTT in ms), the one BDP and PER the lab sizes paths by.
describe('bandwidth-delay product', () => {
  it('matches seed 003 §III.A.2 packets in transit (β = 0.9, ASS = 1460 B)', () => {
    expect(0.9 * bdpBytes(10 * M, 2)).toBeCloseTo(2250, 9); // case 1: NBT 2250
    expect(Math.ceil(bdpPackets(10 * M, 0.002, 1460, 0.9))).toBe(2); // NPT 2
    expect(Math.ceil(0.9 * bdpBytes(9.6 * k, 40))).toBe(44); // case 2: NBT 44 (43.2 rounded up)
    expect(Math.ceil(bdpPackets(9.6 * k, 0.04, 1460, 0.9))).toBe(1);
    expect(sig(0.9 * bdpBytes(622 * M, 120), 2)).toBe(8_400_000); // case 3
    expect(sig(bdpPackets(622 * M, 0.12, 1460, 0.9), 3)).toBe(5750);
    expect(sig(0.9 * bdpBytes(2.5 * G, 120), 2)).toBe(34_000_000); // case 4
    expect(sig(bdpPackets(2.5 * G, 0.12, 1460, 0.9), 2)).toBe(23_000);
  });

  it('matches seed 000: 10 Gbit/s at 100 ms needs 83,333 segments of 1500 B', () => {
    expect(Math.floor(bdpPackets(10 * G, 0.1, 1500))).toBe(83_333);
  });

  it('matches seed 000 §6.2.2: 17 ms × 10 Gbit/s is about 20 MB', () => {
    expect(sig(bdpBytes(10 * G, 17), 1)).toBe(20e6);
  });

  it('rejects zero RTT or packet size', () => {
    expect(() => bdpPackets(1 * G, 0, 1500)).toThrow(/rttS/);
    expect(() => bdpPackets(1 * G, 0.1, 0)).toThrow(/packetBytes/);
    expect(() => bdpPackets(1 * G, 0.1, 1500, 0)).toThrow(/payloadRatio/);
  });
});

describe('Mathis bound', () => {
  it('computes (MSS/RTT)·√(3/2)/√p in bit/s', () => {
    expect(MATHIS_C).toBeCloseTo(1.224745, 6);
    // 1460 B, 100 ms, p = 1e-4: 116,800 bit/s · 1.224745 / 0.01 ≈ 14.3 Mbit/s
    expect(mathisThroughputBitPerS(1460, 0.1, 1e-4)).toBeCloseTo(116_800 * 122.474487, 0);
  });

  it('matches seed 000 §1: 10 Gbit/s over 100 ms with 1500 B allows one loss in about 5e9 packets', () => {
    const p = mathisMaxLossRate(10 * G, 1500, 0.1);
    expect(sig(1 / p, 1)).toBe(5e9);
    expect(mathisThroughputBitPerS(1500, 0.1, p)).toBeCloseTo(10 * G, 0);
  });

  it('rejects a zero loss rate (the bound is infinite)', () => {
    expect(() => mathisThroughputBitPerS(1460, 0.1, 0)).toThrow(/lossRate/);
  });
});

describe('perFromBer', () => {
  it.each([
    [1e-9, 1500, 1.2e-5],
    [1e-5, 1500, 0.113],
    [1e-9, 66, 5.28e-7],
    [1e-5, 66, 5.27e-3],
  ])('BER %d, %d B → PER ≈ %d', (ber, bytes, per) => {
    expect(sig(perFromBer(ber, bytes), 3)).toBe(per);
  });

  it('keeps its precision at tiny BER, where 1 − (1 − BER)^n rounds to garbage', () => {
    // Binomial expansion with n = 12000 bits: PER = n·BER − n(n − 1)/2·BER² + O(BER³).
    const n = 12_000;
    const ber = 1e-15;
    const exact = n * ber - ((n * (n - 1)) / 2) * ber ** 2;
    expect(Math.abs(perFromBer(ber, 1500) / exact - 1)).toBeLessThan(1e-12);
    const naive = 1 - (1 - ber) ** n;
    expect(Math.abs(naive / exact - 1)).toBeGreaterThan(1e-4); // off in the 4th digit
  });

  it('spans 0 to 1, a BER outside it held at its end (the spec schema rejects those first)', () => {
    expect(perFromBer(0, 1500)).toBe(0);
    expect(perFromBer(1, 1500)).toBe(1);
    expect(perFromBer(-1e-9, 1500)).toBe(0);
    expect(perFromBer(2, 1500)).toBe(1);
  });
});

describe('lineErrorsPerS (seed 003 §III.B)', () => {
  it('multiplies BER by line rate', () => {
    expect(sig(lineErrorsPerS(1e-9, 622 * M), 1)).toBe(0.6);
    expect(sig(lineErrorsPerS(1e-11, 622 * M), 1)).toBe(0.006);
    expect(lineErrorsPerS(1e-9, 2.5 * G)).toBeCloseTo(2.5, 12);
    expect(lineErrorsPerS(1e-11, 10 * G)).toBeCloseTo(0.1, 12);
  });

  it('with 10 % left uncorrected: one error every 4 s, 7 min, 1 s, 2 min', () => {
    expect(1 / lineErrorsPerS(1e-9, 2.5 * G, 0.1)).toBeCloseTo(4, 9);
    expect(Math.round(1 / lineErrorsPerS(1e-11, 2.5 * G, 0.1) / MIN)).toBe(7);
    expect(1 / lineErrorsPerS(1e-9, 10 * G, 0.1)).toBeCloseTo(1, 9);
    expect(Math.round(1 / lineErrorsPerS(1e-11, 10 * G, 0.1) / MIN)).toBe(2);
  });
});

describe('nFlowLinkUse (seed 003 eq. 12)', () => {
  it('gives 75 % for one flow, 87.5 % for two, 93.75 % for three', () => {
    expect(nFlowLinkUse(1)).toBe(0.75);
    expect(nFlowLinkUse(2)).toBe(0.875);
    expect(nFlowLinkUse(3)).toBe(0.9375);
  });

  it('follows the formula where the paper’s text does not', () => {
    // The text quotes 96.9 % for N = 5, which is 1 − 1/2^5, i.e. the formula at N = 4.
    expect(sig(nFlowLinkUse(4), 3)).toBe(0.969);
    expect(nFlowLinkUse(5)).toBe(1 - 1 / 64);
  });

  it('needs a whole, positive number of flows', () => {
    expect(() => nFlowLinkUse(0)).toThrow(MetricInputError);
    expect(() => nFlowLinkUse(2.5)).toThrow(/whole number/);
  });
});

describe('gridDecreaseShare (seed 003 eq. 15)', () => {
  it('reproduces the worked shares and the bandwidth saved on 622 Mbit/s', () => {
    expect(sig(gridDecreaseShare(0.05), 3)).toBe(0.0476);
    expect(sig(gridDecreaseShare(0.2), 3)).toBe(0.167);
    expect(gridDecreaseShare(1)).toBe(0.5);
    // Versus halving: saves about 14 and 41 Mbit/s.
    expect(Math.round((gridDecreaseShare(0.05) - 0.025) * 622)).toBe(14);
    expect(Math.round((gridDecreaseShare(0.2) - 0.1) * 622)).toBe(41);
  });

  it('needs a share in [0, 1]', () => {
    expect(() => gridDecreaseShare(1.5)).toThrow(/share/);
  });
});
