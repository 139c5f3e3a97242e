import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { PresetFinding } from '../api/types';
import { FindingVerdict } from './FindingVerdict';

const decided: PresetFinding = {
  id: 'fast.quarter',
  kind: 'threshold',
  text: 'With reverse traffic FAST got a quarter or less of the others.',
  ref: 'Table 4',
  sentence: '…',
  verdict: 'inconclusive',
  holds: null,
  test: { name: 'bootstrap 95 % CI of the mean against <= 0.35', n: 3, nMax: 5, items: 1, measured: 1 },
};

const inApp = (ui: React.ReactNode) => render(<MantineProvider>{ui}</MantineProvider>);

describe('FindingVerdict', () => {
  it('says the verdict in words with the test and n', () => {
    inApp(<FindingVerdict finding={decided} />);
    expect(screen.getByText('inconclusive')).toBeTruthy();
    expect(screen.getByText(/bootstrap 95 % CI of the mean against <= 0.35; n = 3–5/)).toBeTruthy();
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

  it('reads an older finding that has only holds', () => {
    const { id, kind, text, ref, sentence } = decided;
    inApp(<FindingVerdict finding={{ id, kind, text, ref, sentence, holds: true }} />);
    expect(screen.getByText('holds')).toBeTruthy();
    expect(screen.queryByText(/n = /)).toBeNull();
  });
});
