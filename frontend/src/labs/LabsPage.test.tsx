import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { renderInApp } from '../../test/support/render';
import { ago, LabsPage } from './LabsPage';

const lab = {
  name: 'default',
  state: 'ready',
  accel: 'kvm',
  cpus: 1,
  kernel: '6.1.0-28-amd64',
  stacks: ['reno', 'cubic'],
  bootMs: 12_400,
};

const worker = (over: Record<string, unknown> = {}) => ({
  name: 'labpc01',
  host: 'labpc01.lab.example.edu',
  version: '0.1.0',
  state: 'busy',
  labs: [
    { name: 'default', state: 'busy', runId: 'run-7' },
    { name: 'default-2', state: 'idle', runId: null },
  ],
  lastSeenAt: '2026-11-26T03:00:00.000Z',
  lastSeenS: 4,
  ...over,
});

describe('LabsPage', () => {
  it('lists the service’s labs and each worker with its labs, state in words, last seen with units', async () => {
    mockApi({
      'GET /api/labs': { body: [lab] },
      'GET /api/health': {
        body: {
          ok: true,
          influx: 'off',
          queue: 1,
          labs: [{ name: 'default', state: 'ready' }],
          workers: [
            worker(),
            worker({
              name: 'labpc02',
              host: 'labpc02',
              state: 'away',
              labs: [{ name: 'default', state: 'idle', runId: null }],
              lastSeenS: 190,
            }),
          ],
        },
      },
    });
    renderInApp(<LabsPage />);
    const labs = await screen.findByTestId('service-labs');
    expect(within(labs).getByText('KVM')).toBeTruthy();
    expect(within(labs).getByText('12.4')).toBeTruthy();
    expect(within(labs).getByRole('columnheader', { name: 'Boot time (s)' })).toBeTruthy();

    const table = await screen.findByTestId('workers');
    const [, first, second] = within(table).getAllByRole('row');
    const a = within(first as HTMLElement);
    expect(a.getByText('labpc01')).toBeTruthy();
    expect(a.getByText('busy', { exact: true })).toBeTruthy();
    expect(a.getByText('1 of 2 labs busy')).toBeTruthy();
    expect(a.getByText('default busy')).toBeTruthy();
    expect(a.getByText('default-2 idle')).toBeTruthy();
    // An admin's health listing names the run: a link to its live view.
    expect(a.getByRole('link', { name: 'run-7' }).getAttribute('href')).toBe('#/runs/run-7/live');
    expect(a.getByText('4 s ago').getAttribute('datetime')).toBe('2026-11-26T03:00:00.000Z');
    const b = within(second as HTMLElement);
    expect(b.getByText('away', { exact: true })).toBeTruthy();
    expect(b.getByText('3 min ago')).toBeTruthy();
    expect(b.getByText('0 of 1 lab busy')).toBeTruthy();
    // Nothing secret is there to show.
    expect(document.body.textContent).not.toMatch(/lfnw_|token/i);
  });

  it('says so when no worker has reported, and when the list cannot be read', async () => {
    mockApi({
      'GET /api/labs': { body: [] },
      'GET /api/health': { body: { ok: true, influx: 'off', queue: 0, labs: [], workers: [] } },
    });
    const first = renderInApp(<LabsPage />);
    expect(await screen.findByText(/has reported lately/)).toBeTruthy();
    expect(screen.getByText('This service has no lab of its own.')).toBeTruthy();
    first.unmount();
    mockApi({
      'GET /api/labs': { body: [lab] },
      'GET /api/health': { status: 503, body: { error: 'down' } },
    });
    renderInApp(<LabsPage />);
    expect(await screen.findByText(/list of workers could not be read/)).toBeTruthy();
  });

  it('writes how long ago in seconds, minutes or hours', () => {
    expect([ago(0), ago(59), ago(60), ago(3599), ago(7200)]).toEqual([
      '0 s ago',
      '59 s ago',
      '1 min ago',
      '59 min ago',
      '2 h ago',
    ]);
  });
});
