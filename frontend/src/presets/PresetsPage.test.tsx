import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { spec } from '../../test/support/fixtures';
import { renderInApp } from '../../test/support/render';
import type { Preset, Run } from '../api/types';
import { PresetsPage } from './PresetsPage';

// GET /api/presets as docs/API.md lists it (the fields the gallery reads).
const presets: Preset[] = [
  {
    id: 'hstcp-fairness',
    paper: { id: '003', short: 'Floyd 2003', title: 'HighSpeed TCP for Large Congestion Windows' },
    title: 'HighSpeed TCP against Reno on a 1 Gbit/s path',
    finding: 'HighSpeed TCP takes most of the link from a competing Reno flow.',
    scaling: { rule: 'Rate scaled to 100 Mbit/s, RTT kept at 100 ms.' },
    parts: [{ name: 'main', text: 'name: hstcp\n' }],
  },
  {
    id: 'bic-rtt',
    paper: { id: '007', short: 'Xu 2004', title: 'Binary Increase Congestion Control' },
    title: 'BIC and RTT unfairness',
    finding: 'BIC keeps RTT unfairness close to that of Reno.',
    scaling: 'Two paths, 40 ms and 160 ms.',
    parts: [
      { name: 'short-rtt', text: 'name: a\n' },
      { name: 'long-rtt', text: 'name: b\n' },
    ],
  },
];

const queued = (id: string): Run => ({
  id,
  name: 'preset-run',
  owner: 'ada',
  ownerId: 'u-ada',
  status: 'queued',
  verdict: null,
  preset: 'bic-rtt',
  campaign: 'c1',
  lab: 'default',
  stacks: ['bic', 'reno'],
  createdAt: '2025-03-01T10:00:00Z',
  startedAt: null,
  finishedAt: null,
  progress: { elapsedS: 0, totalS: 10 },
  error: null,
  partial: false,
  queue: null,
  spec: spec('preset-run'),
});

describe('PresetsPage', () => {
  it('shows every preset with its finding and a "Run it" button', async () => {
    mockApi({ 'GET /api/presets': { body: presets } });
    renderInApp(<PresetsPage />);
    for (const p of presets) {
      const card = await screen.findByTestId(`preset-${p.id}`);
      expect(within(card).getByRole('heading', { level: 3 }).textContent).toBe(p.title);
      expect(within(card).getByText(p.finding)).toBeTruthy();
      const run = within(card).getByRole('button', { name: `Run preset ${p.title}` });
      expect(run.textContent).toBe('Run it');
    }
    expect(screen.getAllByRole('article')).toHaveLength(presets.length);
  });

  it('starts the chosen preset, shortened, when "Run it" is pressed', async () => {
    const { calls } = mockApi({
      'GET /api/presets': { body: presets },
      'POST /api/runs': { status: 202, body: { ...queued('r9'), queuedRuns: ['r9'] } },
    });
    renderInApp(<PresetsPage />);
    const card = await screen.findByTestId('preset-bic-rtt');
    fireEvent.click(within(card).getByRole('button', { name: /^Run preset/ }));
    await waitFor(() => expect(window.location.hash).toBe('#/runs/r9/live'));
    expect(calls.filter((c) => c.path === '/api/runs')).toEqual([
      { method: 'POST', path: '/api/runs', body: { preset: 'bic-rtt', part: 'short-rtt', shorten: 10 } },
    ]);
  });

  it("shows the service's refusal on the card", async () => {
    mockApi({
      'GET /api/presets': { body: presets },
      'POST /api/runs': { status: 403, body: { error: 'over quota: 1 concurrent run', problems: [] } },
    });
    renderInApp(<PresetsPage />);
    const card = await screen.findByTestId('preset-hstcp-fairness');
    fireEvent.click(within(card).getByRole('button', { name: /^Run preset/ }));
    expect((await within(card).findByRole('alert')).textContent).toBe('over quota: 1 concurrent run');
  });
});
