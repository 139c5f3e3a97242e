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

  it('reads an older finding that has only holds', () => {
    const { id, kind, text, ref, sentence } = decided;
    inApp(<FindingVerdict finding={{ id, kind, text, ref, sentence, holds: true }} />);
    expect(screen.getByText('holds')).toBeTruthy();
    expect(screen.queryByText(/n = /)).toBeNull();
  });
});
