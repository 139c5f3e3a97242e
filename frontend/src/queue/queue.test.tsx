// The visible queue in the UI: places in words, the header's "N ahead", campaigns counting running
// and queued apart, the instructor's class queue, and notifications about one's own runs.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { labs, spec, student } from '../../test/support/fixtures';
import { renderInApp } from '../../test/support/render';
import type { QueueBoard, Run } from '../api/types';
import { HeaderBar } from '../app/HeaderBar';
import { SessionProvider } from '../auth/session';
import { CampaignsPage } from '../campaigns/CampaignsPage';
import { ClassQueue } from './ClassQueue';
import { runNotes } from './notifications';
import { aheadText, waitText } from './waitText';

const run = (id: string, status: Run['status'], o: Partial<Run> = {}): Run => ({
  id,
  name: `variant ${id}`,
  owner: 'ada',
  ownerId: 'u1',
  status,
  verdict: status === 'completed' ? 'valid' : null,
  preset: null,
  campaign: 'sweep@1',
  lab: 'default',
  stacks: ['reno'],
  createdAt: '2025-03-01T10:00:00Z',
  startedAt: null,
  finishedAt: null,
  progress: { elapsedS: 0, totalS: 60 },
  error: null,
  partial: false,
  queue: null,
  spec: spec(`v${id}`),
  ...o,
});

const board: QueueBoard = {
  labs: [
    {
      lab: 'default',
      running: {
        runId: null,
        name: null,
        label: null,
        owner: null,
        mine: false,
        status: 'running',
        position: null,
        estimatedStartAt: null,
      },
      waiting: [
        {
          runId: null,
          name: null,
          label: null,
          owner: null,
          mine: false,
          status: 'queued',
          position: 1,
          estimatedStartAt: '2025-03-01T10:01:00Z',
        },
        {
          runId: 'b1',
          name: 'sweep/002-cubic-r1',
          label: 'cubic',
          owner: 'bob',
          mine: false,
          status: 'queued',
          position: 2,
          estimatedStartAt: '2025-03-01T10:03:00Z',
        },
        {
          runId: 'a1',
          name: 'my run',
          label: null,
          owner: 'ada',
          mine: true,
          status: 'queued',
          position: 3,
          estimatedStartAt: '2025-03-01T10:05:00Z',
        },
      ],
    },
  ],
  myFirstAhead: 3,
  myQueued: 1,
};

describe('queue places in words', () => {
  it('names the place, the runs ahead and the expected start', () => {
    expect(aheadText(0)).toBe('nothing ahead');
    expect(aheadText(1)).toBe('1 run ahead');
    const t = waitText({
      position: 12,
      ahead: 13,
      estimatedWaitS: 1500,
      estimatedStartAt: '2025-03-01T10:25:00Z',
    });
    expect(t).toMatch(/^12th in line, 13 runs ahead; starts in about 25 min 00 s \(\d\d:\d\d\)$/);
    expect(
      waitText({ position: 1, ahead: 0, estimatedWaitS: 2, estimatedStartAt: '2025-03-01T10:00:00Z' }),
    ).toBe('1st in line, nothing ahead; starts any moment');
  });
});

describe('the header', () => {
  it('says how many runs start before the viewer’s next one', async () => {
    mockApi({
      'GET /api/auth/me': { body: { user: student, csrfToken: 't' } },
      'GET /api/labs': { body: labs },
      'GET /api/queue': { body: board },
    });
    renderInApp(
      <SessionProvider>
        <HeaderBar navOpen={false} toggleNav={() => undefined} />
      </SessionProvider>,
    );
    expect((await screen.findByTestId('queue-status')).textContent).toBe('3 ahead');
  });

  it('polls the lab every second while one of the viewer’s runs waits (the badge lagged 5 s)', async () => {
    const { calls } = mockApi({
      'GET /api/auth/me': { body: { user: student, csrfToken: 't' } },
      'GET /api/labs': { body: labs },
      'GET /api/queue': { body: board },
    });
    renderInApp(
      <SessionProvider>
        <HeaderBar navOpen={false} toggleNav={() => undefined} />
      </SessionProvider>,
    );
    await screen.findByTestId('queue-status');
    const labCalls = () => calls.filter((c) => c.path === '/api/labs').length;
    const before = labCalls();
    await waitFor(() => expect(labCalls()).toBeGreaterThanOrEqual(before + 2), { timeout: 3000 });
  });
});

describe('campaigns', () => {
  it('count the one running run apart from the queued ones (not "4 running")', async () => {
    mockApi({
      'GET /api/runs': {
        body: {
          runs: [
            run('1', 'running'),
            run('2', 'queued', {
              queue: { position: 3, ahead: 3, estimatedWaitS: 100, estimatedStartAt: '2025-03-01T10:02:00Z' },
            }),
            run('3', 'queued', {
              queue: { position: 5, ahead: 5, estimatedWaitS: 200, estimatedStartAt: '2025-03-01T10:04:00Z' },
            }),
            run('4', 'queued', {
              queue: { position: 6, ahead: 6, estimatedWaitS: 300, estimatedStartAt: '2025-03-01T10:06:00Z' },
            }),
          ],
        },
      },
      'GET /api/specs': { body: [] },
    });
    renderInApp(<CampaignsPage />);
    expect((await screen.findByTestId('campaign-running')).textContent).toBe('1 running');
    expect(screen.getByTestId('campaign-queued').textContent).toBe('3 queued · next 3 ahead');
  });
});

describe('the class queue', () => {
  it('lists the class’s waiting runs in order, others as a count, and moves and stops them', async () => {
    const { calls } = mockApi({
      'GET /api/queue': { body: board },
      'POST /api/runs/a1/move': { body: run('a1', 'queued') },
      'POST /api/runs/b1/stop': { body: run('b1', 'aborted') },
    });
    renderInApp(<ClassQueue />);
    const table = await screen.findByRole('table', { name: 'Queue of lab default' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.textContent?.slice(0, 34))).toEqual([
      "Running now: another person's run",
      expect.stringContaining("1 other person's run"),
      // A campaign's run by its variant's label, not its id.
      expect.stringContaining('2sweep: cubic'),
      expect.stringContaining('3my run'),
    ]);
    fireEvent.click(screen.getByRole('button', { name: 'Move my run (ada) earlier' }));
    fireEvent.click(screen.getByRole('button', { name: 'Stop sweep: cubic (bob)' }));
    await waitFor(() =>
      expect(calls.filter((c) => c.method === 'POST').map((c) => [c.path, c.body])).toEqual([
        ['/api/runs/a1/move', { to: 'earlier' }],
        ['/api/runs/b1/stop', {}],
      ]),
    );
  });
});

describe('notifications', () => {
  it('are due when one of the viewer’s runs starts or ends, once each', () => {
    const before = new Map<string, Run['status']>([
      ['1', 'queued'],
      ['2', 'running'],
      ['3', 'completed'],
    ]);
    const notes = runNotes(before, [
      run('1', 'running'),
      run('2', 'completed'),
      run('3', 'completed'),
      run('4', 'queued'),
    ]);
    expect(notes.map((n) => n.title)).toEqual(['Run started: variant 1', 'Run completed: variant 2']);
    expect(notes[1]?.body).toContain('Verdict: valid');
  });
});

describe('run lists', () => {
  it('show a queued run’s place and a running run’s progress', async () => {
    const { RunsTable } = await import('../runs/RunsTable');
    renderInApp(
      <RunsTable
        runs={[
          run('r', 'running', { progress: { elapsedS: 15, totalS: 60 } }),
          run('q', 'queued', {
            queue: { position: 4, ahead: 5, estimatedWaitS: 400, estimatedStartAt: '2025-03-01T10:07:00Z' },
          }),
        ]}
      />,
    );
    expect(screen.getByTestId('run-progress').textContent).toBe('25 % of 1 min 00 s');
    expect(screen.getByTestId('queue-place').textContent).toMatch(/^#4 · 5 ahead · ~\d\d:\d\d$/);
  });
});
