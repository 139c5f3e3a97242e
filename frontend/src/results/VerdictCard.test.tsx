import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { phone } from '../../test/support/media';
import { renderInApp } from '../../test/support/render';
import type { RunSummary } from '../api/types';
import { VerdictCard } from './VerdictCard';

const summary = {
  verdict: 'valid',
  fidelity: {
    verdict: 'valid',
    reasons: [],
    checks: [
      {
        id: 'bottleneck-rate:main:forward',
        status: 'pass',
        measured: 74.7e6,
        expected: '75.000 Mbit/s ± 3 %',
        message: 'main forward: the bottleneck served 74.72 Mbit/s while it had a queue',
      },
    ],
  },
  rejudged: [
    {
      at: '2026-12-05T11:30:00.000Z',
      by: 'lfnlab 0.1.0 (1812d44ed7bc)',
      previousVerdict: 'valid',
      changed: [],
      metricsChanged: ['main.forward stability.aggregate'],
    },
  ],
  flows: [],
  paths: [],
} as unknown as RunSummary;

afterEach(() => vi.unstubAllGlobals());

describe('VerdictCard', () => {
  it('says which metrics moved when the run was judged again', async () => {
    renderInApp(<VerdictCard summary={summary} />);
    const note = await screen.findByTestId('rejudged');
    expect(note.textContent).toContain('no check changed');
    expect(note.textContent).toContain(
      'metrics computed again from the samples, these moved or are new: stability.aggregate',
    );
  });

  it('on a phone lists each check as a block, its id free to wrap, instead of a table off-screen', async () => {
    phone();
    renderInApp(<VerdictCard summary={summary} />);
    const list = await screen.findByTestId('checks-list');
    expect(list.textContent).toContain('bottleneck-rate:main:forward');
    expect(list.textContent).toContain('expected: 75.000 Mbit/s ± 3 %');
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('on a laptop is a table of check, status, expected and measured', async () => {
    renderInApp(<VerdictCard summary={summary} />);
    expect(await screen.findByRole('table')).toBeTruthy();
    expect(screen.queryByTestId('checks-list')).toBeNull();
  });
});
