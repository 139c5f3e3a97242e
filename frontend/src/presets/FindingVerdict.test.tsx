import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { PresetFinding, VerdictTest } from '../api/types';
import { FindingVerdict } from './FindingVerdict';

const decidedTest: VerdictTest = {
  name: '95 % CI (bootstrap ∪ jackknife t) of the mean against <= 0.35',
  n: 3,
  nMax: 5,
  items: 1,
  measured: 1,
};

const decided: PresetFinding = {
  id: 'fast.quarter',
  kind: 'threshold',
  text: 'With reverse traffic FAST got a quarter or less of the others.',
  ref: 'Table 4',
  sentence: '…',
  verdict: 'inconclusive',
  holds: null,
  test: decidedTest,
};

const inApp = (ui: React.ReactNode) => render(<MantineProvider>{ui}</MantineProvider>);

describe('FindingVerdict', () => {
  it('says the verdict in words with the test and n', () => {
    inApp(<FindingVerdict finding={decided} />);
    expect(screen.getByText('inconclusive')).toBeTruthy();
    expect(
      screen.getByText(/95 % CI \(bootstrap ∪ jackknife t\) of the mean against <= 0.35; n = 3–5/),
    ).toBeTruthy();
  });

  it('gives what the test found: the interval, τ and p', () => {
    inApp(
      <FindingVerdict
        finding={{
          ...decided,
          verdict: 'fails',
          test: {
            name: 'Kendall τ-b, one-sided',
            tau: 0.2,
            p: 0.31,
            alpha: 0.05,
            ci: {
              low: 0.4,
              high: null as unknown as number,
              level: 0.95,
              resamples: 10000,
              seed: 1,
              paired: true,
            },
            n: 3,
            nMax: 3,
            items: 7,
            measured: 7,
          },
        }}
      />,
    );
    expect(
      screen.getByText(
        /Kendall τ-b, one-sided: 95 % CI 0.4 to ∞ \(paired by seed\), τ = 0.2, p = 0.31 \(α = 0.05\); n = 3/,
      ),
    ).toBeTruthy();
  });

  it('gives a share judged unit by unit as its range with the undecided units', () => {
    const ci = { low: 0.682, high: 0.727, level: 0.95, resamples: 10000, seed: 1, units: 11, undecided: 1 };
    inApp(<FindingVerdict finding={{ ...decided, test: { ...decidedTest, name: 'pair agreement', ci } }} />);
    expect(
      screen.getByText(/pair agreement: share 0.682 to 0.727 \(1 of 11 undecided\); n = 3/),
    ).toBeTruthy();
  });

  it('says when the t interval set the ends (a few runs), and not when the bootstrap did', () => {
    const ci = { level: 0.95, resamples: 10000, seed: 1, bootstrap: { low: 15.6, high: 17.6 } };
    const test = (t: { low: number; high: number; se: number; df: number }) => ({
      ...decidedTest,
      name: '95 % CI of the mean against > 15',
      ci: { ...ci, low: Math.min(15.6, t.low), high: Math.max(17.6, t.high), t },
    });
    const { unmount } = inApp(
      <FindingVerdict finding={{ ...decided, test: test({ low: 14, high: 19, se: 0.58, df: 2 }) }} />,
    );
    expect(screen.getByText(/95 % CI 14 to 19, t on 2 df; n = 3/)).toBeTruthy();
    unmount();
    inApp(
      <FindingVerdict finding={{ ...decided, test: test({ low: 15.9, high: 17.3, se: 0.1, df: 7.5 }) }} />,
    );
    expect(screen.getByText(/95 % CI 15.6 to 17.6; n = 3/)).toBeTruthy();
  });

  it('gives a p-value below the printed precision as a bound, as the comparison text does', () => {
    inApp(
      <FindingVerdict
        finding={{
          ...decided,
          verdict: 'holds',
          test: {
            name: 'Kendall τ-b, one-sided',
            tau: 0.68,
            p: 0.00004,
            alpha: 0.05,
            n: 3,
            nMax: 3,
            items: 5,
            measured: 5,
          },
        }}
      />,
    );
    expect(screen.getByText(/τ = 0.68, p < 0.001 \(α = 0.05\)/)).toBeTruthy();
  });

  it('says when values sharing a run widened the test', () => {
    const test = {
      ...decidedTest,
      name: 'Kendall τ-b, one-sided',
      tau: 0.48,
      p: 0.00001,
      designEffect: 1.714,
    };
    inApp(<FindingVerdict finding={{ ...decided, verdict: 'holds', test }} />);
    expect(screen.getByText(/p < 0.001, variance × 1.71 for values sharing a run; n = 3/)).toBeTruthy();
  });

  it('says how many repetitions would decide an inconclusive interval, or that 100 would not', () => {
    const test = { ...decidedTest, ci: { low: 0.74, high: 0.985, level: 0.95, resamples: 10_000, seed: 1 } };
    inApp(
      <FindingVerdict
        finding={{ ...decided, verdict: 'inconclusive', test: { ...test, repetitionsToDecide: 8 } }}
      />,
    );
    expect(screen.getByText(/0.985, about 8 repetitions would decide it; n = 3/)).toBeTruthy();
    inApp(
      <FindingVerdict
        finding={{
          ...decided,
          id: 'other',
          verdict: 'inconclusive',
          test: { ...test, repetitionsToDecide: null },
        }}
      />,
    );
    expect(screen.getByText(/not decided within 100 repetitions at this spread; n = 3/)).toBeTruthy();
  });

  it('prices the repetitions in runs and names the variants and runs behind the finding', () => {
    const test = {
      ...decidedTest,
      nMax: 3,
      repetitionsToDecide: 15,
      runsToDecide: 144,
      variants: 12,
      runs: 36,
    };
    inApp(<FindingVerdict finding={{ ...decided, verdict: 'inconclusive', test }} />);
    expect(
      screen.getByText(
        /about 15 repetitions would decide it \(144 more runs\); n = 3 \(12 variants, 36 runs\)/,
      ),
    ).toBeTruthy();
  });

  it('names the variants its averages left out because the lab could not carry them', () => {
    const leftOut = [
      { label: 'manchester · reno (16 streams) · window 0.4 BDP', usable: 0, tried: 3 },
      { label: 'ufl · reno (16 streams) · window 1.14 BDP', usable: 2, tried: 3 },
    ];
    inApp(<FindingVerdict finding={{ ...decided, verdict: 'fails', test: { ...decidedTest, leftOut } }} />);
    expect(
      screen.getByText(
        /n = 3–5\) Left out of the averages, the lab could not carry them: manchester · reno \(16 streams\) · window 0.4 BDP \(0 of 3 runs usable\); ufl · reno \(16 streams\) · window 1.14 BDP \(2 of 3 runs usable\)\./,
      ),
    ).toBeTruthy();
  });

  it('reads an older finding that has only holds', () => {
    const { id, kind, text, ref, sentence } = decided;
    inApp(<FindingVerdict finding={{ id, kind, text, ref, sentence, holds: true }} />);
    expect(screen.getByText('holds')).toBeTruthy();
    expect(screen.queryByText(/n = /)).toBeNull();
  });
});
