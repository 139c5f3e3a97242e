import { describe, expect, it } from 'vitest';
import { flowStyles, NEUTRAL, PALETTE, runFlowStyle, stackColor } from './palette.js';

/** sRGB hex → CIELAB (D65). */
function lab(hex: string): [number, number, number] {
  const c = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255);
  const [r, g, b] = c.map((v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)) as number[];
  const x = (0.4124 * r! + 0.3576 * g! + 0.1805 * b!) / 0.95047;
  const y = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  const z = (0.0193 * r! + 0.1192 * g! + 0.9505 * b!) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}
/** Deuteranopia, Machado et al. 2009 (severity 1), applied in linear RGB. */
function deuteranope(hex: string): string {
  const lin = [1, 3, 5].map((i) => {
    const v = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const m = [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ];
  const out = m.map((row) =>
    Math.min(1, Math.max(0, row[0]! * lin[0] + row[1]! * lin[1] + row[2]! * lin[2])),
  );
  return `#${out
    .map((v) =>
      Math.round((v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055) * 255)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}
const dE = (a: string, b: string) => {
  const [x, y] = [lab(a), lab(b)];
  return Math.hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2]);
};

describe('the shared palette', () => {
  it('gives a stack one colour wherever it is, and repeats of a stack a dash', () => {
    expect(stackColor('reno')).toBe(stackColor('RENO'));
    const a = flowStyles([
      { name: 'r', stack: 'reno' },
      { name: 'c1', stack: 'cubic' },
      { name: 'c2', stack: 'cubic' },
    ]);
    const b = flowStyles([
      { name: 'x', stack: 'cubic' },
      { name: 'y', stack: 'reno' },
    ]);
    expect(a.get('r')?.color).toBe(b.get('y')?.color);
    expect(a.get('c1')?.color).toBe(a.get('c2')?.color);
    expect(a.get('c1')?.dash).toEqual([]);
    expect(a.get('c2')?.dash).not.toEqual([]);
    expect(runFlowStyle('reno', 0).dash).not.toEqual(runFlowStyle('reno', 1).dash);
  });

  it('keeps the first four stack colours apart under deuteranopia (ΔE ≥ 20) and off the neutrals', () => {
    const four = ['reno', 'cubic', 'bbr', 'htcp'].map(stackColor);
    for (let i = 0; i < four.length; i++)
      for (let j = i + 1; j < four.length; j++)
        expect(dE(deuteranope(four[i]!), deuteranope(four[j]!)), `${four[i]} vs ${four[j]}`).toBeGreaterThan(
          20,
        );
    for (const c of PALETTE) expect(Object.values(NEUTRAL)).not.toContain(c);
  });

  it('gives the three most used colours a contrast of at least 3:1 on white (WCAG graphics)', () => {
    const lum = (hex: string) => {
      const [r, g, b] = [1, 3, 5].map((i) => {
        const v = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      }) as [number, number, number];
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    for (const c of PALETTE.slice(0, 3)) expect(1.05 / (lum(c) + 0.05), c).toBeGreaterThanOrEqual(3);
  });
});
