import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockApi } from '../../test/support/api';
import { replay, spec } from '../../test/support/fixtures';
import { renderInApp } from '../../test/support/render';
import type { Run } from '../api/types';
import { LivePage } from './LivePage';

/** A live socket that sends what the test scripts, recording every URL opened. */
class FakeSocket {
  static opened: string[] = [];
  static script: unknown[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((ev: { data: string }) => void) | null = null;
  onclose: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.opened.push(url);
    setTimeout(() => {
      this.onopen?.();
      for (const m of FakeSocket.script) this.onmessage?.({ data: JSON.stringify(m) });
    }, 0);
  }
  close() {
    this.onclose?.();
  }
}

const base: Run = {
  id: 'r7',
  name: 'reno-vs-cubic',
  owner: 'ada',
  ownerId: 'u-ada',
  status: 'queued',
  verdict: null,
  preset: null,
  campaign: null,
  lab: 'default',
  stacks: ['reno', 'cubic'],
  createdAt: '2025-03-01T10:00:00Z',
  startedAt: null,
  finishedAt: null,
  progress: { elapsedS: 0, totalS: 30 },
  error: null,
  partial: false,
  queue: { position: 2, ahead: 3, estimatedWaitS: 290, estimatedStartAt: '2025-03-01T10:05:00Z' },
  spec: spec('reno-vs-cubic'),
};

beforeEach(() => {
  FakeSocket.opened = [];
  FakeSocket.script = [];
  vi.stubGlobal('WebSocket', FakeSocket);
});
afterEach(() => vi.unstubAllGlobals());

describe('LivePage', () => {
  it('shows a queued run’s place and expected start, not empty charts or a streaming badge', async () => {
    FakeSocket.script = [{ seq: 1, type: 'event', event: 'queued', data: { lab: 'default' } }];
    mockApi({ 'GET /api/runs/r7': { body: base } });
    renderInApp(<LivePage runId="r7" />);
    const panel = await screen.findByTestId('queue-panel');
    expect(panel.textContent).toContain('2nd in line, 3 runs ahead');
    expect(panel.textContent).toMatch(/starts in about 5 min/);
    expect(screen.queryByText('streaming')).toBeNull();
    expect(screen.queryAllByRole('img')).toHaveLength(0);
    // No "Remaining 1 min 00 s" for a run that has not started.
    expect(screen.queryByTestId('remaining')).toBeNull();
    expect(screen.getByRole('button', { name: 'Leave the queue' })).toBeTruthy();
  });

  it('replays an old run’s recorded samples instead of four empty charts', async () => {
    // An old run: the service has no live window, so the socket says done and caught up at once.
    FakeSocket.script = [
      { seq: 1, type: 'event', event: 'done', data: { status: 'completed' } },
      { seq: 2, type: 'caught-up' },
    ];
    const { calls } = mockApi({
      'GET /api/runs/r7': { body: { ...base, status: 'completed', queue: null, verdict: 'valid' } },
      'GET /api/runs/r7/samples': { body: replay },
    });
    renderInApp(<LivePage runId="r7" />);
    await waitFor(() => expect(calls.map((c) => c.path)).toContain('/api/runs/r7/samples'));
    expect(await screen.findByText('recorded samples')).toBeTruthy();
    const charts = screen.getAllByRole('img');
    expect(charts).toHaveLength(4);
    await waitFor(() =>
      expect(within(charts[0]?.parentElement as HTMLElement).getAllByText('reno-1').length).toBeGreaterThan(
        0,
      ),
    );
  });

  it('an unknown run id is a not-found page: no spinner, no Stop button, no socket', async () => {
    mockApi({ 'GET /api/runs/nope': { status: 404, body: { error: 'no run nope' } } });
    renderInApp(<LivePage runId="nope" />);
    expect(await screen.findByTestId('not-found')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Stop/ })).toBeNull();
    expect(FakeSocket.opened).toEqual([]);
  });
});
