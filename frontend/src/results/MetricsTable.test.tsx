import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { phone } from '../../test/support/media';
import { renderInApp } from '../../test/support/render';
import type { RunSummary } from '../api/types';
import { MetricsTable } from './MetricsTable';

const summary = {
  flows: [],
  metrics: {
    flows: [],
    theory: [],
    groups: [
      {
        path: 'main',
        direction: 'forward',
        flows: ['reno-1', 'cubic-2'],
        metrics: [{ id: 'jain.whole', value: 0.987, unit: 'ratio' }],
      },
    ],
  },
} as unknown as RunSummary;

afterEach(() => vi.unstubAllGlobals());

describe('MetricsTable', () => {
  it('on a phone puts each value beside its metric name, not in a third column off-screen', async () => {
    phone();
    renderInApp(<MetricsTable summary={summary} />);
    const list = await screen.findByTestId('metrics-list');
    expect(list.textContent).toContain('Jain fairness, whole run: 0.987');
    expect(screen.queryByTestId('metrics')).toBeNull();
  });

  it('on a laptop is a table with a value column', async () => {
    renderInApp(<MetricsTable summary={summary} />);
    expect(await screen.findByTestId('metrics')).toBeTruthy();
  });
});
