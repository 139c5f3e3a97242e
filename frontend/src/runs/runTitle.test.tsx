// Campaign runs on screen by their variant's label (`reno · 100 Mbit/s · 120 ms · rep 2`), not
// their id (`003-_rtt_120ms_rate_50Mbit_b-r1`); records from before labels keep their stored name.
import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { spec } from '../../test/support/fixtures';
import { renderInApp } from '../../test/support/render';
import type { Run } from '../api/types';
import { CampaignsPage } from '../campaigns/CampaignsPage';
import { RunsTable } from './RunsTable';
import { runTitle, variantTitle } from './runTitle';

const run = (id: string, o: Partial<Run> = {}): Run => ({
  id,
  name: 'seed003-responsiveness/003-_rtt_120ms_rate_50Mbit_b-r2',
  label: '50 Mbit/s · 120 ms · rep 2',
  owner: 'ada',
  ownerId: 'u1',
  status: 'completed',
  verdict: 'valid',
  preset: 'seed003-responsiveness',
  campaign: 'seed003-responsiveness@20250301-abc',
  lab: 'default',
  stacks: ['reno'],
  createdAt: '2025-03-01T10:00:00Z',
  startedAt: '2025-03-01T10:00:00Z',
  finishedAt: '2025-03-01T10:05:00Z',
  progress: { elapsedS: 300, totalS: 300 },
  error: null,
  partial: false,
  queue: null,
  spec: spec('responsiveness'),
  ...o,
});

describe('runTitle', () => {
  it('names a campaign run by its campaign and variant label; plain and older runs by their name', () => {
    expect(runTitle(run('a'))).toBe('seed003-responsiveness: 50 Mbit/s · 120 ms · rep 2');
    expect(variantTitle(run('a'))).toBe('50 Mbit/s · 120 ms · rep 2');
    // A record written before labels: its stored name, as before.
    const old = run('b', { label: undefined });
    expect(runTitle(old)).toBe('seed003-responsiveness/003-_rtt_120ms_rate_50Mbit_b-r2');
    expect(variantTitle(old)).toBe(old.name);
    expect(runTitle(run('c', { name: 'my experiment', label: null }))).toBe('my experiment');
  });
});

describe('run lists and campaigns show the label', () => {
  it('the runs table links the label, not the variant id', () => {
    renderInApp(<RunsTable runs={[run('r1'), run('r2', { name: 'plain', label: null })]} />);
    const link = screen.getByRole('link', { name: 'seed003-responsiveness: 50 Mbit/s · 120 ms · rep 2' });
    expect(link.getAttribute('href')).toBe('#/runs/r1');
    expect(screen.getByRole('link', { name: 'plain' })).toBeTruthy();
    // Each part of the label kept on one line (the campaign's name may break).
    expect([...link.querySelectorAll('span[style*="nowrap"]')].map((p) => p.textContent)).toEqual([
      '50 Mbit/s',
      '120 ms',
      'rep 2',
    ]);
    expect(screen.queryByText(/003-_rtt_120ms/)).toBeNull();
  });

  it("a campaign lists its runs by variant label, in the labels' numeric order", async () => {
    mockApi({
      'GET /api/runs': {
        body: {
          runs: [
            run('r12', {
              name: 'sst/012-cubic-12-r1',
              label: 'cubic · 12 flows',
              status: 'queued',
              verdict: null,
            }),
            run('r2', { name: 'sst/001-cubic-2-r1', label: 'cubic · 2 flows' }),
            run('rb', { name: 'sst/004-bic-2-r1', label: 'bic · 2 flows', status: 'failed', verdict: null }),
          ].map((r) => ({ ...r, campaign: 'sst@20250301-abc' })),
        },
      },
      'GET /api/specs': { body: [] },
      'GET /api/runs/r2/summary': { status: 404, body: { error: 'none here' } },
    });
    renderInApp(<CampaignsPage />);
    const runs = await screen.findByTestId('campaign-runs');
    fireEvent.click(within(runs).getByText('Runs (3)'));
    const table = within(runs).getByRole('table', { name: 'Runs of sst@20250301-abc' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell')[0]?.textContent)).toEqual([
      'bic · 2 flows',
      'cubic · 2 flows',
      'cubic · 12 flows',
    ]);
    // Each part keeps its number and unit on one line; lines break only between parts.
    const parts = rows[0]?.querySelectorAll('span[style*="nowrap"]') ?? [];
    expect([...parts].map((p) => p.textContent)).toEqual(['bic', '2 flows']);
    // One outcome column: the verdict once completed, else the status.
    expect(rows.map((r) => within(r).getAllByRole('cell')[1]?.textContent)).toEqual([
      'failed',
      'valid',
      'queued',
    ]);
    // Still reachable by id: a queued run opens its live page, a finished one its results.
    expect(within(table).getByRole('link', { name: 'cubic · 12 flows' }).getAttribute('href')).toBe(
      '#/runs/r12/live',
    );
    expect(within(table).getByRole('link', { name: 'cubic · 2 flows' }).getAttribute('title')).toBe(
      'sst/001-cubic-2-r1',
    );
  });
});
